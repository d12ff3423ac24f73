"""What the GPU compiler decides about a kernel's resources, asked without a GPU.

How many registers a thread of a kernel uses, how much it spills to local memory and how much
static shared memory a block takes are decided by ptxas, the part of nvcc that turns PTX into
one GPU architecture's machine code. PyCUDA reads them from the loaded module
(``Function.num_regs``, ``local_size_bytes``, ``shared_size_bytes``); the CPU simulator compiles
for the CPU and has none of them. nvcc can still tell, with no GPU present, when the CUDA toolkit
is installed::

    from helpers import ptxas
    text = ptxas.verbose("matmul.cu", ["-DMIN_BLOCKS=1"])   # nvcc -Xptxas -v's own lines
    ptxas.resources(text)["matmul_register_tiled"].registers
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from helpers import course


@dataclasses.dataclass(frozen=True)
class Resources:
    registers: int
    spill_stores: int       # bytes a thread stores to local memory for want of registers
    spill_loads: int
    shared_bytes: int       # static __shared__ arrays of a block


def available() -> bool:
    """True when nvcc is on the PATH."""
    return shutil.which("nvcc") is not None


def verbose(name: str, options=(), arch: str = "sm_90") -> str:
    """``nvcc -cubin -arch=<arch> -Xptxas -v`` on cuda_src/<name>: ptxas's report (its stderr).
    Raises FileNotFoundError naming what to install when nvcc is missing."""
    if not available():
        raise FileNotFoundError("nvcc is not installed (it comes with NVIDIA's CUDA toolkit), so "
                                "the GPU compiler cannot be asked for registers here")
    with tempfile.TemporaryDirectory(prefix="ptxas-") as tmp:
        proc = subprocess.run(["nvcc", "-cubin", f"-arch={arch}", "-Xptxas", "-v", *options,
                               "-o", str(Path(tmp) / "out.cubin"), str(course.cuda_src() / name)],
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed on {name}:\n{proc.stderr}")
    return proc.stderr


def kernel_name(symbol: str) -> str:
    """A kernel's name from its mangled symbol: _Z12matmul_tiledPKfS0_Pfiii -> matmul_tiled."""
    match = re.match(r"_Z(\d+)(\w+)", symbol)
    return match.group(2)[:int(match.group(1))] if match else symbol


def resources(text: str) -> dict[str, Resources]:
    """{kernel: Resources} from ptxas's ``-v`` report ``text``."""
    found, kernel, spills = {}, None, (0, 0)
    for line in text.splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            kernel, spills = kernel_name(m.group(1)), (0, 0)
        elif m := re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line):
            spills = int(m.group(1)), int(m.group(2))
        elif (m := re.search(r"Used (\d+) registers", line)) and kernel:
            smem = re.search(r"(\d+) bytes smem", line)
            found[kernel] = Resources(int(m.group(1)), *spills, int(smem.group(1)) if smem else 0)
    return found
