"""The wmma_gemm checker (helpers.exercises.wmma_gemm) of notebook 13: the solution and two
unusual right kernels pass, the stub fails, and each fragment loaded from the wrong place, with
the wrong leading dimension or layout, fails named as such. The variants are compiled as one
module (no_extern_c: mma.h is C++), and, on PyCUDA, once more on the simulator, where the checker
launches a kernel with K = 0."""

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant

from helpers.backend import BACKEND
from helpers.exercises import wmma_gemm as checker

KERNEL = solution("wmma_gemm.cu")
LOAD_A = "wmma::load_matrix_sync(a, A + tile_row * 16 * K + k, K);"
LOAD_B = "wmma::load_matrix_sync(b, B + tile_col * 16 * K + k, K);"
B_COL = "half, wmma::col_major> b;"
RIGHT = {
    # one thread a tile's bookkeeping: pointers advanced along K instead of offsets
    "moving_pointers": variant(KERNEL, (
        "    for (int k = 0; k < K; k += 16) {\n        " + LOAD_A + "\n        " + LOAD_B,
        "    const half *a_at = A + tile_row * 16 * K, *b_at = B + tile_col * 16 * K;\n"
        "    for (int k = 0; k < K; k += 16, a_at += 16, b_at += 16) {\n"
        "        wmma::load_matrix_sync(a, a_at, K);\n        wmma::load_matrix_sync(b, b_at, K);")),
    # C^T = B^T A^T: C's tile computed transposed and stored by columns
    "transposed": variant(
        KERNEL,
        ("wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;",
         "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> bt;"),
        ("wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;",
         "wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> at;"),
        (LOAD_A, "wmma::load_matrix_sync(bt, B + tile_col * 16 * K + k, K);"),
        (LOAD_B, "wmma::load_matrix_sync(at, A + tile_row * 16 * K + k, K);"),
        ("wmma::mma_sync(c, a, b, c);", "wmma::mma_sync(c, bt, at, c);"),
        ("wmma::mem_row_major", "wmma::mem_col_major")),
}
# A tile's pointer at an odd element along K: the launch stops there, on a GPU and on the simulator
MISALIGNED = ["load_matrix_sync was given a tile that starts at element 1 along K, an odd element",
              "for (int k = 0; k < K; k += 16)"]
WRONG = [
    # blind audit TPB-wmma_gemm-1: the warp numbered by 16 threads (was 'load_matrix_sync ... was
    # given a pointer that differs between lanes (lane 0: B, lane 16: B + 1280) ... Hint: ...
    # every lane passes the same pointer', the / 16 not named)
    ("warp_of_16_threads", variant(KERNEL, ("threadIdx.x) / 32;", "threadIdx.x) / 16;")),
     ["the warp's number was counted in 16 threads, not 32: lanes 0 to 15 of warp 0 took number "
      "0 (tile (0, 0)) and lanes 16 to 31 number 1 (tile (0, 1)), so the warp's lanes passed "
      "load_matrix_sync two tiles (lane 0: B, lane 16: B + 1280)",
      "a warp is 32 threads: warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32"]),
    # blind audit AE (was 'the kernel crashed: ... a warp function whose mask names lanes that
    # never call it ... Hint: a warp function's mask ... let a lane with nothing to add bring 0'):
    # the warp's number taken with % 32, the lane, so lanes 6 to 31 return before the wmma calls
    ("warp_is_the_lane", variant(KERNEL, ("threadIdx.x) / 32;", "threadIdx.x) % 32;")),
     ["warp = (blockIdx.x * blockDim.x + threadIdx.x) % 32 is the thread's lane",
      "lanes 0 to 5 of each warp (tiles 0 to 5) went on to the wmma calls",
      "lanes 6 to 31, whose tile_row reached M / 16 = 3, had returned",
      "Hint: the warp's number is the thread's number in the grid divided by 32: warp = "
      "(blockIdx.x * blockDim.x + threadIdx.x) / 32"]),
    ("a_col_major", variant(KERNEL, ("half, wmma::row_major> a;", "half, wmma::col_major> a;")),
     ["A's fragment was declared col_major", "wmma::row_major"]),
    # blind audit TJB-wmma_gemm-1: C stored with leading dimension M (was 'elements past the end
    # of C were written ... Hint: a warp past the last tile must return', the guard being right)
    ("c_stored_with_ld_m", variant(KERNEL, ("c, N, wmma::mem_row_major", "c, M, wmma::mem_row_major")),
     ["C's tiles were stored with leading dimension M = 48, but a row of C holds N = 32 elements",
      "store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major)"]),
    # blind audit AM (was 'the kernel crashed: ... a write of C ..., 65 bytes past the end of its
    # 8192 bytes ... Hint: C's tile (tile_row, tile_col) starts at ...', K not named): C stored
    # with leading dimension K, whose rows land past C's end
    ("c_stored_with_ld_k", variant(KERNEL, ("c, N, wmma::mem_row_major", "c, K, wmma::mem_row_major")),
     ["C's tiles were stored with leading dimension K = 80, but a row of C holds N = 32 elements",
      "warp 4 (tile (2, 0)) wrote row 13 of its tile",
      "Hint: the leading dimension is a row of C, N elements: store_matrix_sync(C + tile_row * 16 "
      "* N + tile_col * 16, c, N, wmma::mem_row_major)"]),
    # blind audit TNB-wmma_gemm-1: C stored with leading dimension 16, the tile's width (was '720
    # elements of C were never written (the first is C[8][16]) ... Hint: C's tile (tile_row,
    # tile_col) starts at ..., and from one row to the next is N elements', the 16 not named;
    # was c_leading_dimension_16, with those words)
    ("c_stored_with_ld_16", variant(KERNEL, ("c, N, wmma::mem_row_major", "c, 16, wmma::mem_row_major")),
     ["C's tiles were stored with leading dimension 16, but a row of C holds N = 32 elements: "
      "store_matrix_sync's leading dimension is the number of elements from one row of C to the "
      "next, so each tile's 16 rows landed one after another, 256 elements in a row from its "
      "start (tile (0, 0): C[0][0] to C[7][31]), and 720 elements of C were never written (the "
      "first C[8][16])", "Hint: the leading dimension is a row of C, N elements, not the tile's "
      "16: store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major)"]),
    # blind audit TB-wmma_gemm-1: C's row of tiles without the factor 16 (was '960 elements of C
    # were never written (the first is C[18][0]) ... Hint: C's tile (tile_row, tile_col) starts at
    # C + tile_row * 16 * N + tile_col * 16, ...', the tile's start not named)
    ("c_rows_of_tiles_one_row_apart", variant(KERNEL, ("C + tile_row * 16 * N + tile_col * 16",
                                                       "C + tile_row * N + tile_col * 16")),
     ["C's rows of tiles were stored one row of C apart, from rows 0, 1 and 2, over one another, "
      "and C[18][0] to C[47][31] (960 elements) were never written: C + tile_row * N + tile_col * "
      "16 starts tile (tile_row, tile_col) at row tile_row", "Hint: a row of tiles is 16 rows of "
      "C, N elements each: store at C + tile_row * 16 * N + tile_col * 16"]),
    # blind audit TFB-wmma_gemm-1: C's column of tiles without the factor 16 (was '720 elements
    # of C were never written (the first is C[0][17]) ... Hint: C's tile (tile_row, tile_col)
    # starts at C + tile_row * 16 * N + tile_col * 16, ...', the missing 16 not named)
    ("c_tiles_one_column_apart", variant(KERNEL, ("C + tile_row * 16 * N + tile_col * 16",
                                                  "C + tile_row * 16 * N + tile_col")),
     ["C's tiles of a row were stored one column of C apart, from columns 0 and 1, over one "
      "another, and columns 17 to 31 of every row (720 elements, the first C[0][17]) were never "
      "written: C + tile_row * 16 * N + tile_col starts tile (tile_row, tile_col) at column "
      "tile_col, where its first column is tile_col * 16: tile_col is not scaled by 16",
      "Hint: a tile is 16 columns of C wide: store at C + tile_row * 16 * N + tile_col * 16"]),
    # blind audit TIB-wmma_gemm-1: the warp's parentheses dropped (was 'every block's four warps
    # took tiles 0 to 3: warp = threadIdx.x / 32 numbers a warp within its block', not the code)
    ("warp_without_parentheses", variant(KERNEL, ("int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;",
                                                  "int warp = blockIdx.x * blockDim.x + threadIdx.x / 32;")),
     ["warp = blockIdx.x * blockDim.x + threadIdx.x / 32 divides only threadIdx.x by 32",
      "block b's warps start at b * blockDim.x", "only block 0's warps stored",
      "Hint: write the parentheses: warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32"]),
    # blind audit AD (was '256 elements of C were never written (the first is C[32][16]) ...
    # Hint: C's tile (tile_row, tile_col) starts at C + ...', the store being right): the block's
    # index added to the warp's number, not its first warp's
    ("warp_plus_the_block_index", variant(KERNEL, ("int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;",
                                                   "int warp = blockIdx.x + threadIdx.x / 32;")),
     ["tile 5 of 6 (tile_row 2, tile_col 1, C[32][16] on) was never computed",
      "warp = blockIdx.x + threadIdx.x / 32 adds the block's index", "block 1's warps took the "
      "numbers 1 to 4", "Hint: a block holds blockDim.x / 32 = 4 warps",
      "warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32"]),
    ("c_stored_by_columns", variant(KERNEL, ("wmma::mem_row_major", "wmma::mem_col_major")),
     ["stored column after column", "mem_row_major"]),
    ("k_below_k_over_16", variant(KERNEL, ("k < K; k += 16", "k < K / 16; k += 16")),
     ["stopped at K / 16", "k < K"]),
    ("section_3_kernel", variant(KERNEL, (B_COL, "half, wmma::row_major> b;"),
                                 (LOAD_B, "wmma::load_matrix_sync(b, B + k * N + tile_col * 16, N);")),
     ["B was read as if it were stored row after row", "col_major"]),
    # audit B 27: section 3's addressing kept with the col_major fragment
    ("b_addressed_by_rows", variant(KERNEL, (LOAD_B, "wmma::load_matrix_sync(b, B + k * N + tile_col * 16, N);")),
     ["B + k * N + tile_col * 16, leading dimension N", "B + tile_col * 16 * K + k"]),
    ("b_row_major", variant(KERNEL, (B_COL, "half, wmma::row_major> b;")),
     ["B's fragment was declared row_major"]),
    ("a_leading_dimension_16", variant(KERNEL, (LOAD_A, LOAD_A.replace(", K);", ", 16);"))),
     ["A's fragments were loaded with leading dimension 16"]),
    ("a_leading_dimension_n", variant(KERNEL, (LOAD_A, LOAD_A.replace(", K);", ", N);"))),
     ["A's fragments were loaded with leading dimension N"]),
    # blind audit AH (was 'C is not A B (C[24][20] = 6.627, expected -7.393) ... Hint: check each
    # part in turn ...'): A's leading dimension given as M, the BLAS habit lda = A's rows
    ("a_leading_dimension_m", variant(KERNEL, (LOAD_A, LOAD_A.replace(", K);", ", M);"))),
     ["A's fragments were loaded with leading dimension M, A's number of rows", "a row of A "
      "holds K elements", "Hint: the leading dimension of row-major A is the length of its rows, "
      "K: load_matrix_sync(a, A + tile_row * 16 * K + k, K)"]),
    # blind audit AI (was 'the kernel crashed: ... a read of A ... 769 bytes past the end ... Hint:
    # each tile starts inside its matrix'): A's tile moved k rows down, (tile_row * 16 + k) * K
    ("a_tile_k_rows_down", variant(KERNEL, (LOAD_A, LOAD_A.replace("tile_row * 16 * K + k",
                                                                   "(tile_row * 16 + k) * K"))),
     ["A's tile for step k started at row tile_row * 16 + k", "moved the tile down k rows of A",
      "instead of k columns along them", "Hint: A's tile (tile_row, k / 16) starts at A + "
      "tile_row * 16 * K + k"]),
    # blind audit AJ (was 'C is not A B (C[14][22] = 8.579, expected -5.909) ... Hint: check each
    # part in turn ...'): B's leading dimension given as M, mixed up with the length of B's columns
    ("b_leading_dimension_m", variant(KERNEL, (LOAD_B, LOAD_B.replace(", K);", ", M);"))),
     ["B's fragments were loaded with leading dimension M, the number of rows of A and of C",
      "a column of B holds K elements", "Hint: the leading dimension of column-major B is the length of its columns, "
      "K: load_matrix_sync(b, B + tile_col * 16 * K + k, K)"]),
    ("b_leading_dimension_n", variant(KERNEL, (LOAD_B, LOAD_B.replace(", K);", ", N);"))),
     ["B's fragments were loaded with leading dimension N", "a column holds K elements"]),
    # blind audit O14 (was 'C is not A B (C[25][6] = 8.58, expected -5.779)' and the checklist)
    ("leading_dimensions_in_bytes", variant(KERNEL, (LOAD_A, LOAD_A.replace(", K);", ", K * sizeof(half));")),
                                            (LOAD_B, LOAD_B.replace(", K);", ", K * sizeof(half));"))),
     ["A's and B's fragments were loaded with leading dimension K * sizeof(half) = 2K",
      "counts elements, not bytes"]),
    ("b_leading_dimension_16", variant(KERNEL, (LOAD_B, LOAD_B.replace(", K);", ", 16);"))),
     ["B's fragments were loaded with leading dimension 16"]),
    ("reset_in_loop", variant(KERNEL, ("        wmma::mma_sync(c, a, b, c);",
                                       "        wmma::fill_fragment(c, 0.0f);\n        wmma::mma_sync(c, a, b, c);")),
     ["only the last step of 16 along K", "fill_fragment(c, 0.0f) once"]),
    # blind audit TEB-wmma_gemm-1: the k loop closed before mma_sync, which multiplies the last
    # step's tiles alone (was 'only the last step of 16 along K was kept: the accumulator is set
    # to 0 inside the loop ... Hint: call fill_fragment(c, 0.0f) once', a reset it does not have)
    ("mma_after_the_loop", variant(KERNEL, ("        wmma::mma_sync(c, a, b, c);\n    }\n",
                                            "    }\n    wmma::mma_sync(c, a, b, c);\n")),
     ["only the last step of 16 along K reached C: mma_sync ran once, after the loop over k",
      "with K = 0 (no step) C came out NaN", "Hint: call wmma::mma_sync(c, a, b, c) inside the "
      "loop over k, after both loads"]),
    ("no_return_past_the_last_tile", variant(KERNEL, ("    if (tile_row >= M / 16) return;      // a warp past the last tile\n", "")),
     ["elements past the end of C were written", "a warp past the last tile must return"]),
    # blind audit AK (was 'PASS: C = A B ...', the inputs' zero padding read): the return moved
    # from before the loads to just before the store, so the warps past the last tile load A's
    # rows M to M + 15, past A's end (the simulator's launch with A and B alone finds it)
    ("return_after_the_loop", variant(KERNEL, ("    if (tile_row >= M / 16) return;      // a warp past the last tile\n", ""),
                                      ("    wmma::store_matrix_sync(", "    if (tile_row >= M / 16) return;\n    wmma::store_matrix_sync(")),
     ["warp 6 (threads 64 to 95 of block 1) has no tile (tile_row = 3, M / 16 = 3)",
      "A's rows tile_row * 16 = 48 to 63, past A's 48", "Hint: return before the loop: if "
      "(tile_row >= M / 16) return;"]),
    # blind audit TGB-wmma_gemm-1: > where >= belongs (was 'elements past the end of C were
    # written ... Hint: a warp past the last tile must return', the return being there): the
    # warps whose tile_row is M / 16 store below C; told from no guard at all by a launch on the
    # simulator with two rows of tiles' warps more
    ("guard_lets_tile_row_m_over_16_on", variant(KERNEL, ("if (tile_row >= M / 16) return;",
                                                          "if (tile_row > M / 16) return;")),
     ["the warps whose tile_row is M / 16 = 3 went on and stored their tiles below C, in rows "
      "48 to 63: tile_row > M / 16 lets tile_row == M / 16 through",
      "Hint: the rows of tiles are 0 to M / 16 - 1: return where tile_row >= M / 16 (>=, not >)"]),
    # blind audit TXB-wmma_gemm-1: the guard compares tile_row with M, the rows of C (was
    # 'elements past the end of C were written ... Hint: a warp past the last tile must return',
    # the return being there): told from no guard at all by a launch on the simulator with M = 16
    ("guard_tile_row_against_m", variant(KERNEL, ("if (tile_row >= M / 16) return;",
                                                  "if (tile_row >= M) return;")),
     ["the warps whose tile_row is M / 16 = 3 went on and stored their tiles below C, in rows "
      "48 to 63: the guard compares tile_row, a row of tiles, with M = 48, the number of rows of C",
      "(a launch on the simulator with M = 16: the warps of tile_row 1 to 15 stored below C, "
      "those of tile_row 16 = M returned)",
      "Hint: C has M / 16 rows of tiles: if (tile_row >= M / 16) return;"]),
    # blind audit TDB-wmma_gemm-1: the guard compares the warp with the rows of tiles (was '768
    # elements of C were never written ...' and C's tile start as the hint, the start being right)
    ("guard_warp_against_m", variant(KERNEL, ("if (tile_row >= M / 16) return;",
                                              "if (warp >= M / 16) return;")),
     ["only the first 3 warps' tiles were written (warps 0 to 2", "the guard compares warp with "
      "M / 16", "Hint: a warp past the last tile is one whose tile_row is past the last row of "
      "tiles: if (tile_row >= M / 16) return;"]),
    # blind audit I31 (was '496 elements of C were never written ...', C's tile start hint)
    ("tiles_counted_from_k", variant(KERNEL, ("warp / (N / 16), tile_col = warp % (N / 16)",
                                              "warp / (K / 16), tile_col = warp % (K / 16)")),
     ["the warps' tiles were found from K / 16", "tile_row = warp / (N / 16)"]),
    # blind audit AB (was 'the warps' tiles were found from K / 16 ... Hint: warp w takes tile_row
    # = warp / (N / 16), ...', the tiles being right): tile_row and tile_col swapped in C's store
    ("c_tile_stored_swapped", variant(KERNEL, ("C + tile_row * 16 * N + tile_col * 16",
                                               "C + tile_col * 16 * N + tile_row * 16")),
     ["C's tile (tile_row, tile_col) was stored at C + tile_col * 16 * N + tile_row * 16, the "
      "place of tile (tile_col, tile_row) (tile (0, 1) landed at C[16][0], where tile (1, 0) "
      "belongs): tile_row and tile_col are swapped in store_matrix_sync's pointer",
      "Hint: store at C + tile_row * 16 * N + tile_col * 16"]),
    ("tiles_counted_from_m", variant(KERNEL, ("warp / (N / 16), tile_col = warp % (N / 16)",
                                              "warp / (M / 16), tile_col = warp % (M / 16)")),
     ["the warps' tiles were found from M / 16", "tile_row = warp / (N / 16)"]),
    # blind audit AM (was 'the warps' tiles were found from K / 16, ...', K not in the code): M
    # and N swapped in the warp's tile and in the guard
    ("tiles_counted_by_m_guard_n", variant(KERNEL, ("warp / (N / 16), tile_col = warp % (N / 16)",
                                                    "warp / (M / 16), tile_col = warp % (M / 16)"),
                                           ("tile_row >= M / 16", "tile_row >= N / 16")),
     ["M and N were swapped: tile_row = warp / (M / 16), tile_col = warp % (M / 16) and the "
      "guard tile_row >= N / 16", "N / 16 = 2 rows of M / 16 = 3 tiles",
      "C holds M / 16 = 3 rows of N / 16 = 2 tiles",
      "Hint: a row of C holds N / 16 tiles, and there are M / 16 rows of them: tile_row = warp / "
      "(N / 16), tile_col = warp % (N / 16), and return where tile_row >= M / 16"]),
    ("tiles_column_after_column", variant(KERNEL, ("warp / (N / 16), tile_col = warp % (N / 16)",
                                                   "warp % (M / 16), tile_col = warp / (M / 16)")),
     ["stored past C's last column of tiles", "tile_col = warp % (N / 16)"]),
    ("a_tile_at_row_tile_row", variant(KERNEL, (LOAD_A, LOAD_A.replace("tile_row * 16 * K", "tile_row * K"))),
     ["A's tile started at row tile_row", "A + tile_row * 16 * K + k"]),
    # blind audit TYB-wmma_gemm-1: B's tile column offset without the factor 16 (was 'columns 16
    # to 31 of C hold the right values of columns 1 to 16 ... Hint: compare each index ...:
    # printf, from one thread, the indices it computes', the missing 16 not named)
    ("b_tile_at_column_tile_col", variant(KERNEL, (LOAD_B, LOAD_B.replace("tile_col * 16 * K", "tile_col * K"))),
     ["B's tile started at column tile_col (B + tile_col * K + k), not at column tile_col * 16",
      "tile column 1 of C multiplied B's columns 1 to 16, where its own are 16 to 31",
      "Hint: B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"]),
    ("b_tile_found_by_rows", variant(KERNEL, (LOAD_B, LOAD_B.replace("tile_col * 16 * K + k", "tile_col * 16 + k * K"))),
     ["as if B were stored row after row", "B + tile_col * 16 * K + k"]),
    ("accumulator_never_set", variant(KERNEL, ("    wmma::fill_fragment(c, 0.0f);\n", "")),
     ["the accumulator started with what its registers held", "fill_fragment(c, 0.0f)"]),
    ("warp_within_its_block", variant(KERNEL, ("int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;",
                                               "int warp = threadIdx.x / 32;")),
     ["warp = threadIdx.x / 32", "warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32"]),
    # blind audit TOB-wmma_gemm-1: A's tile pointer with N, C's row length, where K belongs (was
    # 'only the first 16 rows of C are right ... check the indices of the loads that feed them')
    ("a_tile_n_apart", variant(KERNEL, ("A + tile_row * 16 * K + k", "A + tile_row * 16 * N + k")),
     ["A + tile_row * 16 * N + k", "a row of A holds K elements, not N", "K = 80",
      "A + tile_row * 16 * K + k"]),
    # blind audit AF (was 'only the first 16 rows of C are right ... check the indices of the
    # loads that feed them'): A's tile offset with M, C's row count, where K belongs
    ("a_tile_m_apart", variant(KERNEL, ("A + tile_row * 16 * K + k", "A + tile_row * 16 * M + k")),
     ["A + tile_row * 16 * M + k", "a row of A holds K elements, not M", "K = 80",
      "A + tile_row * 16 * K + k"]),
    ("b_tile_n_apart", variant(KERNEL, (LOAD_B, LOAD_B.replace("tile_col * 16 * K", "tile_col * 16 * N"))),
     ["B + tile_col * 16 * N + k", "B + tile_col * 16 * K + k"]),
    ("k_up_to_k", variant(KERNEL, ("k < K; k += 16", "k <= K; k += 16")),
     ["one step too many", "k < K"]),
    # blind audit W14: the last step left out (was the catch-all 'C is not A B' and its checklist)
    ("k_below_k_minus_16", variant(KERNEL, ("k < K; k += 16", "k < K - 16; k += 16")),
     ["the loop over K stopped a step short", "K - 16 to K - 1", "for (int k = 0; k < K; k += 16)"]),
    # blind audit AC (was 'C is not A B (C[32][6] = 1.705, expected -6.067)' and the checklist):
    # the loop over k bounded by N, C's width, where K belongs
    ("k_below_n", variant(KERNEL, ("k < K; k += 16", "k < N; k += 16")),
     ["the loop over k stopped at N, C's column count, not K", "for (int k = 0; k < K; k += 16)"]),
    # blind audit TWB-wmma_gemm-1: the loop over k started at 16, the first step left out (was
    # 'C is not A B (C[17][28] = 1.937, expected -2.794) ... Hint: check each part in turn ...')
    ("k_from_16", variant(KERNEL, ("for (int k = 0; k < K; k += 16)", "for (int k = 16; k < K; k += 16)")),
     ["the loop over k started at k = 16, not 0", "A's columns and B's rows 0 to 15",
      "left out of every tile of C", "Hint: the first step starts at k = 0 and must run too: "
      "for (int k = 0; k < K; k += 16)"]),
    # blind audit AG (was 'C is not A B (C[47][15] = 1.278, expected -6.086)' and the
    # checklist): the loop over k steps by 32, a warp's threads, where a fragment covers 16 of K
    ("k_steps_by_32", variant(KERNEL, ("k < K; k += 16", "k < K; k += 32")),
     ["the loop over k steps by 32, not 16", "for (int k = 0; k < K; k += 16)"]),
    ("c_tile_rows_k_apart", variant(KERNEL, ("C + tile_row * 16 * N", "C + tile_row * 16 * K")),
     ["a write of C", "C + tile_row * 16 * N + tile_col * 16"]),
    # audit 2: three lookalikes that got the catch-all 'C is not A B' or 'never written'
    ("tile_col_without_parentheses", variant(KERNEL, ("tile_col = warp % (N / 16)", "tile_col = warp % N / 16")),
     ["tile_col = warp % N / 16 is (warp % N) / 16", "tile_col = warp % (N / 16)"]),
    ("a_tile_without_k", variant(KERNEL, (LOAD_A, LOAD_A.replace(" + k, K);", ", K);"))),
     ["A's tile never moved along K", "A + tile_row * 16 * K + k: add k"]),
    ("b_tile_without_tile_col", variant(KERNEL, (LOAD_B, LOAD_B.replace("tile_col * 16 * K + ", ""))),
     ["B's tile left out tile_col * 16 * K", "B + tile_col * 16 * K + k"]),
    # blind audit Y28: B's tile located with tile_row, A's line copied (was 'C is not A B (C[28][0]
    # = 6.691, expected -6.303)' and the checklist of every part); past B's columns its tiles
    # read the zeros after B
    ("b_tile_from_tile_row", variant(KERNEL, (LOAD_B, LOAD_B.replace("tile_col", "tile_row"))),
     ["B's tile was found from tile_row (B + tile_row * 16 * K + k)",
      "Hint: B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"]),
    ("a_tile_from_tile_col", variant(KERNEL, (LOAD_A, LOAD_A.replace("tile_row", "tile_col"))),
     ["A's tile was found from tile_col (A + tile_col * 16 * K + k)",
      "Hint: A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k"]),
    # audit 3: k * 16 in both tiles' offsets (k already counts elements)
    ("offsets_k_times_16", variant(KERNEL, (LOAD_A, LOAD_A.replace("K + k,", "K + k * 16,")),
                                   (LOAD_B, LOAD_B.replace("K + k,", "K + k * 16,"))),
     ["A's and B's tiles' offset along K was k * 16", "B + tile_col * 16 * K + k"]),
    # blind audit F40, F41 (were 'C is not A B' and the checklist), F42 (was 'elements past the
    # end of C were written ... a warp past the last tile must return'); tile_row from M alone
    ("a_tile_found_by_columns", variant(KERNEL, (LOAD_A, LOAD_A.replace("tile_row * 16 * K + k", "k * K + tile_row * 16"))),
     ["as if A were stored column after column", "A + tile_row * 16 * K + k"]),
    ("c_tiles_256_apart", variant(KERNEL, ("C + tile_row * 16 * N + tile_col * 16, c, N,", "C + warp * 256, c, 16,")),
     ["C + warp * 256, leading dimension 16", "a tile's rows lie N apart"]),
    # blind audit QQ Q28: tile_col modulo a tile's 16 (was 'the kernel crashed: ... a read of B
    # ... Hint: each tile starts inside its matrix', B's tile start, which is right): named from
    # the crash's offset into B and its warp
    ("tile_col_modulo_16", variant(KERNEL, ("tile_col = warp % (N / 16)", "tile_col = warp % 16")),
     ["read B's column of tiles 5 = warp % 16, but B holds N / 16 = 2", "tile_col = warp % (N / 16)"]),
    ("tile_col_from_m", variant(KERNEL, ("tile_col = warp % (N / 16)", "tile_col = warp % (M / 16)")),
     ["tile_col = warp % (M / 16) counts", "tile_col = warp % (N / 16)"]),
    ("tile_row_from_m", variant(KERNEL, ("tile_row = warp / (N / 16)", "tile_row = warp / (M / 16)")),
     ["tile_row = warp / (M / 16) counts", "tile_row = warp / (N / 16)"]),
    # blind audit M14 (was 'A's and B's tiles' offset along K was k / 16, the tile's number ...
    # Hint: ... load A + tile_row * 16 * K + k and B + tile_col * 16 * K + k', the lines right)
    ("loop_counts_tiles", variant(KERNEL, ("k < K; k += 16", "k < K / 16; k++")), MISALIGNED),
    # blind audit H28 (was 'C is not A B' and the checklist): the tile's number as A's offset
    ("a_offset_k_over_16", variant(KERNEL, (LOAD_A, LOAD_A.replace("K + k,", "K + k / 16,"))),
     MISALIGNED),
    # blind audit S14 (was 'C is not A B (C[19][24] = -141.9, expected -8.885)' and the checklist)
    ("k_steps_by_1", variant(KERNEL, ("k < K; k += 16", "k < K; k++")), MISALIGNED),
]


# The simulator only: an accumulator never set holds what its registers held, which on a GPU may
# be the same in both launches (0, even); on the simulator a local never set holds 0xFE bytes.
MISALIGNED_ON_A_GPU = ("load_matrix_sync from an odd element of A: a GPU's \"misaligned address\", "
                       "an error with no fields to name the tile by, after which the process's "
                       "context is unusable")
SIMULATOR_ONLY = {"accumulator_never_set": "a GPU's registers may hold the same in both launches",
                  "c_tile_rows_k_apart": "stores past the end of C",
                  "c_stored_with_ld_k": "stores past the end of C",
                  "tile_col_modulo_16": "reads far past the end of B",
                  # the H100, 2026-12-07, once in a cold 16-worker run: another verdict
                  "tiles_column_after_column": "the warps past C's last column of tiles store "
                                               "over the tiles below: a race, whose C depends "
                                               "on which warp stored last",
                  "a_tile_k_rows_down": "reads past the end of A",
                  "k_steps_by_1": MISALIGNED_ON_A_GPU, "loop_counts_tiles": MISALIGNED_ON_A_GPU,
                  "a_offset_k_over_16": MISALIGNED_ON_A_GPU,
                  # C's tile at column tile_col: store_matrix_sync at a float not 32 bytes
                  # aligned (the H100, 2026-12-05: misaligned address, the context lost)
                  "c_tiles_one_column_apart": MISALIGNED_ON_A_GPU,
                  "warp_of_16_threads": "a warp's lanes pass load_matrix_sync two tiles: "
                                        "undefined on a GPU, whose C may come out anything",
                  "warp_is_the_lane": "lanes 6 to 31 return before the warp-wide wmma calls: "
                                      "undefined on a GPU"}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **RIGHT, **{name: source for name, source, _ in WRONG}}
    return compile_variant_pairs("wmma_gemm", sources, no_extern_c=True)


@pytest.mark.parametrize("name", ["solution", *RIGHT])
def test_right_kernels_pass(name, kernels, capsys):
    verdict = checker.check_wmma_gemm_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is True, out


def test_the_stub_as_shipped_is_not_yet(capsys):
    verdict = checker.check_wmma_gemm()
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:") and "C was never written" in out, out


@pytest.mark.parametrize("name, source, expected", WRONG, ids=[w[0] for w in WRONG])
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    if name in SIMULATOR_ONLY and BACKEND != "simulator":
        pytest.skip(SIMULATOR_ONLY[name])
    verdict = checker.check_wmma_gemm_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)
    assert out.count("NOT YET:") == 1, out
