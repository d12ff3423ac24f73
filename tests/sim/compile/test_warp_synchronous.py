"""compile/warp_synchronous.py: which sources get the warning that the simulator runs the
warp-synchronous idiom differently from a GPU (no compile needed)."""

from helpers.sim.compile.warp_synchronous import idiom_lines

IDIOM = """__global__ void r(float *out) {
    __shared__ float s[64];
    volatile float *v = s;  // the last warp, "in lockstep"
    v[threadIdx.x] += v[threadIdx.x + 16];
}
"""


def test_a_volatile_pointer_to_shared_memory_without_syncwarp_is_named_by_its_line():
    assert idiom_lines(IDIOM) == ["kernel.cu:3"]
    assert idiom_lines('#line 40 "cuda_src/r.cu"\n' + IDIOM) == ["cuda_src/r.cu:42"]
    assert idiom_lines(IDIOM.replace("volatile float *v", "float volatile v[2]; float *v")) == \
        ["kernel.cu:3"]


def test_sources_that_order_their_lanes_or_have_no_shared_array_are_left_alone():
    assert idiom_lines(IDIOM.replace("}\n", "__syncwarp();\n}\n", 1)) == []
    assert idiom_lines(IDIOM.replace("__shared__ float s[64];", "float s[64];")) == []
    # a volatile flag, set by one thread and awaited by another, is no warp-synchronous array;
    # a comment is no code
    spin = "__shared__ int s[4];\n__global__ void k(volatile int *flag) { while (flag[0] == 0) {} }\n"
    assert idiom_lines(spin) == []
    assert idiom_lines("__shared__ volatile int flag;\n// volatile int *p; p[0] += p[1];\n") == []
