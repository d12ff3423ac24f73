"""`python -m helpers.sim ...`: run a PyCUDA program on the simulator where no GPU answers.

    python -m helpers.sim script.py [arguments]     as `python script.py [arguments]`
    python -m helpers.sim -m module [arguments]     as `python -m module [arguments]`
    python -m helpers.sim -c "code" [arguments]     as `python -c "code" [arguments]`

See helpers/sim/as_pycuda.py and shim_install.py: with a working PyCUDA and GPU, the real PyCUDA runs.
"""

import runpy
import sys
from pathlib import Path

from helpers.sim.shim_install import export_to_children, install

USAGE = __doc__.split("\n\n")[1]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    install(quiet=True)
    export_to_children()
    if argv[0] == "-m" and len(argv) > 1:
        sys.argv = [argv[1], *argv[2:]]
        sys.path.insert(0, "")
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c" and len(argv) > 1:
        sys.argv = ["-c", *argv[2:]]
        sys.path.insert(0, "")
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        script = Path(argv[0])
        if not script.is_file():
            print(f"python -m helpers.sim: can't open file {str(script)!r}\n\n{USAGE}",
                  file=sys.stderr)
            return 2
        sys.argv = list(argv)
        sys.path.insert(0, str(script.resolve().parent))
        runpy.run_path(str(script), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
