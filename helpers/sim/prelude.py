"""The prelude, precompiled: GCC parses ``include/cuda_sim.h`` (the C++ standard headers and the
runtime) once for each set of compiler flags, instead of once for every module.

Parsing the prelude is about half of compiling a small module (0.4 of 0.9 CPU-seconds with
g++ 13). GCC reads ``cuda_sim.h.gch`` in place of ``cuda_sim.h`` when it finds it in an include
folder searched before the header's own, and only when it was built with the same flags: else it
reads the header, as without one. So a precompiled prelude can make a build faster, never
different. Each is built once, when a second module is built with its flags (a flag set used
once costs what it did before), in the user's cache (``prelude-*`` folders, about 50 MB each: a
learner's builds use two or three flag sets), with the ownership checks of a cached module,
since the compiler trusts what it holds; folders of an older prelude are deleted when a flag set
of a new one is first seen. One that GCC cannot read (damaged) is deleted and the module built without it. Other
compilers build without one.
"""

import hashlib
import platform
import shutil
import subprocess

from . import cache as module_cache
from . import toolchain

HEADER = "cuda_sim.h"


def _key(prelude_digest, cxx, flags):
    return hashlib.sha256("\0".join([*cxx, *flags]).encode()).hexdigest()[:20], \
        prelude_digest[:12]


def _reserves_a_register(flags):
    """True for a module whose threads run as fibers on x86-64: its prelude keeps the worker in
    a register that the whole module leaves alone (sim_runtime.h), and GCC does not carry that
    reservation in a precompiled header (the module's code then used the register, and its
    barriers found a wrong worker). Such a module parses the prelude itself."""
    return "-DSIM_FIBERS=1" in flags and platform.machine().lower() in ("x86_64", "amd64")


def include_folder(cxx, flags, include_dir, prelude_digest):
    """The folder to put first on the include path so that a compile with ``flags`` (everything
    but -c, -o and the file) reads the precompiled prelude; built now when missing. None for a
    compiler other than GCC, or when the prelude does not build with these flags (the compile
    itself then says why)."""
    if not toolchain.is_gcc(cxx) or _reserves_a_register(flags):
        return None
    flag_key, prelude_key = _key(prelude_digest, cxx, flags)
    root = module_cache.folder()
    folder = root / f"prelude-{prelude_key}-{flag_key}"
    target = folder / f"{HEADER}.gch"
    if target.exists():
        module_cache.check_owned(target, "precompiled prelude")
        return folder
    wanted = folder / "wanted"
    if not wanted.exists():  # the first module with these flags: no slower than before
        for stale in root.glob("prelude-*"):
            if not stale.name.startswith(f"prelude-{prelude_key}-"):
                shutil.rmtree(stale, ignore_errors=True)
        module_cache.make_private(folder)
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
