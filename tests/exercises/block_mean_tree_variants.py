"""The block_mean exercise's variants (tests/exercises/block_mean_variants.py) that add the block's
sum by a tree in shared memory: TREE, the replacement that turns the solution's sum by thread 0
into a tree (right), and TREE_WRONG, trees wrong in another way: (replacements, words)."""

THREAD_0_S_SUM = (
    "    if (t == 0) {\n        float sum = 0.0f;               // FIX 3: the sum starts at 0, "
    "not at whatever means held\n        for (int k = 0; k < count; k++)\n"
    "            sum += tile[k];             // FIX 3\n"
    "        means[blockIdx.x] = sum / count;    // FIX 3\n    }\n")
TREE = (THREAD_0_S_SUM,
        "    for (int s = BLOCK / 2; s > 0; s /= 2) {\n        if (t < s)\n"
        "            tile[t] += tile[t + s];\n        __syncthreads();\n    }\n"
        "    if (t == 0)\n        means[blockIdx.x] = tile[0] / count;\n")
LAST_WARP_UNSYNCED = (THREAD_0_S_SUM,
                      "    for (int s = BLOCK / 2; s > 32; s /= 2) {\n        if (t < s)\n"
                      "            tile[t] += tile[t + s];\n        __syncthreads();\n    }\n"
                      "    if (t < 32) {\n        float *v = tile;\n"
                      + "".join(f"        v[t] += v[t + {s}];\n" for s in (32, 16, 8, 4, 2, 1))
                      + "        if (t == 0)\n            means[blockIdx.x] = v[0] / count;\n"
                      "    }\n")
TREE_WRONG = {
    # blind audit AO (was 'y is wrong: y[0] = -7.33..., NumPy's is 0.199... Hint: y[i] = x[i] -
    # means[blockIdx.x], after a barrier ...'): a tree for the sum, then y[i] from tile[t]
    "tree_then_y_from_the_tile": ([TREE, (
        "    if (t == 0)\n        means[blockIdx.x] = tile[0] / count;\n    __syncthreads();\n",
        "    float mean = tile[0] / count;\n    if (t == 0)\n        means[blockIdx.x] = mean;\n"),
        ("y[i] = x[i] - means[blockIdx.x];", "y[i] = tile[t] - mean;")],
        ["y[0] = -7.3", "y[i] = tile[t] - mean read the tile after the tree", "partial sums",
         "threads 128 to 255", "Hint: take y's element from x, not from the tile: y[i] = x[i] - "]),
    # blind audit AO (was 'means[3] = -0.167..., but the mean of that block is -0.299... Hint:
    # add up tile[0] to tile[count - 1] ...'): the tree started at count / 2, not BLOCK / 2
    "tree_from_count_half": ([TREE, ("s = BLOCK / 2", "s = count / 2")],
                             ["means[3] = ", "the tree started at s = count / 2 = 116",
                              "232 -> 116 -> 58 -> 29 -> 14", "tile[28]", "Hint: start the tree "
                              "at BLOCK / 2", "for (int s = BLOCK / 2; s > 0; s /= 2)"]),
    # blind audit AW (was 'still there: bug 2 (the barrier) ... Hint: ... a __syncthreads() must
    # come between the stores and thread 0's loop', a barrier the kernel has): the tree's last 6
    # steps in shared memory by the first warp with no barrier, "warp-synchronously"
    "last_warp_without_a_barrier": ([LAST_WARP_UNSYNCED],
                                    ["lanes of one warp", "are not kept in step (not since Volta)",
                                     "__shfl_down_sync(0xffffffff, v, offset)"]),
}
