"""sepia_guard.read_above_the_guard: a kernel's read above its bounds guard, found in its text
(shared by sepia, sepia_opencl, backproject_range, gray_coalesced and scale_slices)."""

from helpers.exercises.sepia_guard import read_above_the_guard

KERNEL = """
__global__ void scale_slices(const float *vol, const float *scale, float *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int z = blockIdx.z * blockDim.z + threadIdx.z;  // vol[z] in a comment is no read
    float s = READ;
    if (x >= nx ||  z >= nz)
        return;
    out[x] = vol[x] * s;
}
"""


def _above(read, arrays=("vol", "scale")):
    code = KERNEL.replace("READ", read)
    return code, read_above_the_guard(code, "scale_slices", ("nx", "ny", "nz"), arrays)


def test_a_read_above_the_guard_is_found_with_its_index_and_the_guards_test():
    code, above = _above("scale[z]")
    assert (above.array, above.index, above.test) == ("scale", "z", "x >= nx || z >= nz")
    assert code[above.read_at:].startswith("scale[z]") and code[above.guard_at:].startswith("if")


def test_a_clamped_read_is_safe_and_not_named():
    assert _above("scale[min(z, nz - 1)]")[1] is None
    assert _above("scale[z < nz ? z : 0]")[1] is None


def test_without_arrays_the_kernels_first_parameter_is_looked_for():
    assert _above("scale[z]", arrays=())[1] is None        # only vol, and vol is read below
    assert _above("vol[z]", arrays=())[1].array == "vol"


def test_a_read_whose_own_if_tests_its_index_is_safe_and_not_named():
    """blind audit AO: gray_coalesced's bytes staged in shared memory, each load under its own
    guard, if (base + k < total), above the pixel's bounds guard (was named a read past the
    end)."""
    assert _above("0.0f;\n    if (z + 1 < total) s = scale[z + 1]")[1] is None
    assert _above("0.0f;\n    if (z + 1 < total) { s = scale[z + 1]; }")[1] is None
    assert _above("0.0f;\n    if (x < total) s = scale[z + 1]")[1].index == "z + 1"
    assert _above("0.0f;\n    if (z < total) s = scale[z + 1]")[1].index == "z + 1"
