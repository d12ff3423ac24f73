"""What every module shares, built once for each set of compiler flags instead of once a module:
the precompiled prelude and the grid runner.

- The grid runner (``include/sim_grid.cpp``: worker threads, fibers, signals, the launch calls
  Python makes) is the same code in every module of a kind (with or without fibers, with the
  prelude's switches). It is compiled once into ``sim_grid.o`` and linked into each module, which
  then compiles only the prelude's inline functions, the learner's code and the kernel table.
- The prelude (``include/cuda_sim.h``: the C++ standard headers and the runtime) was half of
  compiling a small module (0.4 of 0.9 CPU-seconds with g++ 13). GCC reads ``cuda_sim.h.gch`` in
  place of ``cuda_sim.h`` when it finds it in an include folder searched before the header's own,
  and only when it was built with the same flags: else it reads the header, as without one. So a
  precompiled prelude can make a build faster, never different. Each is built when a second module
  is built with its flags (a flag set used once costs what it did before), for GCC only, and not
  for builds instrumented for the microscope (below); one that GCC cannot read (damaged) is
  deleted and the module built without it.

Both are kept in the cache folder (``grid-*`` and ``prelude-*`` folders; a precompiled prelude is
about 30 MB, and a learner's builds use two or three flag sets), with the ownership checks of a
cached module, since the compiler and the loader trust what they hold. Folders made for an older
version of the simulator's headers are deleted when a new one is made.
"""

import hashlib
import shutil
import subprocess

from . import cache as module_cache
from . import driver, toolchain

HEADER = "cuda_sim.h"
GRID_UNIT = "sim_grid.cpp"


def _folder(kind, cxx, flags, include_dir, headers_digest):
    """The cache folder for ``kind`` built by ``cxx`` with ``flags``; folders of the same kind made
    from other headers are deleted when it is made. Where the headers are is no part of the
    name (their digest is): every copy of the course (a student release made for a test run, a
    second checkout) shares one."""
    named_by = [*cxx, *(f for f in flags if f != f"-I{include_dir}")]
    flag_key = hashlib.sha256("\0".join(named_by).encode()).hexdigest()[:20]
    root = module_cache.folder()
    folder = root / f"{kind}-{headers_digest[:12]}-{flag_key}"
    if not folder.exists():
        for stale in root.glob(f"{kind}-*"):
            if not stale.name.startswith(f"{kind}-{headers_digest[:12]}-"):
                shutil.rmtree(stale, ignore_errors=True)
        module_cache.make_private(folder)
    return folder


def grid_object(cxx, flags, include_dir, headers_digest):
    """The grid runner compiled with ``flags`` (everything but -c, -o and the file): built now
    when missing or damaged. A compile error raises CompileError (the runner's flags hold only
    the prelude's switches, so this means a switch this machine cannot build)."""
    target = _folder("grid", cxx, flags, include_dir, headers_digest) / "sim_grid.o"
    if module_cache.usable(target):
        return target

    def write(partial):
        cmd = [cxx[0], "-c", *flags, str(include_dir / GRID_UNIT), "-o", partial]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise driver.CompileError("the simulator's grid runner (include/sim_grid.cpp) does "
                                      f"not compile with {' '.join(flags)}", cmd, proc.stdout,
                                      proc.stderr)

    module_cache.install(write, target)
    return target


def prelude_folder(cxx, flags, include_dir, headers_digest):
    """The folder to put first on the include path so that a compile with ``flags`` (everything
    but -c, -o and the file) reads the precompiled prelude; built now when it is the second
    build with these flags. None for the first, for a compiler other than GCC, for a build
    instrumented for the microscope, or when the prelude does not build with these flags (the
    compile itself then says why).

    An instrumented build tells the learner's accesses from the runtime's by the file its line
    tables name (sites.py), and a precompiled prelude names the headers it was built from: one
    built in another copy of the course (the release a test run makes) had the runtime's own
    accesses traced as the learner's, and the launch crashed."""
    if not toolchain.is_gcc(cxx) or "-DSIM_TRACE" in flags:
        return None
    folder = _folder("prelude", cxx, flags, include_dir, headers_digest)
    target = folder / f"{HEADER}.gch"
    if target.exists():
        module_cache.check_owned(target, "precompiled prelude")
        return folder
    wanted = folder / "wanted"
    if not wanted.exists():  # the first module with these flags: no slower than before
        wanted.touch()
        return None

    def write(partial):
        subprocess.run([cxx[0], *flags, "-x", "c++-header", str(include_dir / HEADER), "-o",
                        partial], capture_output=True, check=True)

    try:
        module_cache.install(write, target)
    except subprocess.CalledProcessError:
        return None
    return folder


def unreadable(stderr):
    """True when GCC stopped because it could not read a precompiled prelude."""
    return "PCH file" in stderr or f"{HEADER}.gch" in stderr


def discard(folder):
    shutil.rmtree(folder, ignore_errors=True)
