"""helpers.sim.microscope.occupancy against the CUDA occupancy calculator.

A few answers worked out by hand always run. Where the CUDA toolkit is installed (CI has it), a
grid of block sizes, register counts and shared-memory sizes is also checked against NVIDIA's own
calculator, cudaOccMaxActiveBlocksPerMultiprocessor in the toolkit's header-only
cuda_occupancy.h, compiled here with the host compiler (no GPU needed).
"""

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.sim.microscope.occupancy import DEVICES, occupancy


@pytest.mark.parametrize("cc, threads, regs, smem, blocks, limited_by", [
    ("9.0", 256, 32, 0, 8, {"warps", "registers"}),          # a full H200 SM: 64 warps
    ("9.0", 256, 64, 0, 4, {"registers"}),                   # 2048 registers a warp: half
    ("9.0", 256, 32, 48 * 1024, 4, {"shared memory"}),       # 48 KiB + 1 KiB reserved a block
    ("9.0", 96, 40, 0, 16, {"registers"}),                   # 1280 registers a warp
    ("9.0", 32, 16, 0, 32, {"blocks"}),                      # at most 32 blocks an SM
    ("8.6", 256, 32, 0, 6, {"warps"}),                       # 48 warps an SM
    ("7.5", 256, 32, 0, 4, {"warps"}),                       # 32 warps an SM
    ("9.0", 1024, 128, 0, 0, {"registers"}),                 # 4096 x 32 warps: no block fits
])
def test_answers_worked_out_by_hand(cc, threads, regs, smem, blocks, limited_by):
    occ = occupancy(threads, regs, smem, cc=cc)
    assert occ.blocks_per_sm == blocks and set(occ.limited_by) == limited_by
    assert occ.occupancy == blocks * -(-threads // 32) / (DEVICES[cc].threads_per_sm // 32)
    assert f"occupancy {occ.occupancy:.0%}" in str(occ)


def test_an_unknown_compute_capability_is_named():
    with pytest.raises(ValueError, match="9.0"):
        occupancy(256, 32, cc="4.2")


HARNESS = r"""
#include <cstdio>
#include "cuda_occupancy.h"
int main() {
    int major, minor, threads_sm, blocks_dummy, threads, regs;
    size_t smem_sm, optin, reserved, smem;
    while (scanf("%d %d %d %zu %zu %zu %d %d %zu", &major, &minor, &threads_sm, &smem_sm, &optin,
                 &reserved, &threads, &regs, &smem) == 9) {
        cudaOccDeviceProp p;
        p.computeMajor = major; p.computeMinor = minor; p.maxThreadsPerBlock = 1024;
        p.maxThreadsPerMultiprocessor = threads_sm; p.regsPerBlock = 65536;
        p.regsPerMultiprocessor = 65536; p.warpSize = 32; p.sharedMemPerBlock = 49152;
        p.sharedMemPerMultiprocessor = smem_sm; p.numSms = 1; p.sharedMemPerBlockOptin = optin;
        p.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes a;
        a.maxThreadsPerBlock = 1024; a.numRegs = regs; a.sharedSizeBytes = smem;
        a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        a.maxDynamicSharedSizeBytes = optin; a.numBlockBarriers = 1;
        cudaOccDeviceState s;
        cudaOccResult r;
        if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, threads, 0) != CUDA_OCC_SUCCESS)
            r.activeBlocksPerMultiprocessor = -1;
        printf("%d\n", r.activeBlocksPerMultiprocessor);
    }
}
"""


def _cuda_include():
    for root in filter(None, [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]):
        if (Path(root) / "include" / "cuda_occupancy.h").exists():
            return Path(root) / "include"
    nvcc = shutil.which("nvcc")
    if nvcc:
        include = Path(nvcc).resolve().parent.parent / "include"
        if (include / "cuda_occupancy.h").exists():
            return include
    return None


def test_agrees_with_nvidias_calculator(tmp_path):
    include = _cuda_include()
    if include is None:
        if os.environ.get("CI"):
            pytest.fail("CI has the CUDA toolkit, but cuda_occupancy.h was not found")
        pytest.skip("the CUDA toolkit's cuda_occupancy.h is not installed")
    exe = tmp_path / "occ"
    (tmp_path / "occ.cpp").write_text(HARNESS)
    subprocess.run(["g++", "-O1", f"-I{include}", "-o", str(exe), str(tmp_path / "occ.cpp")],
                   check=True)
    cases = list(itertools.product(DEVICES, [32, 64, 96, 128, 192, 256, 384, 512, 768, 1024],
                                   [0, 16, 32, 40, 64, 96, 128, 168, 255],
                                   [0, 1000, 4096, 16384, 40000, 49152]))
    lines = []
    for cc, threads, regs, smem in cases:
        d = DEVICES[cc]
        major, minor = cc.split(".")
        lines.append(f"{major} {minor} {d.threads_per_sm} {d.shared_per_sm} "
                     f"{d.shared_per_block_optin} {d.reserved_shared_per_block} {threads} {regs} {smem}")
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.split()
    wrong = [(case, int(theirs), occupancy(case[1], case[2], case[3], cc=case[0]).blocks_per_sm)
             for case, theirs in zip(cases, out)
             if int(theirs) != occupancy(case[1], case[2], case[3], cc=case[0]).blocks_per_sm]
    assert len(out) == len(cases) and not wrong, wrong[:10]


def test_for_a_launch_the_shared_arrays_come_from_the_kernel():
    from helpers.sim.compiler import SourceModule
    from helpers.sim.microscope.occupancy import for_launch

    src = r"""
    __global__ void k(float *x) {
        __shared__ float s[4096];
        s[threadIdx.x] = x[threadIdx.x];
        __syncthreads();
        x[threadIdx.x] = s[4095 - threadIdx.x];
    }
    """
    fn = SourceModule(src).get_function("k")
    occ = for_launch(fn, (256, 1, 1), registers_per_thread=32, cc="9.0")
    assert occ.limits["shared memory"] == (228 * 1024) // (16 * 1024 + 1024)
    with pytest.raises(ValueError, match="registers_per_thread"):
        for_launch(fn, (256, 1, 1))


def test_the_simulator_says_why_it_has_no_register_count():
    """Registers are the GPU compiler's decision: the simulator raises (an AttributeError, so
    getattr(f, "num_regs", None) gives None) and says where the figure comes from, and
    for_launch asks for it."""
    from helpers.sim.compiler import SourceModule
    from helpers.sim.unsupported import NotProvided
    from helpers.sim.microscope.occupancy import for_launch

    f = SourceModule("__global__ void k(float *x) { __shared__ float s[64];\n"
                     "s[threadIdx.x] = x[threadIdx.x]; __syncthreads();\n"
                     "x[threadIdx.x] = s[63 - threadIdx.x]; }").get_function("k")
    for attribute in ("num_regs", "local_size_bytes"):
        with pytest.raises(NotProvided, match=rf"Function\.{attribute} .*GPU compiler's decision"
                                              r".*nvcc -Xptxas -v"):
            getattr(f, attribute)
    with pytest.raises(NotProvided, match=r"Function\.num_regs .*kernel 'k'"):
        f.get_attribute("NUM_REGS")
    assert getattr(f, "num_regs", None) is None
    assert f.shared_size_bytes == 256 and f.max_threads_per_block == 1024
    with pytest.raises(ValueError, match="registers_per_thread"):
        for_launch(f, (64, 1, 1))
    assert for_launch(f, (64, 1, 1), registers_per_thread=32).blocks_per_sm == 32
