"""The wmma_partial_k checker (helpers.exercises.wmma_partial_k) of notebook 13: the solution and
two unusual right kernels pass, the stub fails, and a tile loop that skips the last partial tile
along K, tiles filled from past K, or a step that stages before the warp has read, fail named as
such. The variants are compiled as one module (no_extern_c: mma.h is C++), and, on PyCUDA, once
more on the simulator, whose race check the checker uses."""

import pytest

from kernel_sources import assert_mistake_named, compile_variant_pairs, solution, variant
from wmma_partial_k_variants import ON_THE_SIMULATOR, UNSTAGED

from helpers.backend import BACKEND
from helpers.exercises import wmma_partial_k as checker

KERNEL = solution("wmma_partial_k.cu")
LOOP = "for (int k0 = 0; k0 < K; k0 += 16) {"
STAGE_A = "As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f);"
STAGE_B = "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f);"
RIGHT = {
    # the number of steps rounded up, written as a count
    "step_count": variant(KERNEL, (LOOP, "for (int step = 0, k0 = 0; step < (K + 15) / 16; step++, k0 += 16) {")),
    # each element set to 0 first, then to the matrix's where it lies inside K
    "zero_first": variant(KERNEL, (STAGE_A, "As[w][r][col] = __float2half(0.0f);\n"
                                            "            if (k0 + col < K) As[w][r][col] = A[(tile_row * 16 + r) * K + k0 + col];")),
    # blind audit AKC: block barriers, slower, reached by every warp that has not returned (06)
    "block_barriers": variant(KERNEL, ("__syncwarp();", "__syncthreads();")),
}
WRONG = [
    ("loop_skips_partial_tile", variant(KERNEL, (LOOP, "for (int k0 = 0; k0 + 16 <= K; k0 += 16) {")), ["the last, partial tile along K was skipped", "k0 < K"]),
    ("k_over_16_steps", variant(KERNEL, (LOOP, "for (int k0 = 0; k0 < K / 16 * 16; k0 += 16) {")), ["the last, partial tile along K was skipped"]),
    # blind audit TB-wmma_partial_k-1: B staged as if stored by columns, as in wmma_gemm (was
    # 'C is not A B (C[4][29] = 2.974, expected -6.8) ... Hint: stage A[...] where ... and B[...]
    # where ..., else 0', the catch-all)
    ("b_read_by_columns", variant(KERNEL, ("B[(k0 + r) * N + tile_col * 16 + col]",
                                           "B[(tile_col * 16 + col) * K + k0 + r]")),
     ["Bs took B[(tile_col * 16 + col) * K + k0 + r], B read as if it were stored column after "
      "column", "Bs[w][1][0] took B's element 1, B[0][1], where B[1][0], element N, belongs",
      "Hint: B is stored row after row, N elements a row"]),
    # blind audit TIB-wmma_partial_k-1: A's staging index without its parentheses (was 'only the
    # first 16 rows of C are right ... Hint: ... check the indices of the loads that feed them')
    # blind audit AI (was 'C is not A B (C[23][40] = 6.008, expected -5.251) ... Hint: stage
    # A[tile_row * 16 + r][k0 + col] ...'): A's staging index without r, every row the tile's first
    ("a_staging_without_r", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]",
                                             "A[tile_row * 16 * K + k0 + col]")),
     ["As took A[tile_row * 16 * K + k0 + col], with no r: all 16 rows of As held A's row "
      "tile_row * 16", "Hint: the row inside the tile is r: As[w][r][col] = k0 + col < K ? "
      "A[(tile_row * 16 + r) * K + k0 + col]"]),
    ("a_row_offset_added_to_the_column", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]",
                                                          "A[tile_row * 16 + r * K + k0 + col]")),
     ["As took A[tile_row * 16 + r * K + k0 + col]: without the parentheses only r is multiplied "
      "by K, so tile_row * 16 was added to the column",
      "Hint: write the parentheses: A[(tile_row * 16 + r) * K + k0 + col]"]),
    ("a_not_zero_filled", variant(KERNEL, (STAGE_A, "As[w][r][col] = A[(tile_row * 16 + r) * K + k0 + col];")),
     ["As took A's elements past K: nothing set them to 0 where their column k0 + col reaches K",
      "Hint: the guard must test the column k0 + col against K"]),
    # blind audit S15: A's zero guard tests the tile's row against M (was 'C holds NaN: a tile
    # took elements from past the end of A or B ...' and the staging recipe)
    ("a_guard_on_the_row_against_m", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "tile_row * 16 + r < M"))),
     ["As took A's elements past K", "each row of A's tile ran on into the next row of A, and "
      "A's last row past A's end", "Hint: the guard must test the column k0 + col against K: "
      "As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f)"]),
    # blind audit TMB-wmma_partial_k-1: the accumulator zeroed inside the loop (was 'C is not A B
    # (C[16][22] = 0.7246, expected 7.128) ... Hint: stage A[...] where ..., else 0', the staging)
    ("accumulator_zeroed_in_the_loop",
     variant(KERNEL, ("    wmma::fill_fragment(c, 0.0f);\n    " + LOOP + "\n",
                      "    " + LOOP + "\n        wmma::fill_fragment(c, 0.0f);\n")),
     ["C holds the last step's products alone, k = 32 to 39", "fill_fragment(c, 0.0f) inside the "
      "loop", "Hint: fill the accumulator with 0 once, before the loop"]),
    ("nothing_staged", variant(KERNEL, (STAGE_A, "As[w][r][col] = __float2half(0.0f);"),
                               (STAGE_B, "Bs[w][r][col] = __float2half(0.0f);")), ["C is all zeros"]),
    ("store_with_ld_16", variant(KERNEL, ("c, N, wmma::mem_row_major", "c, 16, wmma::mem_row_major")),
     ["stored with a leading dimension of 16", "store_matrix_sync(C + ..., c, N"]),
    # blind audit TJB-wmma_partial_k-1: C stored with leading dimension K (was '240 elements of C
    # were never written ... Hint: every warp with a tile stores it, after the loop')
    ("store_with_ld_k", variant(KERNEL, ("c, N, wmma::mem_row_major", "c, K, wmma::mem_row_major")),
     ["C's tiles were stored with leading dimension K = 40, but a row of C holds N = 48 elements",
      "store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major)"]),
    ("tile_start_without_n", variant(KERNEL, ("C + tile_row * 16 * N + tile_col", "C + tile_row * 16 + tile_col")),
     ["stored at the wrong place", "C + tile_row * 16 * N + tile_col * 16"]),
    ("tile_row_and_col_swapped", variant(KERNEL, ("int tile_row = warp / (N / 16), tile_col = warp % (N / 16);",
                                                  "int tile_row = warp % (N / 16), tile_col = warp / (N / 16);")),
     ["tile_row and tile_col are swapped", "tile_row = warp / (N / 16)"]),
    ("tiles_indexed_by_the_grids_warp", variant(KERNEL, ("As[w][r][col] =", "As[warp][r][col] ="),
                                                ("&As[w][0][0]", "&As[warp][0][0]")), ["w = threadIdx.x / 32"]),
    # blind audit W15: the staging loop split i by the warp's width; the hint blamed the warp index
    ("staging_split_by_32", variant(KERNEL, ("int r = i / 16, col = i % 16;", "int r = i / 32, col = i % 32;")),
     ["staged an element at column 17 of a tile's row, past its 16", "split i into rows of 32",
      "int r = i / 16, col = i % 16"]),
    ("shared_tile_loaded_with_ld_n", variant(KERNEL, ("load_matrix_sync(b, &Bs[w][0][0], 16)",
                                                      "load_matrix_sync(b, &Bs[w][0][0], N)")),
     ["another warp's tiles", "a leading dimension of 16"]),
    # blind audit AH (was '... a read of As[1032] ... (a guard like if (i < n) ...)'): As's tile loaded with ld K
    ("shared_tile_loaded_with_ld_k", variant(KERNEL, ("(a, &As[w][0][0], 16)", "(a, &As[w][0][0], K)")),
     ["with leading dimension K = 40: its rows were read 40 halves apart", "load_matrix_sync(a, &As[w][0][0], 16)"]),
    ("no_store", variant(KERNEL, ("    wmma::store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major);\n", "")),
     ["C was never written"]),
    # load_matrix_sync waits for the lanes but orders no memory (CUDA promises that of
    # __syncwarp() alone): the staged tiles loaded with no __syncwarp() after the staging
    ("loaded_before_the_warp_has_staged", variant(KERNEL, (
        "        __syncwarp();\n        wmma::load_matrix_sync(a,", "        wmma::load_matrix_sync(a,")),
     ["data race on", "read-after-write", "__syncwarp() between the staging loop and load_matrix_sync"]),
    ("next_step_stages_before_the_warp_has_read", variant(KERNEL, (
        "        __syncwarp();                    // the tiles are read before the next step overwrites them\n", "")),
     ["data race on", "__syncwarp() at the end of the loop's body"]),
    ("no_return_past_the_last_tile", variant(KERNEL, ("    if (tile_row >= M / 16) return;      // a warp past the last tile\n", "")),
     ["elements past the end of C were written", "a warp past the last tile must return"]),
    # blind audit AE (was 'elements past the end of C were written ... Hint: a warp past the last
    # tile must return', the return being there): M and N mixed up in the guard, tile_row >= N / 16
    ("guard_tile_row_against_n", variant(KERNEL, ("if (tile_row >= M / 16) return;",
                                                  "if (tile_row >= N / 16) return;")),
     ["the warps whose tile_row is M / 16 = 2 went on and stored their tiles below C, in rows 32 "
      "to 47: the guard compares tile_row with N / 16 = 3", "Hint: tile_row counts C's rows of "
      "tiles, of which there are M / 16: if (tile_row >= M / 16) return;"]),
    # blind audit Y30: the warps stage into warp 0's tiles and load their own (was 'C is wrong,
    # and ... a data race on As[0] ... Hint: a warp reached into another warp's tiles ...: load
    # them with a leading dimension of 16', a load that was right)
    ("staged_into_warp_0s_tiles", variant(KERNEL, ("As[w][r][col] = k0", "As[0][r][col] = k0"),
                                          ("Bs[w][r][col] = k0", "Bs[0][r][col] = k0")),
     ["warps 0 and 1 of a block both wrote As[0] in shared memory", "staged their tiles into one "
      "shared tile", "Hint: each warp stages into its own tiles, the ones it loads: As[w][r][col] "
      "and Bs[w][r][col], with w = threadIdx.x / 32"]),
    # blind audit Y29: A's zero guard stops one short (was 'C is not A B (C[8][28] = 1.14, ...)'
    # and the staging recipe)
    ("a_guard_one_short", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + col < K - 1"))),
     ["C lacks the products of k = K - 1 = 39 alone", "As's zero guard stops one short",
      "Hint: compare the element's k with K itself: As[w][r][col] = k0 + col < K ?"]),
    # blind audit TFB-wmma_partial_k-1: A's zero guard one too far, <= (was 'As took A's
    # elements past K: nothing set them to 0 where their column k0 + col reaches K, ...', though
    # a guard did; its C is no guard's, B's rows past K being 0: a launch with A's column 1 inf
    # tells them apart)
    ("a_guard_one_past", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + col <= K"))),
     ["As's zero guard k0 + col <= K lets the column k0 + col == K = 40 through",
      "<= is one too far", "Hint: stop before column K: As[w][r][col] = k0 + col < K ?"]),
    # blind audit TNB-wmma_partial_k-1: B's zero guard one too far, <= (was 'C holds NaN: a tile
    # took elements from past the end of A or B ..., or a tile in shared memory was loaded with a
    # leading dimension other than its 16 ...', every staging line as hint): B's row K, past B's
    # end, is NaN; a launch with a row of 0 after B gives A B
    ("b_guard_one_past", variant(KERNEL, (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + r <= K"))),
     ["Bs's zero guard k0 + r <= K lets the row k0 + r == K = 40 through: in the last, partial "
      "step Bs took B's row K, past the end of B (its rows are 0 to K - 1 = 39: NaN here, so C "
      "holds NaN; with a row of 0 put after B's end, C came out A B)", "<= is one too far",
      "Hint: stop before row K: Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + "
      "col] : __float2half(0.0f)"]),
    # blind audit AO: both zero guards one too far, <= (was 'C holds NaN: a tile took elements
    # from past the end of A or B ..., or a tile in shared memory was loaded with a leading
    # dimension other than its 16', hedged): a launch with a row of 0 after B leaves NaN in C's
    # last row alone, A's column K read past A's end
    ("guards_one_past", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + col <= K")),
                                (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + r <= K"))),
     ["the zero guards k0 + col <= K (As) and k0 + r <= K (Bs) let column K of A and row K of B "
      "through", "<= is one too far",
      "Hint: stop before K: As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] "
      ": __float2half(0.0f), and Bs[w][r][col] = k0 + r < K ?"]),
    # blind audit TYB-wmma_partial_k-1: B's zero guard dropped, A's zeros thought to cancel B's
    # rows past K (was 'C holds NaN: a tile took elements from past the end of A or B ..., or a
    # tile in shared memory was loaded with a leading dimension other than its 16', the guard not
    # named; was b_not_zero_filled, with those words): rows of 0 put after B's end give A B
    ("b_guard_dropped", variant(KERNEL, (STAGE_B, STAGE_B.replace(
        "k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f)",
        "B[(k0 + r) * N + tile_col * 16 + col]"))),
     ["Bs has no zero guard: in the last, partial step (k0 = 32) Bs took B's rows 40 to 47, past "
      "the end of B (its rows are 0 to K - 1 = 39: NaN here, so C holds NaN; with 8 rows of 0 "
      "put after B's end, C came out A B)", "A's zeros there do not cancel them: 0 times NaN "
      "(or inf) is NaN", "Hint: stage 0 where k0 + r reaches K: Bs[w][r][col] = k0 + r < K ? "
      "B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f)"]),
    # blind audit AB (was 'C holds NaN: a tile took elements from past the end of A or B ..., or a
    # tile in shared memory was loaded with a leading dimension other than its 16'): the zero
    # guards as a multiplication, A[...] * (k0 + col < K), which still reads past K, and NaN * 0
    # is NaN; with finite values after A and B, C comes out A B
    ("guards_multiplied_in", variant(
        KERNEL, (STAGE_A, "As[w][r][col] = A[(tile_row * 16 + r) * K + k0 + col] * __int2half_rn(k0 + col < K);"),
        (STAGE_B, "Bs[w][r][col] = B[(k0 + r) * N + tile_col * 16 + col] * __int2half_rn(k0 + r < K);")),
     ["with 1 put after A's and B's ends, C came out A B", "made 0 by a multiplication",
      "NaN * 0 is NaN, not 0", "Hint: read an element only where it is inside: As[w][r][col] = "
      "k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f)"]),
    ("b_guard_one_short", variant(KERNEL, (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + r < K - 1"))),
     ["C lacks the products of k = K - 1 = 39 alone", "Bs's zero guard stops one short",
      "Hint: compare the element's k with K itself: Bs[w][r][col] = k0 + r < K ?"]),
    ("both_guards_one_short", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + col < K - 1")),
                                      (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + r < K - 1"))),
     ["the zero guards of As and Bs stop one short", "As[w][r][col] = k0 + col < K ?",
      "and Bs[w][r][col] = k0 + r < K ?"]),
    # two lanes stage one element (a race, though of equal values): an index, not a barrier
    # blind audit AD (was 'the kernel crashed: ... indexed an array past the size it was
    # declared with (index 16) ... Hint: ... declare it as large as the largest index'): the
    # staging loop's bound one too many, i <= 256, so lane 0 stages i = 256, row 16 of a tile
    ("staging_loop_one_too_many", variant(KERNEL, ("i < 256; i += 32)", "i <= 256; i += 32)")),
     ["lane 0 staged i = 256: r = i / 16 = 16, a row past the tile's 16",
      "i <= 256 is one too many", "Hint: a tile has 256 elements, i = 0 to 255: "
      "for (int i = lane; i < 256; i += 32)"]),
    ("lanes_stage_with_a_step_of_31", variant(KERNEL, ("i < 256; i += 32)", "i < 256; i += 31)")),
     ["data race on As[", "two threads store into the same element"]),
    # blind audit AQ (was 'C holds NaN: a tile took elements from past the end of A or B ..., or
    # a tile in shared memory was loaded with a leading dimension other than its 16', every cause
    # of NaN listed): A's rows staged N apart, B's row length for A's
    ("a_row_length_n", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]", "A[(tile_row * 16 + r) * N + k0 + col]")),
     ["As took A's rows N = 48 elements apart, (tile_row * 16 + r) * N, the length of a row of B "
      "(and of C), but a row of A holds K = 40", "reached past A's end (NaN here",
      "Hint: a row of A holds K elements, not N: A[(tile_row * 16 + r) * K + k0 + col]"]),
    # blind audit AJ (was 'C is not A B (C[5][29] = -6.8, ...'): A's rows staged M apart, M for K
    ("a_row_length_m", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]", "A[(tile_row * 16 + r) * M + k0 + col]")),
     ["As took A's rows M = 32 elements apart, (tile_row * 16 + r) * M, A's number of rows, but a row of A holds K = 40",
      "Hint: a row of A holds K elements, not M: A[(tile_row * 16 + r) * K + k0 + col]"]),
    ("bs_zeroed_on_col", variant(KERNEL, (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + col < K"))),
     ["Bs was set to 0 where k0 + col reaches K", "where k0 + r < K"]),
    ("as_zeroed_on_r", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + r < K"))),
     ["As was set to 0 where k0 + r reaches K", "where k0 + col < K"]),
    ("b_row_length_k", variant(KERNEL, ("B[(k0 + r) * N + tile_col", "B[(k0 + r) * K + tile_col")),
     ["B's rows were read K elements apart", "B[(k0 + r) * N + tile_col * 16 + col]"]),
    ("b_columns_from_tile_row", variant(KERNEL, ("N + tile_col * 16 + col]", "N + tile_row * 16 + col]")),
     ["Bs took B's columns from tile_row", "B[(k0 + r) * N + tile_col * 16 + col]"]),
    # blind audit TOB-wmma_partial_k-1 (was "C holds NaN: a tile took elements from past the end
    # of A or B ..., or a tile in shared memory was loaded with a leading dimension other than its
    # 16 ..."): A's rows staged from tile_col where tile_row belongs
    ("a_rows_from_tile_col", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]",
                                              "A[(tile_col * 16 + r) * K + k0 + col]")),
     ["As took A's rows from tile_col, but the tile's rows of C, and of A, are tile_row's: tile "
      "(tile_row, tile_col) = (0, 1) staged A's rows 16 to 31, where its rows 0 to 15 belong", "A[(tile_row * 16 + r) * K + k0 + col]"]),
    # audit 2 (a near miss, helpers.exercises.near): A's rows staged without tile_row
    ("a_rows_without_tile_row", variant(KERNEL, (STAGE_A, STAGE_A.replace("(tile_row * 16 + r) * K", "r * K"))),
     ["the rows of C repeat the first 16: row r holds the right values of row r % 16"]),
    ("staging_from_thread_index", variant(KERNEL, ("for (int i = lane; i < 256;", "for (int i = threadIdx.x; i < 256;")),
     ["warp 1 read As[1][0][0] of its tile, which none of its lanes had staged",
      "i from lane = threadIdx.x % 32"]),
    # audit 3: the partial tile staged with an if and no else (the step before's elements stay);
    # A's rows 16 apart; B's columns from tile_col + col
    ("staged_with_an_if_and_no_else", variant(KERNEL, (
        STAGE_A, "if (k0 + col < K) As[w][r][col] = A[(tile_row * 16 + r) * K + k0 + col];"), (
        STAGE_B, "if (k0 + r < K) Bs[w][r][col] = B[(k0 + r) * N + tile_col * 16 + col];")),
     ["still held the step before's elements", "stage 0 past K"]),
    ("a_rows_16_apart", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]",
                                         "A[tile_row * 16 * K + r * 16 + k0 + col]")),
     ["As took A's rows 16 elements apart", "A[(tile_row * 16 + r) * K + k0 + col]"]),
    # blind audit TPB-wmma_partial_k-1: A's row length taken as the staged tile's 16 (was 'C is
    # not A B (C[16][24] = -6.721, expected 4.598)' and the staging rule, the 16 never named)
    ("a_row_length_16", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]",
                                         "A[(tile_row * 16 + r) * 16 + k0 + col]")),
     ["As took A's rows 16 elements apart, (tile_row * 16 + r) * 16, the staged tile's width, "
      "but a row of A holds K = 40 elements: row 1 of tile (0, 0) was staged from A's element 16, "
      "A[0][16], where A[1][0], element 40, belongs",
      "a row of A holds K elements, not the tile's 16: A[(tile_row * 16 + r) * K + k0 + col]"]),
    # blind audit TEB-wmma_partial_k-1: B staged without the tile's column offset (was 'the
    # columns of C repeat the first 16: column r holds the right values of column r % 16 ...'
    # and both staging rules as the hint, tile_col * 16 never named)
    ("b_columns_without_tile_col", variant(KERNEL, ("B[(k0 + r) * N + tile_col * 16 + col]", "B[(k0 + r) * N + col]")),
     ["Bs took B's columns col, without tile_col * 16: every tile column of C used B's first 16 "
      "columns", "B[k0 + r][tile_col * 16 + col] is at B[(k0 + r) * N + tile_col * 16 + col]"]),
    ("b_columns_from_tile_col_unscaled", variant(KERNEL, ("N + tile_col * 16 + col]", "N + tile_col + col]")),
     ["Bs took B's columns from tile_col + col", "B[(k0 + r) * N + tile_col * 16 + col]"]),
    # audit B (2026-12): the bound the count of steps, the step an offset (was 'C is not A B')
    ("bound_the_count_of_steps", variant(KERNEL, (LOOP, "for (int k0 = 0; k0 < (K + 15) / 16; k0 += 16) {")),
     ["the loop along K took 1 of its 3 steps", "with (K + 15) / 16 = 3, the number of steps", "loop while k0 < K"]),
    # blind audit F43, F45 (were 'C is not A B' and the staging hint)
    # blind audit QQ Q30: k0 taken as a tile index (was 'C holds NaN: a tile took elements from
    # past the end of A or B ..., or ...' with the whole staging as the hint); its reads stay
    # inside the NaN after A
    ("a_staged_at_k0_times_16", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]",
                                                 "A[(tile_row * 16 + r) * K + k0 * 16 + col]")),
     ["As took A's columns from k0 * 16 + col", "A[(tile_row * 16 + r) * K + k0 + col]"]),
    ("a_staged_without_k0", variant(KERNEL, ("A[(tile_row * 16 + r) * K + k0 + col]", "A[(tile_row * 16 + r) * K + col]")),
     ["As took A's columns col, without k0", "A[(tile_row * 16 + r) * K + k0 + col]"]),
    ("b_staged_transposed", variant(KERNEL, ("Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col]",
                                             "Bs[w][r][col] = k0 + col < K ? B[(k0 + col) * N + tile_col * 16 + r]")),
     ["Bs was staged transposed", "B[(k0 + r) * N + tile_col * 16 + col], where k0 + r < K"]),
    # blind audit TSB-wmma_partial_k-1: B's fragment declared col_major as in wmma_gemm, Bs staged
    # right (was 'Bs was staged transposed ... Hint: stage Bs[w][r][col] = B[k0 + r][...]', the
    # staging the learner already had)
    ("b_fragment_col_major", variant(KERNEL, ("wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;",
                                              "wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;")),
     ["B's fragment b was declared wmma::col_major, but Bs holds the tile row after row",
      "C = A B^T tile by tile", "declare it row_major: wmma::fragment<wmma::matrix_b, 16, 16, 16, "
      "half, wmma::row_major> b;"]),
    # blind audit TWB-wmma_partial_k-1: C stored wmma::mem_col_major (was 'C is not A B (C[13][20]
    # = -6.8, expected 2.071) ... Hint: stage A[...] where k0 + col < K and B[...]', the staging)
    ("c_stored_col_major", variant(KERNEL, ("c, N, wmma::mem_row_major", "c, N, wmma::mem_col_major")),
     ["C's tiles were stored column after column (wmma::mem_col_major): each 16 x 16 tile of C "
      "holds its tile of A B transposed: C[", " is A B's element [", "Hint: C is stored row "
      "after row: "
      "store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major)"]),
    ("a_staged_transposed", variant(KERNEL, ("As[w][r][col] = k0 + col < K", "As[w][col][r] = k0 + col < K")),
     ["As was staged transposed", "A[(tile_row * 16 + r) * K + k0 + col], where k0 + col < K"]),
    # blind audit I32: B's zero guard compared with N (was 'C holds NaN: a tile took elements from
    # past the end of A or B ..., or a tile in shared memory was loaded with a leading dimension
    # other than its 16' and the whole staging recipe)
    ("b_guarded_with_n", variant(KERNEL, (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + r < N"))),
     ["Bs took B's rows k0 + r up to N = 48, but B has K = 40 rows",
      "rows 40 to 47 were read from past the end of B", "Hint: guard B's row with K"]),
    # blind audit K15: past K the index clamped to K - 1 (was 'C is not A B (C[8][28] = -7.33,
    # expected 0.1987)' and the staging recipe)
    ("clamped_to_k_minus_1", variant(KERNEL, (STAGE_A, "As[w][r][col] = A[(tile_row * 16 + r) * K + min(k0 + col, K - 1)];"),
                                     (STAGE_B, "Bs[w][r][col] = B[min(k0 + r, K - 1) * N + tile_col * 16 + col];")),
     ["C is A B plus 8 more products of A's last column (k = 39) and B's last row",
      "repeated element K - 1 = 39", "Hint: past K there is no matrix: stage 0 there"]),
    # blind audit M15: the guards compare the index within the tile with K % 16 (was 'C is not A
    # B (C[28][45] = -0.8871, expected 4.533)' and the staging recipe); either alone gives the
    # same C, told apart by launches with an inf column of A, row of B
    ("guards_within_the_tile_against_k_mod_16",
     variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "col < K % 16")),
             (STAGE_B, STAGE_B.replace("k0 + r < K", "r < K % 16"))),
     ["every step staged its tiles as if it were the last, partial one: the zero guards of As and "
      "Bs compare the index within the tile, col and r, with K % 16",
      "Hint: compare the element's k with K: As[w][r][col] = k0 + col < K ? A[...] : "
      "__float2half(0.0f), and Bs[w][r][col] = k0 + r < K ?"]),
    ("a_guard_within_the_tile_against_k_mod_16", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "col < K % 16"))),
     ["every step staged A's tile as if it were the last, partial one: As's zero guard compares "
      "the index within the tile, col, with K % 16", "Hint: compare the element's k with K: "
      "As[w][r][col] = k0 + col < K ? A[...] : __float2half(0.0f)\n"]),
    ("b_guard_within_the_tile_against_k_mod_16", variant(KERNEL, (STAGE_B, STAGE_B.replace("k0 + r < K", "r < K % 16"))),
     ["every step staged B's tile as if it were the last", "Bs's zero guard compares the index "
      "within the tile, r,", "Hint: compare the element's k with K: Bs[w][r][col] = k0 + r < K ? "
      "B[...] : __float2half(0.0f)\n"]),
    # blind audit Q15: both zero guards test both tile indices, k0 + r < K && k0 + col < K (was
    # 'C is not A B (C[19][43] = 2.652, expected -0.2391)' and the staging recipe)
    ("guards_test_both_indices", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + r < K && k0 + col < K")),
                                         (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + r < K && k0 + col < K"))),
     ["the last, partial step dropped the tile's rows r >= K - k0 of A and columns col >= K - k0 "
      "of B: As's zero guard tested k0 + r too, and Bs's k0 + col too",
      "each guard tests the index along K of its own matrix only: A's column k0 + col, B's row k0 + r", "Hint: As[w][r][col] = k0 + "
      "col < K ? A[...] : __float2half(0.0f), and Bs[w][r][col] = k0 + r < K ? B[...]"]),
    # blind audit TXB-wmma_partial_k-1: B's fragment loaded from As (was 'C is not A B (C[1][46]
    # = -5.145, expected 5.341)' and the staging recipe, which the learner had right)
    ("b_fragment_loaded_from_as", variant(KERNEL, ("load_matrix_sync(b, &Bs[w][0][0], 16)",
                                                   "load_matrix_sync(b, &As[w][0][0], 16)")),
     ["C is each step's tile of A times itself, As As: B's fragment b was loaded from As",
      "Hint: load each fragment from its own tile: wmma::load_matrix_sync(b, &Bs[w][0][0], 16)"]),
    ("a_fragment_loaded_from_bs", variant(KERNEL, ("load_matrix_sync(a, &As[w][0][0], 16)",
                                                   "load_matrix_sync(a, &Bs[w][0][0], 16)")),
     ["C is each step's tile of B times itself, Bs Bs: A's fragment a was loaded from Bs",
      "Hint: load each fragment from its own tile: wmma::load_matrix_sync(a, &As[w][0][0], 16)"]),
    # blind audit TAAB-wmma_partial_k-1: B's column inside the tile taken from r (was 'C is not
    # A B (C[23][15] = 5.928, expected -3.613)' and the staging recipe, the slip not named)
    ("b_column_from_r", variant(KERNEL, ("tile_col * 16 + col]", "tile_col * 16 + r]")),
     ["Bs took B's column from r, B[(k0 + r) * N + tile_col * 16 + r]",
      "in tile (0, 0)'s first step Bs[w][0][1] took B[0][0] (",
      "where B[0][1] (", "Hint: the column inside the tile is col: Bs[w][r][col] = k0 + r < K ? "
      "B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f)"]),
    # blind audit AL (was 'the last, partial tile along K was skipped ... Hint: loop while k0 < K
    # (not k0 + 16 <= K)', the loop being right): the zero guards test the whole tile, k0 + 16 <= K
    ("guards_test_the_whole_tile", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + 16 <= K")),
                                           (STAGE_B, STAGE_B.replace("k0 + r < K", "k0 + 16 <= K"))),
     ["the last, partial step (k0 = 32) was taken, but its tiles were staged as zeros", "the zero "
      "guards of As and Bs test the whole tile", "Hint: test each element's k: As[w][r][col] = k0 + col < K ?"]),
    ("a_guard_tests_the_whole_tile", variant(KERNEL, (STAGE_A, STAGE_A.replace("k0 + col < K", "k0 + 16 <= K"))),
     ["its tiles were staged as zeros", "As's zero guard tests the whole tile", "Hint: test each "
      "element's k: As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col]"]),
    # blind audit AC (was 'the kernel crashed: ... a read of A ... 53 bytes past the end ...
    # Hint: stage only elements inside A and B ...'): the return of the warps past the last tile
    # taken out, only the store guarded, so a warp with no tile stages A's rows past M
    ("only_the_store_guarded", variant(KERNEL, ("    if (tile_row >= M / 16) return;      // a warp past the last tile\n", ""),
                                       ("    wmma::store_matrix_sync(", "    if (tile_row < M / 16)\n    wmma::store_matrix_sync(")),
     ["warp 2 (threads 64 to 95 of block 0) has no tile (tile_row = 1, M / 16 = 1)",
      "A's rows tile_row * 16 + r = 16 to 31, past A's 16",
      "Hint: keep if (tile_row >= M / 16) return; before the loop"]),
] + UNSTAGED


# The simulator only: on a GPU this read past the shared tiles was an illegal address (the H200,
# 2026-12-04), which leaves the CUDA context unusable for every test after it in the process.
SIMULATOR_ONLY = {"shared_tile_loaded_with_ld_n", "shared_tile_loaded_with_ld_k",  # ld K: a read past As
                  # two lanes stage one element (As[w][0][17] is As[w][1][1]): a race on a GPU
                  "staging_split_by_32",
                  # the warps race to stage one tile: a GPU's C depends on which wrote last
                  "staged_into_warp_0s_tiles",
                  # lanes load what other lanes may not yet have stored: a GPU's C depends on timing
                  "loaded_before_the_warp_has_staged",
                  # a warp with no tile reads A's rows past M (a GPU may read on without a fault)
                  "only_the_store_guarded",
                  # lane 0 stages As[w][16][0], past its warp's tile: into the next warp's
                  # tile (a race) or past As on a GPU
                  "staging_loop_one_too_many"} | ON_THE_SIMULATOR


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **RIGHT, **{name: source for name, source, _ in WRONG}}
    return compile_variant_pairs("wmma_partial_k", sources, no_extern_c=True)  # the race check: the simulator


@pytest.mark.parametrize("name", ["solution", *RIGHT])
def test_right_kernels_pass(name, kernels, capsys):
    verdict = checker.check_wmma_partial_k_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is True, out


def test_the_stub_as_shipped_is_not_yet(capsys):
    verdict = checker.check_wmma_partial_k()
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:") and "C is all zeros" in out, out


@pytest.mark.parametrize("name, source, expected", WRONG, ids=[w[0] for w in WRONG])
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    if name in SIMULATOR_ONLY and BACKEND != "simulator":
        pytest.skip("an index past a shared array may end the GPU's context")
    verdict = checker.check_wmma_partial_k_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)
    assert out.count("NOT YET:") == 1, out
