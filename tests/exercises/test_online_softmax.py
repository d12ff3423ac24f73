"""The online_softmax checker (helpers.exercises.online_softmax) of notebook 14: the solution and
two unusual right kernels pass, the stub fails, and each known mistake fails with the hint
written for it. The solution and its variants are compiled as one module."""

import pytest

from kernel_sources import assert_mistake_named, compile_variants, simulator_only, solution, variant
from online_softmax_variants import MERGES_AND_STEPS

from helpers.backend import SourceModule
from helpers.exercises import common, online_softmax as checker

KERNEL = solution("online_softmax.cu")
LOOP = "        l = l * __expf(m - m_new) + __expf(v - m_new);\n"
MERGE = ("        l = (m == -INFINITY ? 0.0f : l * __expf(m - m_new))\n"
         "            + (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new));\n")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit AC (was 'some rows' pair was never written ... Hint: one warp a row, row = ...
    # and its lane 0 writes row_max[row] and row_sum[row]'): lane 0 stores at the block's number
    ("stored_at_the_block", variant(KERNEL, ("row_max[row] = m;", "row_max[blockIdx.x] = m;"),
                                    ("row_sum[row] = l;", "row_sum[blockIdx.x] = l;")),
     ["only row_max[0] to row_max[5] and row_sum[0] to row_sum[5] were written, each by both "
      "warps of its block", "rows 6 to 11 never", "row_max[blockIdx.x], the block's number",
      "Hint: row_max[row] = m; row_sum[row] = l;"]),
    # blind audit TXB-online_softmax-1: / for % in the lane (was 'some rows' pair was never
    # written ... Hint: one warp a row, row = ... and its lane 0 writes row_max[row] and
    # row_sum[row]', nothing on the lane line)
    ("lane_is_the_warp", variant(KERNEL, ("int lane = threadIdx.x % 32;",
                                          "int lane = threadIdx.x / 32;")),
     ["lane = threadIdx.x / 32 is the warp's number in its block", "all 32 threads of warp w "
      "got lane w", "rows 1, 3, 5, ... were never written", "row_sum[0] = ",
      "Hint: the lane is the thread's place in its warp: int lane = threadIdx.x % 32"]),
    # blind audit TPB-online_softmax-1: the two outputs swapped in lane 0's stores (was
    # 'row_max[0] = 4.63908 is no value of row 0 ... Hint: lane l reads in[c], ... of its own row:
    # in = x + row * cols', the reads blamed, the swap not named)
    ("outputs_swapped", variant(KERNEL, ("row_max[row] = m;\n        row_sum[row] = l;",
                                         "row_max[row] = l;\n        row_sum[row] = m;")),
     ["row_max holds each row's sum and row_sum its max", "row_max[0] = 4.63908",
      "Hint: lane 0 stores the max into row_max and the sum into row_sum: row_max[row] = m; "
      "row_sum[row] = l;"]),
    # blind audit TJB-online_softmax-1: the column loop's bound c <= cols (was 'row_max[2] =
    # 7.39844 is no value of row 2 ... Hint: lane l reads in[c], ... of its own row: in = x + row
    # * cols', nothing naming the bound)
    ("column_loop_to_cols_inclusive", variant(KERNEL, ("for (int c = lane; c < cols; c += 32)",
                                                       "for (int c = lane; c <= cols; c += 32)")),
     ["the column loop ran to c <= cols: lane", "read in[cols], one past the row's end",
      "stop before cols: for (int c = lane; c < cols; c += 32)"]),
    # blind audit AD (was 'row_max[2] = 6.17969 is no value of row 2 ... Hint: lane l reads
    # in[c], ... of its own row', reads that were right): the running max started at the lane's
    # first value, in[lane], which for a lane with no column lies past the row's end
    ("max_starts_at_the_lane_s_value", variant(KERNEL, ("float m = -INFINITY, l",
                                                        "float m = __half2float(in[lane]), l")),
     ["each lane's max started at its value in[lane]", "lanes 10 to 31 have no column",
      "past row 2's end", "Hint: start every lane's max at -INFINITY",
      "float m = -INFINITY, l = 0.0f"]),
    # blind audit TEB-online_softmax-1: the merge's ?: terms without parentheses (was 'row_sum[0]
    # = 0.0152162, expected 4.63908 ... Hint: l is the sum of exp(x - m) over the row', nothing
    # on the merge)
    ("merge_without_parentheses", variant(KERNEL, (MERGE, MERGE.replace("(m == -INFINITY ? 0.0f : l * __expf(m - m_new))", "m == -INFINITY ? 0.0f : l * __expf(m - m_new)")
                                                          .replace("(m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new))", "m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new)"))),
     ["each merge kept only the partner's sum", "a ?: without parentheses takes in everything "
      "after its :", "put each guarded term in parentheses: l = (m == -INFINITY ? 0.0f : l * "
      "__expf(m - m_new)) + (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new))"]),
    # blind audit TFB-online_softmax-1: the lane's own sum rescaled by the partner's max (was
    # 'row_sum[0] = 0.188708, expected 4.63908 ... Hint: l is the sum of exp(x - m) over the row,
    # m the row's max', nothing on the merge)
    ("merge_own_sum_by_the_partner_s_max", variant(KERNEL, ("l * __expf(m - m_new))\n",
                                                            "l * __expf(m2 - m_new))\n")),
     ["in the merge the lane's own sum l was rescaled by exp(m2 - m_new), with the partner's max "
      "m2, not its own", "Hint: the max is swapped in the own sum's rescale: l was taken against "
      "the lane's own max m, l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"]),
    # blind audit AF (was 'row_sum[0] = 1.91333, expected 4.63908 ... Hint: l is the sum of exp(x
    # - m) over the row, m the row's max'): the partner's sum shuffled after the own rescale
    ("merge_l2_shuffled_after_the_rescale", variant(
        KERNEL, ("        float l2 = __shfl_xor_sync(0xffffffffu, l, offset);\n", ""),
        (MERGE, "        l = (m == -INFINITY ? 0.0f : l * __expf(m - m_new));\n"
                "        float l2 = __shfl_xor_sync(0xffffffffu, l, offset);\n"
                "        l += (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new));\n")),
     ["l2 was shuffled after the lane had rescaled its own l to m_new",
      "multiplied by exp(m2 - m_new) twice",
      "Hint: shuffle both m2 and l2 from the partner first"]),
    # blind audit TGB-online_softmax-1: the butterfly counting up, offset < 16 (was 'row_max[11] =
    # -0.543945, the max of only some of its columns ... Hint: each lane walks c = lane, ... and
    # the butterfly (offsets 16, 8, 4, 2, 1) merges all 32 lanes' maxes', nothing saying which)
    ("butterfly_without_offset_16", variant(KERNEL, ("for (int offset = 16; offset > 0; offset /= 2)",
                                                     "for (int offset = 1; offset < 16; offset *= 2)")),
     ["the butterfly never took offset 16: lane 0 merged lanes 0 to 15 alone, so the columns of "
      "lanes 16 to 31 (c % 32 >= 16), half the warp's, never met its pair",
      "Hint: the butterfly takes the five offsets 16, 8, 4, 2, 1",
      "counting up, offset <= 16"]),
    # blind audit AG (was 'row_max[1] = 6.50391, the max of only some of its columns ... Hint:
    # ... the butterfly (offsets 16, 8, 4, 2, 1) merges all 32 lanes' maxes', which it has): the
    # butterfly's shuffles with __shfl_sync, every lane reading lane `offset` itself
    ("butterfly_with_shfl_sync", variant(KERNEL, ("__shfl_xor_sync(0xffffffffu, m, offset)",
                                                  "__shfl_sync(0xffffffffu, m, offset)"),
                                         ("__shfl_xor_sync(0xffffffffu, l, offset)",
                                          "__shfl_sync(0xffffffffu, l, offset)")),
     ["the butterfly's shuffles were __shfl_sync", "lane 0 merged only lanes 0, 1, 2, 4, 8, 16",
      "Hint: the butterfly's partner is lane ^ offset",
      "__shfl_xor_sync(0xffffffffu, m, offset)"]),
    ("loop_not_rescaled", variant(KERNEL, (LOOP, "        l = l + __expf(v - m_new);\n")),
     ["the running sum was not rescaled", "l = l * exp(m - m_new) + exp(v - m_new)"]),
    # blind audit K6: the new term not shifted, + exp(v) (was 'row_sum[0] = inf, expected 4.63908'
    # with the definition of l as hint)
    ("new_term_not_shifted", variant(KERNEL, ("l = l * __expf(m - m_new) + __expf(v - m_new);",
                                              "l = l * __expf(m - m_new) + __expf(v);")),
     ["row_sum is infinite in the rows of scores around 100", "added unshifted, exp(v)",
      "the new term must be shifted by the running max", "exp(v - m_new)"]),
    # blind audit O6: the new term rescaled, not the old sum (was 'row_sum[0] = 0.227404, expected
    # 4.63908' with the definition of l as hint)
    ("term_rescaled_not_the_sum", variant(KERNEL, (LOOP, "        l = l + __expf(v - m_new) * "
                                                         "__expf(m - m_new);\n")),
     ["the loop rescaled the new term", "l = l * exp(m - m_new) + exp(v - m_new)"]),
    # blind audit AB (was 'row_sum[0] = 0.227404, expected 4.63908 ... Hint: l is the sum of
    # exp(x - m) over the row, m the row's max'): the loop's two steps the wrong way round, the
    # new term added before the rescale, which shrinks it too
    ("term_added_before_the_rescale", variant(KERNEL, (LOOP, "        l += __expf(v - m_new);\n"
                                                             "        l *= __expf(m - m_new);\n")),
     ["row_sum is too small: in the loop the new term exp(v - m_new) was added to l before the "
      "rescale", "wiped each lane's first value", "Hint: rescale the old sum first, then add the "
      "new term: l = l * exp(m - m_new) + exp(v - m_new)"]),
    # blind audit TB-online_softmax-1: the columns from threadIdx.x, not the lane (was 'row_max[3] =
    # 3.05273, the max of only some of its columns ... Hint: each lane walks c = lane, ... and the
    # butterfly (offsets 16, 8, 4, 2, 1) merges all 32 lanes' maxes')
    ("columns_from_the_block_s_thread", variant(KERNEL, ("for (int c = lane; c < cols; c += 32)",
                                                         "for (int c = threadIdx.x; c < cols; c += 32)")),
     ["row_max[3] = 3.05273, the max of columns 32 to 199 only (the row's is 7.39844): row 3 is "
      "warp 1 of its block, and its lanes started at column threadIdx.x = 32 + lane",
      "Hint: each warp walks its own row from column 0", "for (int c = lane; c < cols; c += 32)"]),
    ("merge_not_rescaled", variant(KERNEL, (MERGE, "        l = l + l2;\n")),
     ["the lanes' sums were added without rescaling", "l2 * exp(m2 - m_new)"]),
    ("empty_lanes_give_nan", variant(KERNEL, (MERGE, "        l = l * __expf(m - m_new) + "
                                                     "l2 * __expf(m2 - m_new);\n")),
     ["NaN in rows shorter than 17 columns", "counts 0 in the merge"]),
    # blind audit TQB-online_softmax-1: the merge's max taken by fminf (was 'row_max[0] = 103.25,
    # the max of only some of its columns ... Hint: each lane walks c = lane, ...', fminf not named)
    ("merge_takes_the_min", variant(KERNEL, ("float m_new = fmaxf(m, m2);", "float m_new = fminf(m, m2);")),
     ["row_max[0] = 103.25, the smallest of the 32 lanes' maxes", "m_new = fminf(m, m2)",
      "Hint: the merged max is the larger of the two: float m_new = fmaxf(m, m2)"]),
    # blind audit AJ (was 'row_max[0] = 103.25, the max of only some of its columns ... Hint: each
    # lane walks c = lane, ...', the column walk blamed): the merge kept the partner's max, m = m2
    ("merge_keeps_the_partner_s_max", variant(KERNEL, (MERGE + "        m = m_new;\n",
                                                       MERGE + "        m = m2;\n")),
     ["row_max[0] = 103.25, lane 31's own max", "each merge set m to the partner's max, m = m2",
      "Hint: keep the merged max: m = m_new"]),
    ("rows_of_length_rows", variant(KERNEL, ("x + (size_t)row * cols", "x + (size_t)row * rows")),
     ["is no value of row", "in = x + row * cols"]),
    # (was 'the max of only some of its columns', the missing offset named since
    # TGB-online_softmax-1's model)
    ("butterfly_stops_at_offset_2", variant(KERNEL, ("offset > 0;", "offset > 1;")),
     ["the butterfly never took offset 1: lane 0 merged lanes 0, 2, 4, 6, ... alone",
      "offsets 16, 8, 4, 2, 1"]),
    ("max_starts_at_0", variant(KERNEL, ("float m = -INFINITY, l", "float m = 0.0f, l")),
     ["row_max is 0 in the rows whose values are all below 0", "float m = -INFINITY"]),
    ("rescale_the_wrong_way", variant(KERNEL, (LOOP, LOOP.replace("__expf(m - m_new)", "__expf(m_new - m)"))),
     ["or the wrong way, by exp(m_new - m), both infinite",
      "l = l * exp(m - m_new)"]),
    # blind audit S6 (was blamed on the two mistakes of the exp alone: all three give NaN in
    # every row, whatever the values, since l = 0 meets an infinite factor at the first column)
    ("rescaled_by_the_ratio_of_the_maxes", variant(KERNEL, (LOOP, LOOP.replace("__expf(m - m_new)", "(m / m_new)"))),
     ["0 met infinity", "the old sum l = 0 was rescaled linearly, by m / m_new",
      "exp(m - m_new), not by their ratio m / m_new",
      "l = l * exp(m - m_new) + exp(v - m_new)"]),
    ("loop_steps_by_1", variant(KERNEL, ("c < cols; c += 32)", "c < cols; c++)")),
     ["each lane walked every column from its own", "c += 32"]),
    # blind audit THB-online_softmax-1: the grid-stride habit, the column loop stepped by the
    # block's threads (was 'row_max[2] = -0.539062, the max of only some of its columns ...
    # Hint: each lane walks c = lane, lane + 32, ...', the step not named)
    ("loop_steps_by_blockdim_x", variant(KERNEL, ("c < cols; c += 32)", "c < cols; c += blockDim.x)")),
     ["each lane's column loop stepped by 64, blockDim.x (the block's threads), not the warp's 32",
      "Hint: each lane of its warp takes every 32nd column: for (int c = lane; c < cols; c += 32)"]),
    ("no_row_guard", variant(KERNEL, ("    if (row >= rows) return;", "")),
     ["if (row >= rows) return;"]),
    # blind audit TDB-online_softmax-1: the store left to the block's thread 0 (was 'some rows'
    # pair was never written' with the row line as hint)
    ("stored_by_the_block_s_thread_0", variant(KERNEL, ("if (lane == 0) {", "if (threadIdx.x == 0) {")),
     ["only the first warp of each block stored its row's pair", "threadIdx.x == 0",
      "if (lane == 0)"]),
    # blind audit TMB-online_softmax-1: the block's rows stepped by its threads, not its warps
    # (was 'some rows' pair was never written' with the row line as hint)
    ("rows_step_by_the_block_s_threads", variant(KERNEL, ("blockIdx.x * (blockDim.x / 32) + ",
                                                          "blockIdx.x * blockDim.x + ")),
     ["only rows 0 and 1 were written", "row = blockIdx.x * blockDim.x + threadIdx.x / 32",
      "Hint: a block holds blockDim.x / 32 warps, one a row: row = blockIdx.x * (blockDim.x / 32) "
      "+ threadIdx.x / 32"]),
    # blind audit TWB-online_softmax-1: the block number not multiplied by the warps a block
    # holds (was 'some rows' pair was never written' with the row line as hint)
    ("block_number_added_alone", variant(KERNEL, ("blockIdx.x * (blockDim.x / 32) + ",
                                                  "blockIdx.x + ")),
     ["only rows 0 to 6 were written, rows 7 to 11 never", "the blocks' rows overlap",
      "block 1's warps took rows 1 and 2", "blockIdx.x times 1, not times the warps a block holds "
      "(blockDim.x / 32 = 2)", "Hint: a block holds blockDim.x / 32 warps, one a row: row = "
      "blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32"]),
    ("rows_of_block_0_only", variant(KERNEL, ("blockIdx.x * (blockDim.x / 32) + ", "")),
     ["some rows' pair was never written", "blockIdx.x * (blockDim.x / 32)"]),
    ("loop_updates_m_first", variant(KERNEL, (LOOP + "        m = m_new;\n", "        m = m_new;\n" + LOOP)),
     ["the running sum was not rescaled", "l = l * exp(m - m_new) + exp(v - m_new)"]),
    ("merge_updates_m_first", variant(KERNEL, (MERGE + "        m = m_new;\n", "        m = m_new;\n" + MERGE)),
     ["each lane's own sum was not rescaled", "then m = m_new"]),
    # blind audit B: the factor missing from the lane's own term (the verdict blamed the order)
    ("merge_rescales_only_the_partner", variant(KERNEL, ("l = (m == -INFINITY ? 0.0f : l * __expf(m - m_new))",
                                                         "l = l")),
     ["each lane's own sum was not rescaled to the merged max, only the partner's",
      "the factor exp(m - m_new) is missing", "l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"]),
    # blind audit Q6 (was 'row_sum[1] = 3.03539e+06, expected 1.04773 ... Hint: l is the sum of
    # exp(x - m) over the row, m the row's max'): the own sum kept, the partner's to the old max
    ("merge_keeps_own_sum_partner_to_old_max",
     variant(KERNEL, (MERGE, "        l = (m == -INFINITY ? 0.0f : l)\n"
                             "            + (m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m));\n")),
     ["each lane's own sum was left unrescaled", "l2 * exp(m2 - m), not to the merged max",
      "Hint: bring both sums to the merged max m_new"]),
    ("exp_against_the_old_max", variant(KERNEL, (LOOP, LOOP.replace("__expf(v - m_new)", "__expf(v - m)"))),
     ["row_sum is infinite", "against the old max", "exp(v - m_new)"]),
    ("partner_rescaled_by_own_max", variant(KERNEL, (MERGE, MERGE.replace("l2 * __expf(m2 - m_new)",
                                                                          "l2 * __expf(m - m_new)"))),
     ["the partner's sum l2 was rescaled by exp(m - m_new)", "l2 * exp(m2 - m_new)"]),
    ("max_shuffled_from_l", variant(KERNEL, ("float m2 = __shfl_xor_sync(0xffffffffu, m, offset);",
                                             "float m2 = __shfl_xor_sync(0xffffffffu, l, offset);")),
     ["took the partner's sum l as its max", "__shfl_xor_sync(0xffffffffu, m, offset)"]),
    # audit C: m raised to v before the rescale (exp(m - m_new) is then 1): named as such
    ("max_raised_before_the_rescale", variant(KERNEL, ("        float m_new = fmaxf(m, v);\n",
                                                       "        if (v > m) m = v;\n"
                                                       "        float m_new = fmaxf(m, v);\n")),
     ["the running sum was not rescaled", "or is 1 because m was raised to the new max before",
      "m = v", "while m is still the old max, and only then m = m_new"]),
    # audit 2: the exps taken before the subtraction passed (no score overflowed a float's exp)
    ("exps_taken_apart", variant(KERNEL, (LOOP, LOOP.replace("__expf(v - m_new)",
                                                             "__expf(v) / __expf(m_new)"))),
     ["row_sum is NaN in the rows of scores around 100", "exp(v) overflows a float past 88",
      "subtract the max first", "exp(v - m_new)"]),
    # audit 3: the butterfly from offset 32 (lane ^ 32 is the lane itself: each sum doubled); the
    # classic branch whose new-max side forgets the value's own exp (1)
    ("butterfly_from_offset_32", variant(KERNEL, ("offset = 16; offset > 0", "offset = 32; offset > 0")),
     ["twice the right value", "the butterfly started at offset 32", "offset = 16; offset > 0"]),
    ("branch_new_max_adds_nothing", variant(KERNEL, (
        "        float m_new = fmaxf(m, v);\n" + LOOP + "        m = m_new;\n",
        "        if (v > m) {\n            l = l * __expf(m - v);\n"
        "            m = v;\n        } else\n            l = l + __expf(v - m);\n")),
     ["that value's own exp(v - m_new) = 1 was not added", "l = l * exp(m - v) + 1"]),
    # blind audit F16 (was 'a rescale's exp went the wrong way' alone: both give the same NaN),
    # F17, F18 (were 'row_sum[0] = ..., expected ...' and the definition of l)
    ("exp_added_before_the_rescale", variant(KERNEL, (LOOP, "        l = (l + __expf(v - m)) * __expf(m - m_new);\n")),
     ["or the value's exp(v - m), infinite, was added before the rescale", "the three give the same NaN",
      "l = l * exp(m - m_new) + exp(v - m_new)"]),
    ("each_value_adds_1", variant(KERNEL, (LOOP, LOOP.replace("__expf(v - m_new)", "1.0f"))),
     ["each value added 1 to the running sum", "l = l * exp(m - m_new) + exp(v - m_new)"]),
    # blind audit QQ Q12: the summed pair rescaled once by the smaller max (was 'row_sum[0] =
    # 0.188708, expected 4.63908' with the definition of l)
    ("merge_rescales_the_sum_by_the_smaller_max", variant(KERNEL, (MERGE, "        l = (l + l2) * "
                                                                  "__expf(fminf(m, m2) - m_new);\n")),
     ["rescaled the pair once, by exp(fminf(m, m2) - m_new)", "rescale each sum from its own max"]),
    ("merge_keeps_the_larger_max_s_sum", variant(KERNEL, (MERGE, "        l = (m2 > m) ? l2 : l;\n")),
     ["each merge kept the sum of the pair with the larger max", "both sums count"]),
    # blind audit H12 (was blamed on a loop that forgets the new max's own exp: both give 0 in
    # rows shorter than 17 columns) and H11 (was 'row_sum[0] = ..., expected ...')
    ("merge_guards_swapped", variant(KERNEL, (MERGE, MERGE.replace("(m == -INFINITY", "(M2_")
                                                      .replace("(m2 == -INFINITY", "(m == -INFINITY")
                                                      .replace("(M2_", "(m2 == -INFINITY"))),
     ["-INFINITY test looked at the other pair's max", "(m == -INFINITY ? 0 : l * exp(m - m_new))"]),
    # blind audit M6 (was 'row_sum[0] = 1161.71, expected 4.63908' and the definition of l)
    ("merge_rescales_the_wrong_way", variant(KERNEL, (MERGE, MERGE.replace("__expf(m - m_new)", "__expf(m_new - m)")
                                                      .replace("__expf(m2 - m_new)", "__expf(m_new - m2)"))),
     ["the merge rescaled the lanes' sums the wrong way round, by exp(m_new - m)",
      "rescale by the old max minus the new, exp(m - m_new), at most 1",
      "l = l * exp(m - m_new) + l2 * exp(m2 - m_new)"]),
    # blind audit U6 (was 'row_sum[0] = 3.17936e+06, expected 4.63908' with the definition of l)
    ("new_term_exponent_flipped", variant(KERNEL, (LOOP, LOOP.replace("__expf(v - m_new)", "__expf(m_new - v)"))),
     ["the loop's new term was exp(m_new - v), its exponent flipped",
      "Hint: the new term is exp(v - m_new), not exp(m_new - v)"]),
    # blind audit TIB-online_softmax-1: x[c] read where in[c] belongs (was 'row_max[1] = 107.625
    # is no value of row 1 (its max is 11.9375) ... Hint: lane l reads in[c], ...', x[c] not named)
    ("read_from_x_not_in", variant(KERNEL, ("float v = __half2float(in[c]);",
                                            "float v = __half2float(x[c]);")),
     ["every row's pair is row 0's (row 1 got row_max = 107.625, row 0's max; its own is 11.9375)",
      "the loop read row 0's column c, x[c] (or in[c] with in = x, without the row's offset), "
      "where its own row's in[c], in = x + row * cols, belongs",
      "Hint: read the row through its own pointer: float v = __half2float(in[c]), with in = x + "
      "row * cols"]),
    # blind audit W6 (was 'row_sum[0] = 144.146, expected 4.63908' with the definition of l)
    ("l2_shuffled_from_m", variant(KERNEL, ("__shfl_xor_sync(0xffffffffu, l, offset)",
                                            "__shfl_xor_sync(0xffffffffu, m, offset)")),
     ["the partner's sum l2 was shuffled from m, its max", "Hint: l2 is the other lane's l"]),
    ("loop_rescaled_against_the_value", variant(KERNEL, (LOOP, LOOP.replace("__expf(m - m_new)", "__expf(m - v)"))),
     ["rescaled the running sum by exp(m - v), against the value", "l = l * exp(m - m_new)"]),
    # blind audit Y11 (was 'row_sum[0] = 36.1767, expected 4.63908' with the definition of l)
    ("merge_adds_the_partner_s_sum_unscaled", variant(KERNEL, (
        MERGE, MERGE.replace("(m2 == -INFINITY ? 0.0f : l2 * __expf(m2 - m_new))", "l2"))),
     ["in the merge the partner's sum l2 was added as it is, not rescaled to the merged max",
      "Hint: in the merge, both sums are brought to the merged max: l = l * exp(m - m_new) + "
      "l2 * exp(m2 - m_new)"]),
    # blind audit Y12 (was 'row_sum[0] = 5.09873, expected 4.63908' with the definition of l)
    ("loop_exps_of_base_2", variant(KERNEL, (LOOP, LOOP.replace("__expf", "exp2f"))),
     ["the loop's exps were of base 2, 2 to the power (exp2f)",
      "Hint: take the exps with __expf (or expf), e to the power: l = l * __expf(m - m_new) + "
      "__expf(v - m_new) in the loop"]),
    ("merge_exps_of_base_2", variant(KERNEL, (MERGE, MERGE.replace("__expf", "exp2f"))),
     ["the merge's exps were of base 2", "l = l * __expf(m - m_new) + l2 * __expf(m2 - m_new) "
      "in the merge"]),
    ("all_exps_of_base_2", variant(KERNEL, (LOOP, LOOP.replace("__expf", "exp2f")),
                                   (MERGE, MERGE.replace("__expf", "exp2f"))),
     ["the loop's and the merge's exps were of base 2", "in the loop, l = l * __expf(m - m_new) "
      "+ l2 * __expf(m2 - m_new) in the merge"]),
    # blind audit TZB-online_softmax-1: m = m_new left out of the column loop, the lanes' max
    # still -INFINITY after it (was 'row_max[0] = -inf is no value of row 0 ... Hint: lane l reads
    # in[c], ... of its own row: in = x + row * cols', the row pointer blamed)
    ("max_not_kept_in_the_loop", variant(KERNEL, ("        m = m_new;\n    }\n    for (int offset",
                                                  "    }\n    for (int offset")),
     ["each lane's running max m stayed -INFINITY through its column loop",
      "row_max[0] = -inf, row_sum[0] = 0", "m = m_new"]),
    # blind audit AH (was 'the kernel crashed: ... a warp function whose mask names lanes that
    # never call it there ... Hint: ... call it outside the if', no if there): the butterfly merge
    # inside the column loop, whose turns differ from lane to lane; simulator only (SIMULATOR_ONLY)
    ("merge_inside_the_column_loop", variant(KERNEL, ("        m = m_new;\n    }\n    for (int offset",
                                                      "        m = m_new;\n    for (int offset"),
                                             ("        m = m_new;\n    }\n    if (lane == 0)",
                                              "        m = m_new;\n    }\n    }\n    if (lane == 0)")),
     ["lanes 0 to 7 of each warp, which have one column more than the others (cols = 200: lanes "
      "0 to 7 take 7 columns, lanes 8 to 31 take 6)",
      "inside the loop over the columns", "Hint: finish each lane's loop over its columns first, "
      "then merge the 32 pairs (m, l) once, after the loop"]),
    # blind audit TNB-online_softmax-1: row = ... + threadIdx.x % 32 (was 'the kernel crashed: ...
    # called a warp function whose mask names lanes that never call it ... Hint: a warp
    # function's mask ... call it outside the if', the mask blamed); simulator only (SIMULATOR_ONLY)
    ("row_from_the_lane", variant(KERNEL, ("+ threadIdx.x / 32;", "+ threadIdx.x % 32;")),
     ["the row came from the lane: row = blockIdx.x * (blockDim.x / 32) + threadIdx.x % 32",
      "lanes 0 to 11 of each warp", "threadIdx.x / 32"]),
    # blind audit AIC-online_softmax-2 (was 'lanes 0 to 9 ... called the merge's __shfl_xor_sync
    # ... without the others: the butterfly merge is inside the loop over the columns', which
    # is after it): a lane with no column returns before the merge, if (lane >= cols) return;
    # simulator only (SIMULATOR_ONLY)
    ("lane_without_a_column_returns", variant(KERNEL, ("    float m = -INFINITY, l",
                                                       "    if (lane >= cols) return;\n"
                                                       "    float m = -INFINITY, l")),
     ["lanes 10 to 31 of each warp, which have no column (cols = 10), returned at line",
      ", if (lane >= cols) return;, and never called the merge's __shfl_xor_sync",
      "Hint: no return for a lane with no column"]),
    # blind audit AKC-online_softmax-1 (was 'the kernel did not finish ... (an endless loop?)',
    # no loop named): the merge's loop while offset >= 0, which never ends (SIMULATOR_ONLY)
    ("merge_while_offset_at_least_0", variant(KERNEL, ("offset > 0; offset /= 2", "offset >= 0; offset /= 2")),
     ["the merge's loop never ends: the kernel did not finish even on a row of 0 columns",
      "(> 0, not >= 0)"]),
    # blind audit AR (was 'some rows' pair was never written'): lane 0's test assigns lane = 0
    ("lane_test_assigns", variant(KERNEL, ("if (lane == 0) {", "if (lane = 0) {")),
     [", lane = 0, assigns where it should compare", "false for every thread",
      "Hint: compare with ==, which leaves lane as it is: lane == 0"]),
] + MERGES_AND_STEPS
ENDLESS = {"merge_while_offset_at_least_0"}  # a loop that never ends: stopped at 0.5 s, not 10
SIMULATOR_ONLY = {**dict.fromkeys(("row_from_the_lane", "merge_inside_the_column_loop",
                                   "lane_without_a_column_returns"),
                                  "a warp function called with lanes missing is undefined on a GPU"),
                  "merge_while_offset_at_least_0": "an endless loop hangs a GPU",
                  "lane_test_assigns": "the compiler's records are the simulator's, no twin's on a GPU"}

# Right, though not as the solution does it: the classic update, which rescales only when the
# max grows (one exp a number instead of two)...
BRANCH = variant(KERNEL, ("        float m_new = fmaxf(m, v);\n" + LOOP + "        m = m_new;\n",
                          "        if (v > m) {\n            l = l * __expf(m - v) + 1.0f;\n"
                          "            m = v;\n        } else {\n"
                          "            l += __expf(v - m);\n        }\n"))
# ... and the lanes' pairs merged into lane 0 with __shfl_down_sync (the other lanes' results are
# wrong, and unused).
DOWN = KERNEL.replace("__shfl_xor_sync", "__shfl_down_sync")


def unwrapped(source):
    """SourceModule for a source that includes cuda_fp16.h and declares its kernels extern "C"."""
    return SourceModule(source, no_extern_c=True)


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, "branch": BRANCH, "down": DOWN, **{w[0]: w[1] for w in WRONG}}
    return compile_variants("online_softmax", source_module=unwrapped, sources=sources)


@pytest.mark.parametrize("name", ["solution", "branch", "down"])
def test_right_kernels_pass(name, kernels, capsys):
    verdict = checker.check_online_softmax_kernel(kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is True, out
    assert out.strip() == str(verdict)


def test_the_stub_forgets_to_rescale(capsys):
    verdict = checker.check_online_softmax()
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:"), out
    assert "the running sum was not rescaled" in verdict.problem, out


@pytest.mark.parametrize("name, source, expected", simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys, monkeypatch):
    if name in ENDLESS:
        monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    verdict = checker.check_online_softmax_kernel(kernels[name])
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, name, expected)
