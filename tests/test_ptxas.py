"""helpers.ptxas: what the GPU compiler reports about a kernel's registers, spills and shared
memory, read without a GPU (notebook 08's occupancy section uses it on the simulator)."""

import os

import pytest

from helpers import ptxas

REPORT = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z12matmul_tiledPKfS0_Pfiii' for 'sm_90'
ptxas info    : Function properties for _Z12matmul_tiledPKfS0_Pfiii
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compiling entry function '_Z21matmul_register_tiledPKfS0_Pfiii' for 'sm_90'
ptxas info    : Function properties for _Z21matmul_register_tiledPKfS0_Pfiii
    240 bytes stack frame, 616 bytes spill stores, 608 bytes spill loads
ptxas info    : Used 80 registers, used 1 barriers, 240 bytes cumulative stack size, 8320 bytes smem
ptxas info    : Compiling entry function '_Z12matmul_naivePKfS0_Pfiii' for 'sm_90'
ptxas info    : Used 40 registers
"""


def test_the_report_is_read_kernel_by_kernel():
    found = ptxas.resources(REPORT)
    assert found == {"matmul_tiled": ptxas.Resources(32, 0, 0, 2048),
                     "matmul_register_tiled": ptxas.Resources(80, 616, 608, 8320),
                     "matmul_naive": ptxas.Resources(40, 0, 0, 0)}


def test_kernel_names_are_demangled():
    assert ptxas.kernel_name("_Z9transposePfS_ii") == "transpose"
    assert ptxas.kernel_name("plain_c_name") == "plain_c_name"


needs_nvcc = pytest.mark.skipif(not ptxas.available() and not os.environ.get("CI"),
                                reason="nvcc is not installed")


@needs_nvcc
def test_nvcc_reports_the_register_tiled_kernel():
    found = ptxas.resources(ptxas.verbose("matmul.cu"))
    tiled = found["matmul_register_tiled"]
    # __launch_bounds__(256, 2): at most 65536 / 512 = 128 registers, and it needs no spills.
    assert tiled.registers <= 128 and tiled.spill_stores == 0
    assert tiled.shared_bytes == 4 * 8 * (128 + 4) + 4 * 8 * 128
    assert found["matmul_tiled"].shared_bytes == 2 * 16 * 16 * 4
    capped = ptxas.resources(ptxas.verbose("matmul.cu", ["-DMIN_BLOCKS=4"]))
    assert capped["matmul_register_tiled"].registers <= 64


@needs_nvcc
def test_a_compile_error_is_raised_with_nvcc_s_message():
    with pytest.raises(RuntimeError, match="nvcc failed on matmul.cu"):
        ptxas.verbose("matmul.cu", ["-DAS_PAD=-1000"])
