"""The back-projection exercise's right kernels written otherwise, for
tests/exercises/test_backproject_range.py: the solution (KERNEL) and RIGHT (name -> the
replacements in the solution), each of which must pass."""

from kernel_sources import solution

KERNEL = solution("backproject_range.cu")

# Right, written otherwise: each must pass.
RIGHT = {
    # a grid-stride loop over both sides, and a select for the NaN instead of a return
    "grid_stride_loops": [(KERNEL[KERNEL.index("    int u ="):], """    int n = width * height;
    for (int v = blockIdx.y * blockDim.y + threadIdx.y; v < height; v += blockDim.y * gridDim.y)
        for (int u = blockIdx.x * blockDim.x + threadIdx.x; u < width; u += blockDim.x * gridDim.x) {
            int i = v * width + u;
            float z = depth[i] * depth_scale;
            bool point = depth[i] != 0 && z >= z_min && z <= z_max;
            xyz[i] = point ? (u - cx) * z / fx : nanf("");
            xyz[n + i] = point ? (v - cy) * z / fy : nanf("");
            xyz[2 * n + i] = point ? z : nanf("");
        }
}
""")],
    "nan_from_a_division": [('nanf("")', "0.0f / 0.0f")],
}
