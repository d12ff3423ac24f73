"""The block_mean exercise's variants for tests/exercises/test_block_mean.py: the solution, the
solution with each planted bug put back (BUG, WITH_BUGS) and the right kernels written another way
(RIGHT)."""

from kernel_sources import solution

SOLUTION = solution("block_mean.cu")
# The solution with each planted bug put back.
BUG = {
    1: ("    tile[t] = i < n ? x[i] : 0.0f;      // FIX 1: the threads past the end read "
        "nothing\n",
        "    tile[t] = x[i];\n"),
    2: ("    __syncthreads();                    // FIX 2: every tile[k] is stored before "
        "thread 0 reads it\n", ""),
    3: ("        float sum = 0.0f;               // FIX 3: the sum starts at 0, not at whatever "
        "means held\n        for (int k = 0; k < count; k++)\n"
        "            sum += tile[k];             // FIX 3\n"
        "        means[blockIdx.x] = sum / count;    // FIX 3\n",
        "        for (int k = 0; k < count; k++)\n            means[blockIdx.x] += tile[k];\n"
        "        means[blockIdx.x] /= count;\n"),
}
NAMES = {1: "bug 1 (the bounds guard)", 2: "bug 2 (the barrier)", 3: "bug 3 (the sum)"}
WITH_BUGS = {"bugs_" + "_".join(map(str, bugs)): bugs
             for bugs in [(1,), (2,), (3,), (1, 2), (1, 3), (2, 3), (1, 2, 3)]}
# Right, but not the solution's way: each must pass
RIGHT = {
    "a_tree_in_shared_memory": [(
        "    if (t == 0) {\n        float sum = 0.0f;               // FIX 3: the sum starts at 0, "
        "not at whatever means held\n        for (int k = 0; k < count; k++)\n"
        "            sum += tile[k];             // FIX 3\n"
        "        means[blockIdx.x] = sum / count;    // FIX 3\n    }\n",
        "    for (int s = BLOCK / 2; s > 0; s /= 2) {\n        if (t < s)\n"
        "            tile[t] += tile[t + s];\n        __syncthreads();\n    }\n"
        "    if (t == 0)\n        means[blockIdx.x] = tile[0] / count;\n")],
    # the load guarded with no else (the sum stops at count), or 0.0f stored past n (the sum
    # runs over the whole tile): either half of the blind audit AF mistake alone is right
    "load_guarded_sum_to_count": [(BUG[1][0], "    if (i < n)\n        tile[t] = x[i];\n")],
    "zeros_past_n_sum_over_the_tile": [("k < count;", "k < BLOCK;")],
    # FIX 1 by a return of the threads past n before the load and the barriers: a barrier waits
    # for every thread that has not returned (notebooks 06 and 09; PTX's exit releases a barrier
    # that only exited threads hold up). Blind audit AD had it named; blind audit AM found that
    # against the course's rule, as reverse_blocks' early_return is right
    "returns_before_the_barriers": [(BUG[1][0], "    if (i >= n)\n        return;\n"
                                                "    tile[t] = x[i];\n")],
}
