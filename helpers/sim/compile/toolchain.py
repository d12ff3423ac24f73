"""The host's C++ compiler and CPU, as the simulator uses them.

Which compiler builds the modules (``$CXX``, else g++, c++, clang++, else conda-forge's, whose
names carry the machine's prefix: ``x86_64-conda-linux-gnu-g++``), where binutils are (plain, or
conda's prefixed ones), and which flags make its
floating-point arithmetic the GPU's. nvcc fuses ``a*b + c`` into one fused multiply-add (FMA,
rounded once) by default (``--fmad=true``), and a GPU has FMA in hardware. A C++ compiler with
``-std=c++17`` does neither: it rounds the product and the sum apart, so float results differ
from a GPU's in the last bits. With contraction on (``-ffp-contract=fast``) and the CPU's FMA
instruction (``-mfma`` on x86-64, where the CPU has it; every Arm64 CPU has it), the simulator
computes what the GPU computes: the course's float kernels give the same bits (measured by
``bench/float_identity.py`` against an H200). ``--fmad=false`` turns contraction off on both.

One more GCC flag is needed for that. nvcc fuses every multiply-add, also an accumulation in a
loop (``sum += a[k] * b[k]``: a chain of FMAs through ``sum``). GCC declines to fuse such a chain
where its tuning says FMA chains are slow (``avoid_fma_chains``: AMD Zen's, Sapphire Rapids' and,
in newer GCCs, the generic tuning), and rounds the product and the sum apart: with the g++ 13.3
of an H200 machine a tiled matmul matched the GPU on 22% of its elements, and on all of them with
the CI machine's g++ 12. ``--param=avoid-fma-max-bits=0`` turns that heuristic off; Clang has none.
"""

import functools
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .. import errors
from ..settings import settings


@functools.lru_cache(maxsize=None)
def _version(path):
    return subprocess.run([path, "--version"], capture_output=True, text=True).stdout


CONDA_MACHINES = {"ppc64le": "powerpc64le"}
"""platform.machine()'s names that conda-forge's toolchains spell otherwise."""


def conda_prefix() -> str:
    """The prefix of conda-forge's compilers and binutils on this machine
    (``x86_64-conda-linux-gnu-``): its ``cxx-compiler`` installs no plain ``g++`` or
    ``objdump``, and only its activation script sets $CXX, which a Jupyter kernel started from
    the environment without activating it (Binder's, a JupyterHub's) does not run. "" off
    Linux, where conda-forge's compilers are Clang under their usual names."""
    if not sys.platform.startswith("linux"):
        return ""
    machine = platform.machine()
    return f"{CONDA_MACHINES.get(machine, machine)}-conda-linux-gnu-"


def which(name):
    """The path of the program ``name`` on PATH, else beside this Python (a conda environment's
    compilers and binutils are in its bin/ even where PATH does not name it); None when neither
    has it."""
    return shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))


def candidates(cxx_setting):
    """The compilers to look for, in order: $CXX (the setting), then g++, c++, clang++, then
    conda-forge's g++ and c++ (the doctor, helpers/doctor.py, looks in the same order)."""
    conda = [conda_prefix() + name for name in ("g++", "c++")] if conda_prefix() else []
    return [name for name in (cxx_setting, "g++", "c++", "clang++", *conda) if name]


@functools.lru_cache(maxsize=None)
def _find(cxx_setting):
    """(path, version line) of the first of candidates(cxx_setting) found (``which``)."""
    for name in candidates(cxx_setting):
        path = which(name)
        if path:
            out = _version(path)
            return path, out.splitlines()[0] if out else name
    return None


PATTERN_LOCALS = "-ftrivial-auto-var-init=pattern"
"""Locals filled with a pattern before their first write (GCC 12 and later, Clang 8 and later)."""
MAYBE_UNINITIALISED = "-Wmaybe-uninitialized"
"""GCC's warning for a local read before anything was stored in it on some path (Clang's
-Wuninitialized covers that, and it has no such option)."""


def for_compiler(flags, cxx):
    """``flags`` as the compiler ``cxx`` takes them: GCC's own left out for another one, and
    PATTERN_LOCALS for a compiler too old for it. (They stay in the flags that name a cached
    library, which must not depend on which compiler is found: a cached library loads without
    one.)"""
    left_out = (set() if is_gcc(cxx) else {FUSE_CHAINS, MAYBE_UNINITIALISED}) | (
        set() if PATTERN_LOCALS not in flags or takes(cxx, PATTERN_LOCALS) else {PATTERN_LOCALS})
    return [f for f in flags if f not in left_out]


@functools.lru_cache(maxsize=None)
def takes(cxx, flag) -> bool:
    """Whether the compiler ``(path, version line)`` accepts ``flag``."""
    return subprocess.run([cxx[0], flag, "-fsyntax-only", "-x", "c++", "-"], input="",
                          capture_output=True, text=True).returncode == 0


def binutils(name, needed_by):
    """The path of binutils' ``name`` (objdump, addr2line, c++filt), or of conda-forge's
    (``x86_64-conda-linux-gnu-objdump``), which ``needed_by`` (words for the simulator's part
    that runs it) needs; a CompileError that says how to install it."""
    names = [name, conda_prefix() + name] if conda_prefix() else [name]
    path = next(filter(None, map(which, names)), None)
    if path is None:
        raise errors.CompileError(
            f"{needed_by} needs binutils' {name}, which is not on PATH. Install binutils (it "
            "comes with g++): `sudo apt install binutils`, or in a conda environment "
            "`conda install -c conda-forge cxx-compiler`.", None)
    return path


def is_gcc(cxx) -> bool:
    """True when the compiler ``(path, version line)`` is GCC (its --version names the FSF;
    Clang's, Apple's c++ included, does not)."""
    return cxx is not None and "Free Software Foundation" in _version(cxx[0])


def find_compiler(required=True):
    """(path, version line) of the host C++ compiler; None when there is none and not required."""
    found = _find(settings.cxx)
    if found is None and required:
        raise errors.CompileError(
            f"the CPU simulator needs a C++ compiler and none was found (tried "
            f"{', '.join(candidates(settings.cxx))}). Install one: `sudo apt install g++` on "
            "Debian/Ubuntu, `xcode-select --install` on macOS, or `conda install -c conda-forge "
            "cxx-compiler`.", None)
    return found


@functools.lru_cache(maxsize=1)
def cpu_has_fma():
    """True when this CPU executes fused multiply-adds (read from the system, no compiler)."""
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return True
    if machine not in ("x86_64", "amd64"):
        return False
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo") as f:
                flags = next((ln for ln in f if ln.startswith("flags")), "")
            return " fma " in flags.replace("\n", " ") + " "
        if sys.platform == "darwin":
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.features"], capture_output=True,
                                 text=True).stdout
            return "FMA" in out.split()
    except OSError:
        pass
    return False


_FMAD = re.compile(r"^--?fmad=(true|false)$")
FUSE_CHAINS = "--param=avoid-fma-max-bits=0"
"""GCC's switch that fuses the multiply-adds of a chain in a loop too, as nvcc does (above)."""


def float_flags(options):
    """The compiler flags that give nvcc's float arithmetic: contraction as --fmad says (on by
    default), and the CPU's FMA instruction where it has one."""
    fmad = "true"
    for opt in options or []:
        m = _FMAD.match(opt)
        if m:
            fmad = m.group(1)
    flags = ["-ffp-contract=fast" if fmad == "true" else "-ffp-contract=off"]
    if fmad == "true":
        flags.append(FUSE_CHAINS)
    if cpu_has_fma() and platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-mfma")
    return flags


def is_fmad_option(opt):
    return bool(_FMAD.match(opt))
