"""The host's C++ compiler and CPU, as the simulator uses them.

Which compiler builds the modules (``$CXX``, else g++, c++, clang++), and which flags make its
floating-point arithmetic the GPU's. nvcc fuses ``a*b + c`` into one fused multiply-add (FMA,
rounded once) by default (``--fmad=true``), and a GPU has FMA in hardware. A C++ compiler with
``-std=c++17`` does neither: it rounds the product and the sum apart, so float results differ
from a GPU's in the last bits. With contraction on (``-ffp-contract=fast``) and the CPU's FMA
instruction (``-mfma`` on x86-64, where the CPU has it; every Arm64 CPU has it), the simulator
computes what the GPU computes: the course's float kernels give the same bits (measured by
``bench/float_identity.py`` against an H200). ``--fmad=false`` turns contraction off on both.
"""

import functools
import platform
import re
import shutil
import subprocess
import sys

from . import driver
from .settings import settings


@functools.lru_cache(maxsize=None)
def _find(cxx_setting):
    """The first of $CXX, g++, c++, clang++ on PATH (helpers/doctor.py checks the same order)."""
    for name in filter(None, [cxx_setting, "g++", "c++", "clang++"]):
        path = shutil.which(name)
        if path:
            out = subprocess.run([path, "--version"], capture_output=True, text=True)
            return path, out.stdout.splitlines()[0] if out.stdout else name
    return None


def find_compiler(required=True):
    """(path, version line) of the host C++ compiler; None when there is none and not required."""
    found = _find(settings.cxx)
    if found is None and required:
        raise driver.CompileError(
            "the CPU simulator needs a C++ compiler and none was found (tried $CXX, g++, c++, "
            "clang++). Install one: `sudo apt install g++` on Debian/Ubuntu, `xcode-select "
            "--install` on macOS, or `conda install -c conda-forge cxx-compiler`.", None)
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


def float_flags(options):
    """The compiler flags that give nvcc's float arithmetic: contraction as --fmad says (on by
    default), and the CPU's FMA instruction where it has one."""
    fmad = "true"
    for opt in options or []:
        m = _FMAD.match(opt)
        if m:
            fmad = m.group(1)
    flags = ["-ffp-contract=fast" if fmad == "true" else "-ffp-contract=off"]
    if cpu_has_fma() and platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-mfma")
    return flags


def is_fmad_option(opt):
    return bool(_FMAD.match(opt))
