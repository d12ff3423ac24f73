"""The wmma_partial_k variants for tests/exercises/test_wmma_partial_k.py that load tiles straight
from A and B in global memory (name, the solution with the mistake in it, the words that the NOT
YET line must contain), as its WRONG list holds, and those of them that run on the simulator
alone (ON_THE_SIMULATOR)."""

from kernel_sources import solution, variant

KERNEL = solution("wmma_partial_k.cu")
LOOP = "    for (int k0 = 0; k0 < K; k0 += 16) {\n"

UNSTAGED = [
    # blind audit AW (was 'the kernel crashed: ... the leading dimension 70 is not a multiple of
    # 16 bytes ... Hint: stage only elements inside A and B: 0 where k0 + col (A) or k0 + r (B)
    # reaches K', the staging being right): the whole tiles loaded straight from A and B, with
    # leading dimensions K and N, only the last, partial one staged
    ("whole_tiles_loaded_from_global", variant(KERNEL, (LOOP, (
        "    int k0 = 0;\n"
        "    for (; k0 + 16 <= K; k0 += 16) {\n"
        "        wmma::load_matrix_sync(a, A + tile_row * 16 * K + k0, K);\n"
        "        wmma::load_matrix_sync(b, B + k0 * N + tile_col * 16, N);\n"
        "        wmma::mma_sync(c, a, b, c);\n"
        "    }\n"
        "    if (k0 < K) {\n"))),
     ["loads fragment a straight from A + tile_row * 16 * K + k0, in global memory, with "
      "leading dimension K = 70", "only in multiples of 8 halves (16 bytes), which K = 70 is not",
      "Hint: stage every tile in shared memory, the whole ones too"]),
]
ON_THE_SIMULATOR = {"whole_tiles_loaded_from_global"}
"""On a GPU a leading dimension of K = 70 halves is undefined: the simulator stops the launch."""
