"""Random kernels run as the simulator's loops over their threads and as its fibers, compared:
outputs bit for bit, errors by their class, kind, thread and block (a fault's line as well, but
g++'s line tables may place it on the statement before in one build: counted, see check_seed).

    python tools/fuzz_loops.py [--seeds 0:20] [--kernels 12] [--plain] [--show]

Kernels with barriers run as loops once ``helpers/sim/compile/split.py`` has rewritten them, and
as fibers with ``-DSIM_NO_SPLIT``. Kernels without barriers (``--plain``) run as the plain loop
the compiler may vectorise (``include/sim_launch.h``), and as fibers in a module that also holds a
kernel with a barrier, built with ``-DSIM_NO_SPLIT``.

Each seed makes one module of ``--kernels`` random kernels (``tools/random_kernels.py``, which
says what they hold), built both ways and launched on a few block shapes. It prints how many
kernels ran as loops (one left to the fibers compares nothing) and exits with status 1 at the
first disagreement, printing the kernel and both results. ``tests/tools/test_fuzz_loops.py`` runs
a few seeds each way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: helpers

from helpers.sim import driver as drv, gpuarray  # noqa: E402
from helpers.sim.compiler import SourceModule  # noqa: E402
from helpers.sim.settings import settings  # noqa: E402
from random_kernels import SHAPES, first_difference, kernel_text, launch, module_source  # noqa: E402

FIBERS = ["-DSIM_NO_SPLIT"]
FIBER_KERNEL = "\n\n__global__ void fibers_all() { __syncthreads(); }\n"
"""With -DSIM_NO_SPLIT, a kernel with a barrier makes the module's kernels all run as fibers."""


def run(f, shape):
    """(output words, None, None) of one launch, or (None, the error's fields, its line)."""
    try:   # on one worker: with several, which block's error comes first varies between runs
        with settings.changed(workers=1):
            return launch(f, shape, gpuarray), None, None
    except drv.LaunchError as e:
        return None, (type(e).__name__, e.kind, e.thread, e.block), e.line  # (addresses differ)


def check_seed(seed, kernels, show=False, plain=False):
    """Build seed's module both ways and compare every kernel on every shape: (kernels run as
    loops, kernels, the first disagreement's report or None, faults placed on different lines).
    A fault's line is read from g++'s line tables, which at -O2 may give an instruction the line
    of a statement next to its own (a store sunk into the branch of the statement before): the
    two builds' code differs, so their lines may too, and that is counted, not a disagreement. Kernels with barriers: rewritten
    (split.py) against -DSIM_NO_SPLIT. Plain kernels: as they are built, against the same module
    with a kernel that waits at a barrier, with -DSIM_NO_SPLIT (every kernel on fibers)."""
    names, source, _ = module_source(seed, kernels, plain)
    if show:
        print(source)
    loops = SourceModule(source)
    fibers = SourceModule(source + FIBER_KERNEL if plain else source, options=FIBERS)
    assert all(fibers.module.kernels[name].fibers for name in names)
    as_loops, lines_apart = sum(not loops.module.kernels[name].fibers for name in names), 0
    for name in names:
        text = kernel_text(source, name)
        for shape in SHAPES:
            (loops_out, loops_error, loops_line), (fibers_out, fibers_error, fibers_line) = (
                run(m.get_function(name), shape) for m in (loops, fibers))
            if loops_error or fibers_error:
                if loops_error != fibers_error:
                    return as_loops, kernels, _report(seed, name, shape, text, loops_error,
                                                       fibers_error), lines_apart
                lines_apart += loops_line != fibers_line
            elif not np.array_equal(loops_out, fibers_out):
                where, at = first_difference(loops_out, fibers_out)
                return as_loops, kernels, _report(seed, name, shape, text, f"{where} is "
                                                  f"{loops_out[at]:#x}", f"{fibers_out[at]:#x}"), \
                    lines_apart
    return as_loops, kernels, None, lines_apart


def _report(seed, name, shape, text, loops, fibers):
    return f"seed {seed}, kernel {name}, block {shape}:\n{text}\nas loops: {loops}\nas fibers: {fibers}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0:20", help="first:last (last not included)")
    parser.add_argument("--kernels", type=int, default=12, help="random kernels a module")
    parser.add_argument("--plain", action="store_true",
                        help="kernels without barriers: the plain loops against fibers")
    parser.add_argument("--show", action="store_true", help="print each module's source")
    args = parser.parse_args(argv)
    first, last = map(int, args.seeds.split(":"))
    total = as_loops = lines_apart = 0
    for seed in range(first, last):
        done, made, disagreement, apart = check_seed(seed, args.kernels, args.show, args.plain)
        as_loops, total, lines_apart = as_loops + done, total + made, lines_apart + apart
        if disagreement:
            print(disagreement)
            return 1
    kind = "without barriers" if args.plain else "with barriers"
    print(f"{total} random kernels {kind}, {as_loops} of them run as loops, on {len(SHAPES)} block "
          f"shapes each: loops and fibers agree ({lines_apart} faults placed on other lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
