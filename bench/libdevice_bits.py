"""The simulator's libdevice functions against CUDA's own code, on every float.

    python bench/libdevice_bits.py [--step 1] [--chunk 16777216]

A GPU's sinf, cosf, sincosf, logf, log2f and log10f are libdevice's (``nvvm/libdevice/
libdevice.10.bc`` of the CUDA toolkit: ``__nv_sinf`` and friends, software, the same bits on
every GPU). This script takes them from the toolkit's bitcode (``llvm-extract``, ``llvm-dis``),
spells PTX's intrinsics as LLVM's generic ones (a fused multiply-add, a multiply, cvt.rni's
saturating conversion, the 64-bit multiply-add that two PTX instructions make), compiles them for
this CPU with ``llc`` and runs them beside the simulator's (``helpers/sim/include/sim_trig.h`` and
``sim_log.h``, through a kernel) on every ``--step``-th 32-bit pattern, as many as ``--chunk`` at
a time. It prints how many results of each function have the same bits (NaN: both NaN, the
payload being this CPU's), the first differences, and exits 1 on any. The reference itself gave
an H200's bits on ``bench/float_identity.py``'s iterate_sin (2026-12-03). Needs the CUDA toolkit
(nvcc on PATH or CUDA_HOME), LLVM's tools and a C compiler.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: bench, helpers

# The functions of one float, each with what the kernel and the reference loop write (out: the
# element's row, x: the argument); their libdevice names are __nv_ and the first word.
FUNCTIONS = {"sinf": "o[0] = sinf(x);", "cosf": "o[1] = cosf(x);",
             "sincosf": "sincosf(x, &o[2], &o[3]);", "logf": "o[4] = logf(x);",
             "log2f": "o[5] = log2f(x);", "log10f": "o[6] = log10f(x);"}
COLUMNS = ("sinf", "cosf", "sincosf's sine", "sincosf's cosine", "logf", "log2f", "log10f")
WIDTH = len(COLUMNS)
TOOLS = ("llvm-extract", "llvm-dis", "llc", "cc")
BODY = "\n        ".join(FUNCTIONS.values())
KERNEL = rf"""
__global__ void libdevice_bits(unsigned int first, unsigned int step, float *out, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        float x = __uint_as_float(first + (unsigned int)i * step), *o = out + {WIDTH} * (size_t)i;
        {BODY}
    }}
}}
"""
LOOP = rf"""
#include <stdint.h>
#include <string.h>
{"".join(f"float ref_{name}(float);" for name in FUNCTIONS if name != "sincosf")}
void ref_sincosf(float, float *, float *);
#define sinf ref_sinf
#define cosf ref_cosf
#define sincosf ref_sincosf
#define logf ref_logf
#define log2f ref_log2f
#define log10f ref_log10f
void ref_libdevice_bits(uint32_t first, uint32_t step, float *out, int n) {{
    for (int i = 0; i < n; i++) {{
        uint32_t bits = first + (uint32_t)i * step;
        float x, *o = out + {WIDTH} * (size_t)i;
        memcpy(&x, &bits, 4);
        {BODY}
    }}
}}
"""
# What PTX's intrinsics do, in LLVM's generic IR (the ftz forms are never taken: nvcc's default
# is no -ftz, which __nvvm_reflect("__CUDA_FTZ") answers with 0 here)
HELPERS = """
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.rint.f32(float)
declare i32 @llvm.fptosi.sat.i32.f32(float)
define internal float @ref_mul(float %a, float %b) {
  %r = fmul float %a, %b
  ret float %r
}
define internal i32 @ref_f2i_rn(float %a) {
  %r = call float @llvm.rint.f32(float %a)
  %i = call i32 @llvm.fptosi.sat.i32.f32(float %r)
  ret i32 %i
}
define internal { i32, i32 } @ref_madcc(i32 %a, i32 %b, i32 %c) {
  %a64 = zext i32 %a to i64
  %b64 = zext i32 %b to i64
  %c64 = zext i32 %c to i64
  %p = mul i64 %a64, %b64
  %s = add i64 %p, %c64
  %lo = trunc i64 %s to i32
  %s32 = lshr i64 %s, 32
  %hi = trunc i64 %s32 to i32
  %r0 = insertvalue { i32, i32 } undef, i32 %lo, 0
  %r1 = insertvalue { i32, i32 } %r0, i32 %hi, 1
  ret { i32, i32 } %r1
}
"""
RENAMES = {"@llvm.nvvm.fma.rn.ftz.f(": "@llvm.fma.f32(", "@llvm.nvvm.fma.rn.f(": "@llvm.fma.f32(",
           "@llvm.nvvm.fabs.ftz.f(": "@llvm.fabs.f32(", "@llvm.nvvm.fabs.f(": "@llvm.fabs.f32(",
           "@llvm.nvvm.mul.rn.ftz.f(": "@ref_mul(", "@llvm.nvvm.mul.rn.f(": "@ref_mul(",
           "@llvm.nvvm.f2i.rn.ftz(": "@ref_f2i_rn(", "@llvm.nvvm.f2i.rn(": "@ref_f2i_rn(",
           **{f"@__nv_{name}(": f"@ref_{name}(" for name in FUNCTIONS},
           " addrspace(1)": "", " alwaysinline": ""}
MADCC = re.compile(r'call \{ i32, i32 \} asm "\{\\0A\\09mad\.lo\.cc\.u32[^"]*", "=r,=r,r,r,r"'
                   r'\((i32 %[\w.]+), (i32 %[\w.]+), (i32 %[\w.]+)\)[^\n]*')


def libdevice():
    """The toolkit's libdevice.10.bc, or None."""
    nvcc = shutil.which("nvcc")
    homes = [os.environ.get("CUDA_HOME", ""), str(Path(nvcc).resolve().parent.parent) if nvcc else "",
             "/usr/local/cuda"]
    found = [Path(h) / "nvvm/libdevice/libdevice.10.bc" for h in homes if h]
    return next((p for p in found if p.is_file()), None)


def missing():
    """What this machine lacks to build the reference (empty: nothing)."""
    return [t for t in TOOLS if not shutil.which(t)] + ([] if libdevice() else ["libdevice"])


def x86_ir(libdevice_ir, i2opi):
    """libdevice's functions as IR for this CPU."""
    lines = []
    for line in libdevice_ir.splitlines():
        if line.startswith(("target ", "source_filename", "declare", "@.str", "!nvvmir", "!1 =")):
            continue
        if line.startswith("@__cudart_i2opi_f"):
            line = f"@__cudart_i2opi_f = internal global [6 x i32] {i2opi}, align 4"
        line = re.sub(r"call i32 @__nvvm_reflect\(.*?\)\)( #\d+)?", "add i32 0, 0", line)
        line = MADCC.sub(r"call { i32, i32 } @ref_madcc(\1, \2, \3)", line)
        for old, new in RENAMES.items():
            line = line.replace(old, new)
        lines.append(line)
    text = "\n".join(lines)
    left = [line for line in lines if "asm " in line or "@llvm.nvvm" in line or "__nvvm" in line]
    if left:
        raise SystemExit(f"libdevice's code has a form this script does not translate: {left[0]}")
    return 'target triple = "x86_64-pc-linux-gnu"\n' + text + HELPERS


def build_reference(folder):
    """ctypes' handle on ref_libdevice_bits, built from the toolkit's libdevice in folder."""
    def run(*command):
        subprocess.run(command, check=True, capture_output=True, text=True, cwd=folder)

    run("llvm-extract", *(f"--func=__nv_{name}" for name in FUNCTIONS), str(libdevice()),
        "-o", "functions.bc")
    run("llvm-dis", "functions.bc", "-o", "functions.ll")
    run("llvm-extract", "--glob=__cudart_i2opi_f", str(libdevice()), "-o", "table.bc")
    run("llvm-dis", "table.bc", "-o", "table.ll")
    table = re.search(r"@__cudart_i2opi_f = .*?(\[i32 [^\]]*\])", (folder / "table.ll").read_text())
    (folder / "ref.ll").write_text(x86_ir((folder / "functions.ll").read_text(), table.group(1)))
    run("llc", "-O2", "-mattr=+fma", "--fp-contract=off", "-filetype=obj",
        "-relocation-model=pic", "ref.ll", "-o", "ref.o")
    (folder / "loop.c").write_text(LOOP)
    run("cc", "-O2", "-fPIC", "-shared", "loop.c", "ref.o", "-o", "libref.so")
    function = ctypes.CDLL(str(folder / "libref.so")).ref_libdevice_bits
    function.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_int]
    return function


def same_bits(a, b):
    """Per element: the same bits, or both NaN."""
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--step", type=int, default=1, help="test every step-th 32-bit pattern")
    p.add_argument("--chunk", type=int, default=1 << 24, help="patterns a launch")
    args = p.parse_args(argv)
    if missing():
        sys.exit(f"this needs {', '.join(missing())} (the CUDA toolkit, LLVM's tools, a C compiler)")
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule

    total = -(-(1 << 32) // args.step)
    kernel = SourceModule(KERNEL).get_function("libdevice_bits")
    with tempfile.TemporaryDirectory() as tmp:
        reference = build_reference(Path(tmp))
        equal, first_differences, start = np.zeros(WIDTH, np.int64), [], time.perf_counter()
        for done in range(0, total, args.chunk):
            n, first = min(args.chunk, total - done), (done * args.step) & 0xFFFFFFFF
            out = gpuarray.empty((n, WIDTH), np.float32)
            kernel(np.uint32(first), np.uint32(args.step), out, np.int32(n), block=(256, 1, 1),
                   grid=(-(-n // 256), 1))
            got, want = out.get(), np.empty((n, WIDTH), np.float32)
            reference(first, args.step, want.ctypes.data, n)
            same = same_bits(got, want)
            equal += same.sum(axis=0)
            for i, k in zip(*np.nonzero(~same)):
                if len(first_differences) < 10:
                    x = np.uint32(first + i * args.step).view(np.float32)
                    first_differences.append(f"{COLUMNS[k]}({x!r}): simulator {got[i, k]!r}, "
                                             f"libdevice {want[i, k]!r}")
    print(f"{total:,} float patterns (every {args.step}), {time.perf_counter() - start:.0f} s:")
    for name, count in zip(COLUMNS, equal):
        print(f"  {name:<18} {count:,} of {total:,} with libdevice's bits")
    for line in first_differences:
        print("  differs:", line)
    return 0 if (equal == total).all() else 1


if __name__ == "__main__":
    sys.exit(main())
