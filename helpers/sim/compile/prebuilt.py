"""What every module shares, built once for each set of compiler flags instead of once a module:
the runners and the precompiled prelude.

- The runners (RUNNERS) are the same code in every module of a kind (with or without fibers, with
  the prelude's switches): the grid runner (``include/sim_grid.cpp``: worker threads, fibers,
  signals, the launch calls Python makes) and, for the builds instrumented for the microscope,
  the memory trace's runtime (``include/sim_trace.cpp``: the callbacks of the instrumentation,
  the counting, the race and init checks). Each is compiled once into an object file and linked
  into each module, which then compiles only the prelude's inline functions, the learner's code
  and the kernel table.
- The prelude (``include/cuda_sim.h``: the C++ standard headers and the runtime) was half of
  compiling a small module (0.4 of 0.9 CPU-seconds with g++ 13). GCC reads ``cuda_sim.h.gch`` in
  place of ``cuda_sim.h`` when it finds it in an include folder searched before the header's own,
  and only when it was built with the same flags: else it reads the header, as without one. So a
  precompiled prelude can make a build faster, never different. The preprocessor's pass that
  finds the kernels (its own flags) reads one too (-fpch-preprocess): 0.06 to 0.09 s of a
  module's build became 0.01 to 0.02 s. Each is built when a second module is built with its
  flags (a flag set used once costs what it did before), for GCC only; the builds instrumented
  for the microscope get one of each copy of the course's own (prelude_folder says why). One
  that GCC cannot read (damaged) is deleted and the module built without it.

All are kept in the cache folder (``grid-*``, ``trace-*`` and ``prelude-*`` folders; a
precompiled prelude is about 30 MB, and a learner's builds use two or three flag sets, and the
scan that finds the kernels one more), with the ownership checks of a cached module, since the
compiler and the loader trust what they hold. Folders made for another version of the
simulator's headers are deleted when a new one is made, if nothing has used them for an hour
(each use sets a folder's time afresh): one used since may belong to another copy of the course,
building into it now.
"""

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from . import cache as module_cache
from .. import errors
from . import messages, source, toolchain

HEADER = "cuda_sim.h"


# A folder made from other headers is deleted once it has not been used for this long: a younger
# one may be another copy's (a second checkout, a student release of another commit), which
# builds with it now. Each use sets its time afresh (_folder).
STALE_AFTER_S = 3600


def _folder(kind, cxx, flags, include_dir, headers_digest, where=()):
    """The cache folder for ``kind`` built by ``cxx`` with ``flags``, its time set to now (in use);
    folders of the same kind made from other headers and unused for STALE_AFTER_S are deleted
    when it is made. Where the headers are is no part of the name (their digest is), unless
    ``where`` names it: every copy of the course with the same headers shares one."""
    named_by = [*cxx, *(source.anywhere(f) for f in flags if f != f"-I{include_dir}"), *where]
    flag_key = hashlib.sha256("\0".join(named_by).encode()).hexdigest()[:20]
    root = module_cache.folder()
    folder = root / f"{kind}-{headers_digest[:12]}-{flag_key}"
    try:
        os.utime(folder)   # in use: another copy's clean-up leaves it
    except FileNotFoundError:
        for stale in root.glob(f"{kind}-*"):
            if not stale.name.startswith(f"{kind}-{headers_digest[:12]}-") and _age_s(stale) > STALE_AFTER_S:
                shutil.rmtree(stale, ignore_errors=True)
        module_cache.make_private(folder)
    except OSError:        # another user's, or a read-only cache (the grader's sandbox): as it is
        pass
    return folder


def _age_s(folder):
    """Seconds since ``folder`` was last used or written into (0 if it is gone)."""
    try:
        return time.time() - folder.stat().st_mtime
    except FileNotFoundError:
        return 0


# What is compiled once for each kind of module and linked into each: (source in include/, what
# to call it in a message)
RUNNERS = {"grid": ("sim_grid.cpp", "grid runner"),
           "trace": ("sim_trace.cpp", "memory trace's runtime")}


def runner_object(kind, cxx, flags, include_dir, headers_digest):
    """The runner ``kind`` (RUNNERS) compiled with ``flags`` (everything but -c, -o and the file):
    built now when missing or damaged. A compile error raises CompileError (a runner's flags hold
    only the prelude's switches, so this means a switch this machine cannot build)."""
    unit, what = RUNNERS[kind]
    target = _folder(kind, cxx, flags, include_dir, headers_digest) / f"{Path(unit).stem}.o"
    if module_cache.usable(target):
        return target

    def write(partial):
        cmd = [cxx[0], "-c", *flags, str(include_dir / unit), "-o", partial]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise messages.disk_full(f"the simulator's {what}", proc.stderr) or \
                errors.CompileError(f"the simulator's {what} (include/{unit}) does not compile "
                                    f"with {' '.join(flags)}", cmd, proc.stdout, proc.stderr)

    module_cache.install(write, target)
    return target


def prelude_folder(cxx, flags, include_dir, headers_digest, debug=()):
    """The folder to put first on the include path so that a compile with ``flags`` (everything
    but -c, -o and the file) reads the precompiled prelude; built now when it is the second
    build with these flags. None for the first, for a compiler other than GCC, or when the
    prelude does not build with these flags (the compile itself then says why). ``debug``: the
    line-table flags it is made with, so that the builds with line tables read it as well as the
    plain ones (GCC reads a header precompiled with -g in a build without, not the other way
    round).

    A build instrumented for the microscope (-DSIM_TRACE) reads one made in the same folder of
    headers only: it tells the learner's accesses from the runtime's by the file its line tables
    name (sites.py), and a precompiled prelude names the headers it was built from, which the
    build's -fdebug-prefix-map renames only when they are its own (one built in another copy of
    the course, the release a test run makes, had the runtime's own accesses traced as the
    learner's, and the launch crashed). With it, g++ 12 made the same code and line tables as
    with the prelude parsed, and an instrumented build of a course kernel took 0.15 CPU-seconds
    less (the prelude's 0.25 of an empty one's 0.3), for 0.8 s and 36 MB to build each."""
    if not toolchain.is_gcc(cxx):
        return None
    where = [f"headers in {include_dir}"] if "-DSIM_TRACE" in flags else []
    folder = _folder("prelude", cxx, [*flags, *debug], include_dir, headers_digest, where)
    target = folder / f"{HEADER}.gch"
    if target.exists():
        module_cache.check_owned(target, "precompiled prelude")
        return folder
    wanted = folder / "wanted"
    if not wanted.exists():  # the first module with these flags: no slower than before
        wanted.touch()
        return None

    def write(partial):
        subprocess.run([cxx[0], *flags, *debug, "-x", "c++-header", str(include_dir / HEADER),
                        "-o", partial], capture_output=True, check=True)

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
