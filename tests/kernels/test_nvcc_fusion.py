"""Which product of a sum of two nvcc fuses into the add, where the CUDA toolkit is installed.

In ``p + q``, both products, nvcc's PTX rounds one product and fuses the other (``fma.rn.f32``).
It fuses the product whose operands were all read earliest: the one whose last-read operand came
first in the source's order of evaluation (a value read twice counting where it was first read,
a constant before everything); on a tie, the one written first. (LLVM's Reassociate pass ranks
each load by its place in the block and a product one above its higher operand, and puts the
lower rank on the left of a commutative add; the back end fuses the left product.) g++, which
the simulator compiles with, fuses the first product as written, so the two differ where the
products are not written in the order their operands are read: in ``bench/float_kernels.cu``'s
dot3 (``bench/float_identity.py``'s two_products case).
"""

import re
import subprocess

import numpy as np
import pytest

from kernel_sources import ARCH, find_nvcc

SUMS = [  # (the sum, the product nvcc fuses)
    ("a*b + c*d", "a*b"), ("c*d + a*b", "a*b"),            # written first or second
    ("a*d + b*c", "b*c"), ("b*c + a*d", "b*c"),            # d, read last, ranks a*d higher
    ("a*c + b*b", "b*b"), ("b*b + a*c", "b*b"),
    ("0.299f*a + 0.587f*b", "0.299f*a"), ("0.587f*b + 0.299f*a", "0.299f*a"),
    ("a*1.3f + b*c", "a*1.3f"), ("b*c + a*1.3f", "a*1.3f"),
    ("a*b + b*1.3f", "a*b"), ("b*1.3f + a*b", "b*1.3f"),  # a tie (b last in both): as written
]


def _used(expression):
    """The variables the sum reads, in the order the kernel loads them."""
    return sorted(set(re.findall(r"\b[a-d]\b", expression)))


def _kernel(k, expression):
    used = _used(expression)
    loads = " ".join(f"float {v} = {v}_in[i];" for v in used)
    params = ", ".join(f"const float *{v}_in" for v in used)
    return (f'extern "C" __global__ void k{k}({params}, float *out) {{ int i = threadIdx.x; '
            f"{loads} out[i] = {expression}; }}")


def _fused_operands(ptx, k, expression):
    """The operands of kernel k's fma, as the sum's variable names and float constants."""
    body = ptx.split(f".entry k{k}(")[1].split("ret;")[0]
    used = _used(expression)
    loaded = re.findall(r"ld\.global(?:\.nc)?\.f32\s+(%f\d+)", body)
    names = dict(zip(loaded, used))
    (fma,) = re.findall(r"fma\.rn\.f32\s+%f\d+, (\S+), (\S+),", body)
    return sorted(names.get(op, op) for op in fma)


def _operands(product):
    """'0.299f*a' -> ['0f3E991687', 'a']: PTX writes a float constant as its bits."""
    out = []
    for op in product.split("*"):
        bits = np.float32(float(op.rstrip("f"))).view(np.uint32) if op[0].isdigit() else None
        out.append(f"0f{int(bits):08X}" if bits is not None else op)
    return sorted(out)


def test_nvcc_fuses_the_product_whose_operands_were_read_first():
    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    source = "\n".join(_kernel(k, s) for k, (s, _) in enumerate(SUMS))
    ptx = subprocess.run([nvcc, f"-arch={ARCH}", "-ptx", "-x", "cu", "-o", "-", "-"],
                         input=source, capture_output=True, text=True, timeout=300)
    assert ptx.returncode == 0, ptx.stderr
    for k, (expression, fused) in enumerate(SUMS):
        assert _fused_operands(ptx.stdout, k, expression) == _operands(fused), expression
