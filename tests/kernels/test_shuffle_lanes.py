"""Warp shuffles given lanes and offsets out of range, against what an H100 gave.

PTX's shfl.sync reads only the low 5 bits of its lane or offset and keeps a source lane only
within the bound the width sets; otherwise the lane reads its own value. So __shfl_down_sync with
an offset of 33 shuffles by 1, and an xor may reach across a segment of width 16. The kernel below
ran on an H100 (tests/kernels/data/shuffle_lanes_h100.json) for each offset or lane and width;
on the simulator each of the 7,680 values must be the GPU's, and on a GPU the GPU's own again.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from helpers.backend import SourceModule, drv

KERNEL = r"""
extern "C" __global__ void shfl(int *out, int arg, int width) {
    int lane = threadIdx.x, v = 100 + lane;
    out[lane] = __shfl_down_sync(0xffffffff, v, arg + lane, width);
    out[32 + lane] = __shfl_up_sync(0xffffffff, v, arg + lane, width);
    out[64 + lane] = __shfl_xor_sync(0xffffffff, v, arg + lane, width);
    out[96 + lane] = __shfl_sync(0xffffffff, v, arg + lane, width);
    out[128 + lane] = __shfl_down_sync(0xffffffff, v, arg, width);
    out[160 + lane] = __shfl_up_sync(0xffffffff, v, arg, width);
    out[192 + lane] = __shfl_xor_sync(0xffffffff, v, arg, width);
    out[224 + lane] = __shfl_sync(0xffffffff, v, arg, width);
}"""
STORED = json.loads((Path(__file__).parent / "data" / "shuffle_lanes_h100.json").read_text())["lanes"]
NAMES = ["down by arg + lane", "up by arg + lane", "xor with arg + lane", "lane arg + lane",
         "down by arg", "up by arg", "xor with arg", "lane arg"]


@pytest.fixture(scope="module")
def shuffle():
    return SourceModule(KERNEL, no_extern_c=True).get_function("shfl")


@pytest.mark.parametrize("case", list(STORED))
def test_each_lane_reads_the_lane_the_gpu_read(case, shuffle):
    arg, width = map(int, case.split(","))
    out = np.zeros(256, np.int32)
    shuffle(drv.Out(out), np.int32(arg), np.int32(width), block=(32, 1, 1))
    got, want = (out - 100).reshape(8, 32), np.array(STORED[case]).reshape(8, 32)
    wrong = [f"{NAMES[k]}: lanes {got[k].tolist()}, the GPU's {want[k].tolist()}"
             for k in range(8) if (got[k] != want[k]).any()]
    assert not wrong, f"arg {arg}, width {width}: " + "; ".join(wrong)
