"""The causal_softmax checker (helpers.exercises.causal_softmax) of notebook 14: the solution and two
unusual right kernels pass, the stub fails, and each known mistake fails with the hint written for
it. The solution and its variants are compiled as one module (and, on PyCUDA, once more on the
simulator, whose race check the checker uses)."""

import re

import pytest

from causal_softmax_variants import MAX_SHUFFLES, ROWS, SUM_STEPS
from kernel_sources import (assert_mistake_named, compile_variant_pairs, simulator_only, solution,
                            variant)

from helpers.exercises import causal_softmax as checker

KERNEL = solution("causal_softmax.cu")
MAX = ("    float m = -INFINITY;\n    for (int c = lane; c <= last; c += 32)\n"
       "        m = fmaxf(m, __half2float(in[c]));\n    m = warp_max(m);\n")
SUM = "    for (int c = lane; c <= last; c += 32)\n        sum += __expf("
WRITE_LOOP = ("    for (int c = lane; c < cols; c += 32)\n"
              "        y[(size_t)row * cols + c]")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit AJ (was 'NaN or inf in the rows whose scores are about 100, right in the small
    # ones: ... the max was not subtracted'): exp(m - x), the subtraction reversed in both exps
    ("max_subtracted_reversed", variant(KERNEL, ("__expf(__half2float(in[c]) - m)",
                                                 "__expf(m - __half2float(in[c]))")),
     ["exp(m - x) has the subtraction the wrong way round", "the softmax of -x",
      "the largest score got the smallest weight", "Hint: exp(x - m), the score minus the max"]),
    # blind audit TNA-causal_softmax-1 (was 'the masked columns (past the row's own, c > row) are
    # not 0 ... Hint: y = 0 where c > last', a mask that is right): the store's row length rows
    ("stored_rows_apart", variant(KERNEL, ("y[(size_t)row * cols + c]", "y[(size_t)row * rows + c]")),
     ["row r was stored r * rows elements into y, not r * cols",
      "put row 1 at elements 13 to 112 of y", "where row 1 starts at element 100",
      "elements 256 to 1299 were never written", "Hint: a row of y is cols elements long",
      "y[(size_t)row * cols + c]"]),
    # blind audit TMA-causal_softmax-1: the row's start without the row's length (was '88 of 1300
    # outputs are wrong ... which loaded x[1] ... Hint: y = exp(x - m) / sum where c <= last, else
    # 0', silent on the row pointer)
    ("row_start_without_cols", variant(KERNEL, ("const __half *in = x + (size_t)row * cols;",
                                                "const __half *in = x + row;")),
     ["row r read its scores from x[r] on", "in = x + row", "not row r's start",
      "Hint: row r starts r whole rows into x: in = x + (size_t)row * cols"]),
    # blind audit AF (was 'the kernel crashed: ... a write of y ... 65 bytes past the end ...
    # Hint: the warps past the last row must leave before reading'): the row guard off by one
    ("row_guard_off_by_one", variant(KERNEL, ("if (row >= rows) return;", "if (row > rows) return;")),
     ["the warp of row 13 = rows", "if (row > rows) lets row == rows through",
      "Hint: rows run 0 to rows - 1: return where row >= rows"]),
    # blind audit AKC-causal_softmax-2 (was 'the masked columns (past the row's own, c > row) are
    # not 0 ... Hint: y = 0 where c > last', a store that is right): last = max(row, cols - 1)
    ("last_by_max", variant(KERNEL, ("int last = min(row, cols - 1);", "int last = max(row, cols - 1);")),
     ["no column was masked", "cols - 1 = 99 in every row", "last = max(row, cols - 1) takes the larger",
      "Hint: the last column row r may see is the smaller of the two: last = min(row, cols - 1)"]),
    ("last_not_below_cols", variant(KERNEL, ("int last = min(row, cols - 1);", "int last = min(row, cols);")),
     ["only the rows that see every column (row >= cols - 1) are wrong", "last = min(row, cols - 1)"]),
    ("last_two_below_cols", variant(KERNEL, ("int last = min(row, cols - 1);", "int last = min(row, cols - 2);")),
     ["only the rows that see every column (row >= cols - 1) are wrong", "last = min(row, cols - 1)"]),
    ("last_is_the_row", variant(KERNEL, ("int last = min(row, cols - 1);", "int last = row;")),
     ["only the rows that see every column (row >= cols - 1) are wrong", "last = min(row, cols - 1)"]),
    # blind audit P7: the block's threads for its warps in the row (was 'some rows or columns of
    # y were never written ...')
    ("row_by_the_block_s_threads",
     variant(KERNEL, ("int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;",
                      "int row = blockIdx.x * blockDim.x + threadIdx.x / 32;")),
     ["only rows 0, 1 of 13 were written, each right: warp w of block b took row b * blockDim.x + w", "row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32"]),
    # blind audit TIA-causal_softmax-1: the lane as the thread's place in the block (was 'some
    # rows or columns of y were never written ... Hint: one warp a row, ...', silent on the lane)
    ("lane_is_threadIdx_x", variant(KERNEL, ("int lane = threadIdx.x % 32;", "int lane = threadIdx.x;")),
     ["columns 0 to 31 of row 1 were never written", "warp 1 of its block",
      "the columns from 32 on", "lane = threadIdx.x, the thread's place in the block",
      "warp 1's loops start at column 32, warp 2's at 64",
      "Hint: a lane is the thread's place in its warp: int lane = threadIdx.x % 32"]),
    # blind audit TYA-causal_softmax-1: the lane bit trick misremembered, & 32 for & 31 (was
    # 'some rows or columns of y were never written ... Hint: one warp a row, ...', silent on
    # the lane); and lane = threadIdx.x / 32, the warp's number, the same in all its lanes
    ("lane_and_32", variant(KERNEL, ("int lane = threadIdx.x % 32;", "int lane = threadIdx.x & 32;")),
     ["every lane of a warp took the same columns: lane was 0 in warp 0 and 32 in warp 1",
      "row 0 wrote columns 0, 32, 64, 96 and row 1 columns 32, 64, 96 alone",
      "as threadIdx.x & 32 gives: & 32 keeps the one bit of 32",
      "Hint: a lane is the thread's place in its warp, 0 to 31: int lane = threadIdx.x % 32 "
      "(or threadIdx.x & 31)"]),
    ("lane_is_the_warp", variant(KERNEL, ("int lane = threadIdx.x % 32;", "int lane = threadIdx.x / 32;")),
     ["every lane of a warp took the same columns: lane was 0 in warp 0 and 1 in warp 1",
      "Hint: a lane is the thread's place in its warp, 0 to 31"]),
    # blind audit TEA-causal_softmax-1: blockIdx.x not scaled by the block's warps (was 'some rows
    # or columns of y were never written ...', a symptom)
    ("row_by_the_block_unscaled",
     variant(KERNEL, ("int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;",
                      "int row = blockIdx.x + threadIdx.x / 32;")),
     ["only rows 0 to 7 of 13 were written, each right: warp w of block b took row b + w",
      "the blocks' rows overlap", "row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32"]),
    # blind audit TDA-causal_softmax-1: - m left out of the sum (was 'the rows do not add up to 1:
    # the sum of exp(x - m) is not the whole row's ...')
    ("sum_without_the_max", variant(KERNEL, ("sum += __expf(__half2float(in[c]) - m);",
                                             "sum += __expf(__half2float(in[c]));")),
     ["the sum left out the max: it adds exp(x) where the output divides exp(x - m)",
      "sum += __expf(__half2float(in[c]) - m)"]),
    # blind audit TLA-causal_softmax-1: - m left out of the final write's exp alone (was 'NaN or
    # inf in the rows whose scores are about 100, right in the small ones: exp(x) overflowed a
    # float, the max was not subtracted ...', which the max and sum loops do)
    ("write_without_the_max", variant(KERNEL, ("c <= last ? __expf(__half2float(in[c]) - m) / sum",
                                               "c <= last ? __expf(__half2float(in[c])) / sum")),
     ["the final write's exp left out the max: y = __expf(x) / sum, while the sum adds exp(x - m)",
      "Hint: subtract the max in the write too, as the sum does: y = "
      "__expf(__half2float(in[c]) - m) / sum"]),
    ("max_not_subtracted", variant(KERNEL, (MAX, "    float m = 0.0f;\n")),
     ["NaN or inf in the rows whose scores are about 100", "the max was not subtracted"]),
    # blind audit E49: every lane's max loop from column 0 (m = the max of columns 0, 32, ...)
    ("max_loop_from_column_0", variant(KERNEL, ("    for (int c = lane; c <= last; c += 32)\n        m = fmaxf",
                                                "    for (int c = 0; c <= last; c += 32)\n        m = fmaxf")),
     ["each lane's max started at column 0, not at its lane", "for (int c = lane; c <= last"]),
    # blind audit E50: in (already x + row * cols) indexed by row * cols + c in the max's loop
    ("row_offset_twice", variant(KERNEL, ("m = fmaxf(m, __half2float(in[c]));",
                                          "m = fmaxf(m, __half2float(in[row * cols + c]));")),
     ["in already points at the row (x + row * cols)", "index in by the column alone: in[c]"]),
    # blind audit R7: the max's loop over x[c], the whole matrix (row 0), not the row's in[c]
    # (was '14 of 1300 outputs are wrong (the first is y[3][2] = 0, expected 0.0005085) ...
    # Hint: y = exp(x - m) / sum where c <= last, else 0')
    ("max_of_the_first_row", variant(KERNEL, ("m = fmaxf(m, __half2float(in[c]));",
                                              "m = fmaxf(m, __half2float(x[c]));")),
     ["every row subtracted the max of the first row's scores", "m = fmaxf(m, __half2float(in[c]))"]),
    # blind audit TVA-causal_softmax-1: the store's exp over x[c] (row 0), not the row's in[c]
    # (was 'NaN in the rows whose masked columns hold the largest scores: the max was taken over
    # the masked columns too ... Hint: the max over columns 0 to last only')
    ("store_of_the_first_row", variant(KERNEL, ("c <= last ? __expf(__half2float(in[c]) - m) / sum",
                                                "c <= last ? __expf(__half2float(x[c]) - m) / sum")),
     ["every row's y was computed from the first row's scores", "the store's exp read x[c]",
      "y[1][0] =", "__expf(__half2float(in[c]) - m) / sum"]),
    ("each_lane_its_own_max", variant(KERNEL, ("    m = warp_max(m);\n", "")),
     ["each lane subtracted the max of its own columns", "warp_max"]),
    # blind audit AB (was 'the rows do not add up to 1: the sum of exp(x - m) is not the whole
    # row's ... Hint: each lane adds its columns' exp(x - m), then sum = warp_sum(sum)', which the
    # kernel does): m = warp_max(m) after the sum's loop, each lane's part against its own max
    ("warp_max_after_the_sum", variant(KERNEL, ("    m = warp_max(m);\n", ""),
                                       ("    sum = warp_sum(sum);\n", "    m = warp_max(m);\n    sum = warp_sum(sum);\n")),
     ["row 1 adds up to", "each lane added its columns' exp(x - m) against the max of its own "
      "columns, not the row's: m = warp_max(m) came after the sum's loop",
      "Hint: combine the lanes' maxima before the sum: m = warp_max(m) right after the max's loop"]),
    ("sum_not_reduced", variant(KERNEL, ("    sum = warp_sum(sum);\n", "")),
     ["the rows do not add up to 1", "warp_sum"]),
    ("every_block_does_row_0", variant(KERNEL, ("blockIdx.x * (blockDim.x / 32) + ", "")),
     ["some rows or columns of y were never written", "blockIdx.x * (blockDim.x / 32)"]),
    ("first_32_columns_only", variant(KERNEL, (WRITE_LOOP, WRITE_LOOP.replace(
        "c < cols;", "c < cols && c < 32;"))),
     ["some rows or columns of y were never written", "while c < cols"]),
    # blind audit TGA-causal_softmax-1: the write's loop bounded by last, not cols: the masked
    # columns never written (was 'some rows or columns of y were never written ... Hint: one warp
    # a row, row = ... while c < cols')
    ("write_loop_to_last", variant(KERNEL, (WRITE_LOOP, WRITE_LOOP.replace("c < cols;", "c <= last;"))),
     ["only the masked columns (c > last) of every row were never written", "the write's loop",
      "for (int c = lane; c < cols; c += 32)"]),
    ("max_of_the_first_column", variant(KERNEL, (MAX, "    float m = __half2float(in[0]);\n")),
     ["NaN or inf in the rows whose scores are about 100", "m = the max of columns 0 to last"]),
    # audit G13: the max's loop from threadIdx.x, not the lane: warps past the first see no column
    ("max_loop_from_threadIdx_x", variant(KERNEL, ("    for (int c = lane; c <= last; c += 32)\n        m = fmaxf",
                                                   "    for (int c = threadIdx.x; c <= last; c += 32)\n        m = fmaxf")),
     ["NaN in the rows of the block's warps past the first", "32 * warp + lane",
      "not threadIdx.x: for (int c = lane;"]),
    # blind audit J7: the max's loop to the row, not to last: rows past the last column take the
    # next row's scores (and the last rows those past the end of x) into their max
    ("max_loop_to_the_row", variant(KERNEL, ("    for (int c = lane; c <= last; c += 32)\n        m = fmaxf",
                                             "    for (int c = lane; c <= row; c += 32)\n        m = fmaxf")),
     ["the max's loop ran to the row, c <= row", "for (int c = lane; c <= last; c += 32)"]),
    ("max_over_the_masked_columns_too", variant(KERNEL, (MAX, MAX.replace("c <= last", "c < cols"))),
     ["the max was taken over the masked columns too", "c <= last"]),
    ("sum_stops_before_last", variant(KERNEL, (SUM, SUM.replace("c <= last", "c < last"))),
     ["row 0, which sees column 0 alone, came out NaN or inf", "while c <= last"]),
    ("max_stops_before_last", variant(KERNEL, (MAX, MAX.replace("c <= last", "c < last"))),
     ["row 0, which sees column 0 alone, came out NaN or inf", "while c <= last"]),
    ("diagonal_left_out", variant(KERNEL, ("int last = min(row, cols - 1);", "int last = min(row, cols) - 1;")),
     ["each row left out its own column", "last = min(row, cols - 1)"]),
    ("sum_over_every_column", variant(KERNEL, (SUM, SUM.replace("c <= last", "c < cols"))),
     ["the sum took in the masked columns too", "c <= last"]),
    ("masked_columns_not_zeroed", variant(KERNEL, ("c <= last ? __expf", "c < cols ? __expf")),
     ["the masked columns (past the row's own, c > row) are not 0", "y = 0 where c > last"]),
    ("one_column_too_many", variant(KERNEL, ("int last = min(row, cols - 1);", "int last = min(row + 1, cols - 1);")),
     ["each row saw one column too many", "last = min(row, cols - 1)"]),
    # blind audit TRA-causal_softmax-1: the lanes' parts of the sum combined with warp_max (was
    # 'y is exp(x - m), never divided by the sum', which it is, by the largest lane's part)
    ("sum_reduced_with_warp_max", variant(KERNEL, ("sum = warp_sum(sum);", "sum = warp_max(sum);")),
     ["divided by the largest lane's part of the sum", "sum = warp_max(sum)",
      "Hint: add the lanes' parts: sum = warp_sum(sum)"]),
    ("never_divided", variant(KERNEL, ("__expf(__half2float(in[c]) - m) / sum", "__expf(__half2float(in[c]) - m)")),
     ["y is exp(x - m), never divided by the sum", "/ sum"]),
    ("write_test_below_last", variant(KERNEL, ("c <= last ? __expf", "c < last ? __expf")),
     ["the write's test is c < last", "a row sees its own column"]),
    # blind audit L7: the warp's max written inline with __shfl_down_sync: only lane 0 ends with
    # the row's max, the other lanes subtract the max of part of the row
    ("warp_max_inline_shfl_down", variant(KERNEL, ("    m = warp_max(m);\n",
                                                   "    for (int offset = 16; offset > 0; offset /= 2)\n"
                                                   "        m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));\n")),
     ["only lane 0 holds the row's max after __shfl_down_sync", "m = warp_max(m)"]),
    # blind audit N7: lane 0's own max (columns 0, 32, ...) handed to every lane, never combined
    # with the other lanes' (the verdict blamed a max loop from column 0: the outputs are the
    # same, the trace of the loads tells them apart)
    ("lane_0_max_broadcast", variant(KERNEL, ("    m = warp_max(m);\n",
                                              "    m = __shfl_sync(0xffffffffu, m, 0);\n")),
     ["every lane subtracted lane 0's own max", "before the lanes' maxima were combined",
      "m = warp_max(m)"]),
    # blind audit APA-causal_softmax (was '80 of 1300 outputs are wrong (the first is y[1][0] =
    # 0.5, ...) ... Hint: y = exp(x - m) / sum where c <= last, else 0', the formula again):
    # warp_max's loop stops before the shuffle at offset 1, each lane keeps every second lane's max
    ("warp_max_stops_at_offset_2", variant(KERNEL, ("offset > 0; offset /= 2)\n        v = fmaxf",
                                                    "offset > 1; offset /= 2)\n        v = fmaxf")),
     ["each lane subtracted a different max", "every second lane",
      "warp_max's loop stopped before its shuffle at offset 1", "y[1][0] = 0.5",
      "Hint: warp_max's loop runs down to offset 1",
      "for (int offset = 16; offset > 0; offset /= 2)"]),
    # blind audit APA-causal_softmax (it passed): each lane's running sum kept in __half
    ("sum_kept_in_half", variant(
        KERNEL, ("    float sum = 0.0f;\n", "    __half hsum = __float2half(0.0f);\n"),
        ("        sum += __expf(__half2float(in[c]) - m);\n    sum = warp_sum(sum);\n",
         "        hsum = __hadd(hsum, __float2half(__expf(__half2float(in[c]) - m)));\n"
         "    float sum = warp_sum(__half2float(hsum));\n")),
     ["each lane's sum was kept in half precision (__half)",
      "a sum kept in 16 bits stops growing once each term is below half a step of it",
      "row 1099's sum came out", "rows = 1100, cols = 1100",
      "Hint: keep the sum a float: float sum = 0.0f"]),
    ("warp_sum_shfl_down", variant(KERNEL, ("v += __shfl_xor_sync", "v += __shfl_down_sync")),
     ["only lane 0 holds the sum after __shfl_down_sync", "use __shfl_xor_sync"]),
    # blind audit TPA-causal_softmax-1 (was 'the rows do not add up to 1: the sum of exp(x - m)
    # is not the whole row's ... Hint: ... then sum = warp_sum(sum) for all 32', which the kernel
    # did): warp_sum's loop stops before the shuffle at offset 1
    ("warp_sum_stops_at_offset_2", variant(KERNEL, ("offset > 0; offset /= 2)\n        v +=",
                                                    "offset > 1; offset /= 2)\n        v +=")),
     ["row 1 adds up to 2, not 1: each lane's sum holds only 16 of the warp's 32 lanes (every "
      "second lane", "warp_sum's loop stopped before its shuffle at offset 1",
      "for (int offset = 16; offset > 0; offset /= 2)"]),
    # blind audit TXA-causal_softmax-1 (was 'the rows do not add up to 1: the sum of exp(x - m)
    # is not the whole row's ... Hint: ... then sum = warp_sum(sum) for all 32', which the kernel
    # did): warp_sum's loop starts at offset 8, half a warp's 16
    ("warp_sum_starts_at_offset_8", variant(KERNEL, ("__device__ float warp_sum(float v)\n{\n"
                                                     "    for (int offset = 16;",
                                                     "__device__ float warp_sum(float v)\n{\n"
                                                     "    for (int offset = 8;")),
     ["row 16 adds up to 2, not 1: each lane's sum holds only 16 of the warp's 32 lanes (lanes 0 "
      "to 15 or 16 to 31, its own half)", "warp_sum's loop started at offset 8: its shuffle at "
      "offset 16", "Hint: warp_sum's loop starts at offset 16",
      "for (int offset = 16; offset > 0; offset /= 2)"]),
    # audit 2: a max that starts at 0 passed (no row's visible scores were all far below 0)
    ("max_starts_at_0", variant(KERNEL, (MAX, MAX.replace("float m = -INFINITY;", "float m = 0.0f;"))),
     ["y is NaN in exactly the rows whose visible scores are all below -120", "m starts at 0",
      "start the max at -INFINITY"]),
    # blind audit X13 and X14: the max of the scores' magnitudes (was 'm starts at 0, above every
    # score of those rows ... Hint: start the max at -INFINITY'), and of the column numbers (was
    # 'NaN or inf in the rows whose scores are about 100 ...: the max was not subtracted')
    ("max_of_magnitudes", variant(KERNEL, ("m = fmaxf(m, __half2float(in[c]));",
                                           "m = fmaxf(m, fabsf(__half2float(in[c])));")),
     ["y is NaN in exactly the rows whose visible scores are all below -120",
      "a max of the scores' magnitudes, fmaxf(m, fabsf(x))", "not of their magnitudes"]),
    ("max_of_column_numbers", variant(KERNEL, ("m = fmaxf(m, __half2float(in[c]));",
                                               "m = fmaxf(m, c);")),
     ["every row subtracted its last column's number", "fmaxf(m, c)",
      "m = fmaxf(m, __half2float(in[c]))"]),
    # every lane stores the whole row (a loop from 0): the right values, each stored by all 32
    # lanes (it passed): the race-checked case on the simulator names it
    ("every_lane_stores_the_row", variant(KERNEL, ("for (int c = lane; c < cols; c += 32)\n        y[",
                                                   "for (int c = 0; c < cols; c++)\n        y[")),
     ["two threads wrote y[", "c += 32"]),
    # audit 3: the max from +INFINITY; the max's loop striding by the block (each lane one
    # column); the max of the first 32 columns only (it passed both: the large scores lay there)
    ("max_from_plus_infinity", variant(KERNEL, ("float m = -INFINITY;", "float m = INFINITY;")),
     ["every visible y is NaN", "float m = -INFINITY"]),
    # blind audit AI (was 'm came out above every score (a max that starts at +INFINITY ...'):
    # fminf for fmaxf in the lanes' max loop, so m stays -INFINITY
    ("max_loop_takes_fminf", variant(KERNEL, ("m = fmaxf(m, __half2float(in[c]));",
                                              "m = fminf(m, __half2float(in[c]));")),
     ["m stayed -INFINITY", "fminf(-INFINITY, x) is -INFINITY", "m = fmaxf(m, __half2float(in[c]))"]),
    # blind audit B: the lanes' maxima combined with warp_sum (the verdict blamed a max from
    # +INFINITY); warp_max called in the lanes' loop, whose turns differ from lane to lane
    ("maxima_summed", variant(KERNEL, ("    m = warp_max(m);\n", "    m = warp_sum(m);\n")),
     ["the lanes' maxima were not combined with a max", "m = warp_max(m)"]),
    ("warp_max_in_the_loop", variant(KERNEL, ("        m = fmaxf(m, __half2float(in[c]));\n    m = warp_max(m);\n",
                                              "        m = warp_max(fmaxf(m, __half2float(in[c])));\n")),
     ["called a warp function whose mask names lanes that never call it there",
      "call them after the lane's loop over its columns, not inside it"]),
    # blind audit AE (was 'the kernel crashed: ... a warp function whose mask names lanes that
    # never call it ... Hint: ... call them after the lane's loop over its columns, not inside
    # it ... and not inside an if', calls it does not have): a lane with no visible column returns
    ("lane_without_a_column_returns", variant(KERNEL, ("    float m = -INFINITY;\n",
                                                       "    if (lane > last) return;\n    float m = -INFINITY;\n")),
     ["only lanes 0 to last = min(row, cols - 1) of each warp came to the shuffles (in block 0: "
      "row 0's lane 0, row 1's lanes 0 to 1)", "the other lanes, with no visible column, had "
      "returned", "Hint: a lane with no visible column stays: its loops run no turn, so it brings "
      "m = -INFINITY to warp_max and sum = 0 to warp_sum, and it writes the 0s of its masked "
      "columns; only a whole warp may return: if (row >= rows) return;"]),
    ("max_loop_by_the_block", variant(KERNEL, ("for (int c = lane; c <= last; c += 32)\n        m =",
                                              "for (int c = lane; c <= last; c += blockDim.x)\n        m =")),
     ["rows whose largest scores lie past column 31", "c += 32) m = fmaxf(m, ...)"]),
    ("max_of_the_first_32_columns", variant(KERNEL, (MAX, "    float m = warp_max(lane <= last ? "
                                                         "__half2float(in[lane]) : -INFINITY);\n")),
     ["rows whose largest scores lie past column 31", "c += 32) m = fmaxf(m, ...)"]),
    # blind audit Z14: each lane's max over 32 neighbouring columns, 32 * lane to 32 * lane + 31:
    # columns past 1023 are never seen (it passed: no row saw more than 1024 columns)
    ("max_over_32_neighbouring_columns_a_lane",
     variant(KERNEL, ("    for (int c = lane; c <= last; c += 32)\n        m = fmaxf",
                      "    for (int c = lane * 32; c < lane * 32 + 32 && c <= last; c++)\n        m = fmaxf")),
     ["NaN or inf in exactly the rows that see more than 1024 columns", "never reached those columns",
      "for (int c = lane; c <= last; c += 32)"]),
    # blind audit V7: the max's loop read in[lane], the lane's first column, every time round
    # (was 'NaN or inf in exactly the rows whose largest scores lie past column 31 ... Hint: ...
    # for (int c = lane; c <= last; c += 32) m = fmaxf(m, ...); then m = warp_max(m)')
    ("max_reads_the_lane_s_first_column", variant(KERNEL, ("m = fmaxf(m, __half2float(in[c]));",
                                                           "m = fmaxf(m, __half2float(in[lane]));")),
     ["the max's loop read in[lane], the lane's first column, every time round",
      "m = fmaxf(m, __half2float(in[c]))"]),
    # blind audit TA-causal_softmax-1: the max started at in[lane], a masked column in the rows
    # where lane > last (was 'NaN in the rows whose masked columns hold the largest scores: the
    # max was taken over the masked columns too ... Hint: ... for (int c = lane; c <= last; c +=
    # 32)', the loop the kernel has)
    ("max_started_at_the_lane_s_column",
     variant(KERNEL, ("    float m = -INFINITY;\n",
                      "    float m = __half2float(in[lane]);   // start from the lane's first column\n")),
     ["each lane's max started at in[lane], its first column", "lane > last",
      "start the max at -INFINITY: float m = -INFINITY"]),
    # blind audit AG (was 'the rows do not add up to 1: the sum of exp(x - m) is not the whole
    # row's'): the sum's parenthesis closed before - m, sum += exp(x) - m
    ("sum_subtracts_the_max_after_the_exp",
     variant(KERNEL, ("sum += __expf(__half2float(in[c]) - m);",
                      "sum += __expf(__half2float(in[c])) - m;")),
     ["the sum subtracted the max after the exponential", "exp(x) - m",
      "sum += __expf(__half2float(in[c]) - m)"]),
    *SUM_STEPS,
    *MAX_SHUFFLES,
    *ROWS,
]

# Right, though not as the solution does it: the warp's max with __shfl_down_sync, then lane 0's
# result handed to every lane with __shfl_sync.
DOWN_THEN_BROADCAST = variant(KERNEL, (
    "        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));\n    return v;",
    "        v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, offset));\n"
    "    return __shfl_sync(0xffffffffu, v, 0);"))
# Right too: each lane takes a run of neighbouring columns instead of every 32nd.
CHUNKS = variant(KERNEL, ("for (int c = lane; c <= last; c += 32)",
                         "for (int c = lane * (last / 32 + 1); "
                         "c <= min(last, (lane + 1) * (last / 32 + 1) - 1); ++c)"),
                 ("for (int c = lane; c < cols; c += 32)",
                  "for (int c = lane * ((cols + 31) / 32); "
                  "c < min(cols, (lane + 1) * ((cols + 31) / 32)); ++c)"))



# warp_max hands each lane another lane's max, not the larger: NaN in the even rows too, which a
# max over the masked columns too does not give (their masked scores are no larger)
WARP_MAX_WITHOUT_FMAXF = variant(KERNEL, ("v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));",
                                          "v = __shfl_xor_sync(0xffffffffu, v, offset);"))


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, "down_then_broadcast": DOWN_THEN_BROADCAST, "chunks": CHUNKS,
               "warp_max_without_fmaxf": WARP_MAX_WITHOUT_FMAXF, **{w[0]: w[1] for w in WRONG}}
    # One module for all: each variant's warp_max and warp_sum get names of their own.
    return compile_variant_pairs("causal_softmax", {
        name: re.sub(r"\b(warp_max|warp_sum)\b", rf"\1__{name}", text)
        for name, text in sources.items()}, no_extern_c=True)


@pytest.mark.parametrize("name", ["solution", "down_then_broadcast", "chunks"])
def test_right_kernels_pass(name, kernels, capsys):
    verdict = checker.check_causal_softmax_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is True, out
    assert out.strip() == str(verdict)


def test_the_stub_overflows(capsys):
    verdict = checker.check_causal_softmax()
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:"), out
    assert "the max was not subtracted" in verdict.problem, out


SIMULATOR_ONLY = {"warp_max_in_the_loop": "a shuffle whose mask names lanes that never call it: "
                                          "a GPU may hang or hand back garbage",
                  "row_offset_twice": "it reads past the end of x, garbage on a GPU",
                  "lane_without_a_column_returns": "a shuffle whose mask names lanes that have "
                                                   "returned: undefined on a GPU",
                  "row_from_the_lane": "a shuffle whose mask names lanes that have returned: "
                                       "undefined on a GPU",
                  "stored_rows_apart": "its rows overlap in y: which row's store lands last is a "
                                       "race on a GPU"}


@pytest.mark.parametrize("name, source, expected", simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    verdict = checker.check_causal_softmax_kernel(*kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)


def test_a_broken_warp_max_is_not_called_a_max_over_the_masked_columns(kernels, capsys):
    verdict = checker.check_causal_softmax_kernel(*kernels["warp_max_without_fmaxf"])
    assert verdict.passed is False and "masked columns" not in verdict.problem, verdict
