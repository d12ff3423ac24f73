"""The matrix-vector checker (helpers.exercises.matvec_warp) of notebook 08: the solution and right
kernels written another way pass, the stub fails, and each known mistake gets its own verdict. All
variants are compiled as one module (and, on PyCUDA, once more on the simulator, whose race check
the checker uses)."""

import re

import pytest

from kernel_sources import (assert_refused_and_named, compile_variant_pairs, simulator_only,
                            solution, variant)

from helpers.exercises import matvec_warp as checker

KERNEL = solution("matvec_warp.cu")
SHUFFLE = "        v += __shfl_down_sync(0xffffffff, v, offset);\n"
LOOP = "    for (int c = lane; c < cols; c += 32)\n        v += A[row * cols + c] * x[c];\n"

# name: (replacements, {field: words that the verdict's field must contain})
WRONG = {
    "warp_sum_adds_nothing": ([(SHUFFLE, "        ;\n")],
                              {"problem": "lane 0's sum only", "hint": "__shfl_down_sync"}),
    # blind audit TOB-matvec_warp-1: blockIdx.y for blockIdx.x in the row (was '97 of the 101
    # elements of y were never written (the first is y[4])', the mistake not named)
    "row_from_blockIdx_y": ([("int row = blockIdx.x * blockDim.y", "int row = blockIdx.y * blockDim.y")],
                            {"problem": "every block's warps took rows 0 to 3, as when the row's "
                                        "block term is 0: blockIdx.y, which is 0 in this 1-D grid "
                                        "(grid = (26, 1))",
                             "hint": "row = blockIdx.x * blockDim.y + threadIdx.y"}),
    # blind audit TSB-matvec_warp-1: y[threadIdx.y] = v for y[row] (was '97 of the 101 elements
    # of y were never written (the first is y[4])', hint the row's formula, the store not named)
    "stored_at_threadIdx_y": ([("y[row] = v;", "y[threadIdx.y] = v;")],
                              {"problem": "only y[0] to y[3] were written, by every block: warp "
                                          "threadIdx.y of block b summed A's row b * 4 + "
                                          "threadIdx.y but stored y[threadIdx.y]",
                               "hint": "store at the warp's row of the matrix, not its place in "
                                       "the block: if (lane == 0) y[row] = v"}),
    # blind audit AI (was 'y[0] = 4957.26, NumPy's is 8.60949 ... Hint: lane l adds ...', the reads
    # past the row not named): the columns in chunks of 32, c + lane, with no guard on c + lane < cols
    "chunks_of_32_unguarded": ([(LOOP, "    for (int c = 0; c < cols; c += 32)\n        v += A[row * cols + c + lane] * x[c + lane];\n")],
                               {"problem": "on the last step of the column loop (cols = 1000: c = 992) lanes 8 to 31 read "
                                           "columns c + lane = 1000 to 1023, past the row's 1000 (x[1000] is past x's end",
                                "hint": "guard the step with if (c + lane < cols)"}),
    # blind audit TXB-matvec_warp-1: the early return dropped, the store guarded instead (was
    # 'the kernel failed on the simulator: ... a read of A[9000] at matvec_warp.cu:22 ... Hint:
    # ... check that index against that size (a guard like if (i < n) ...)', the return not named)
    "store_guarded_not_the_warp": ([("    if (row >= rows)\n        return;", "    "),
                                    ("if (lane == 0)", "if (lane == 0 && row < rows)")],
                                   {"problem": "the warp of row 45 (block 11, threadIdx.y = 1), "
                                               "past the last row, 44, read A[9000], past A's end "
                                               "(45 x 200 = 9000 elements), at ",
                                    "hint": "those warps must return before they read A: if (row "
                                            ">= rows) return; right after row is computed"}),
    "offsets_from_8": ([("offset = 16;", "offset = 8;")],
                       {"problem": "lanes 0 to 15", "hint": "offset 16"}),
    # blind audit TIB-matvec_warp-1: offsets from 31 (was 'y[0] = 9.34958, NumPy's is 8.60949'
    # and the kernel's plan)
    "offsets_from_31": ([("offset = 16;", "offset = 31;")],
                        {"problem": "warp_sum's offsets were 31, 15, 7, 3, 1",
                         "hint": "for (int offset = 16; offset > 0; offset /= 2)"}),
    "stops_before_offset_1": ([("offset > 0;", "offset > 1;")],
                              {"problem": "even lanes", "hint": "offset > 0"}),
    "loop_steps_by_1": ([("c += 32)", "c++)")], {"problem": "steps by 1", "hint": "c += 32"}),
    # blind audit TPB-matvec_warp-1: A[row + c], the row length forgotten (was 'y[1] =
    # -1.87889, NumPy's is -22.9368' and the kernel's plan)
    "a_row_not_times_cols": ([("A[row * cols + c]", "A[row + c]")],
                             {"problem": "A was read at A[row + c]: row was not multiplied by cols = 1000",
                              "hint": "A[row * cols + c]"}),
    "a_read_by_columns": ([("A[row * cols + c]", "A[c * rows + row]")],
                          {"problem": "read down its columns", "hint": "A[row * cols + c]"}),
    # blind audit H7, H8 (were 'y[0] = ..., NumPy's is ...' and the plan)
    "a_of_the_lane": ([("A[row * cols + c]", "A[row * cols + lane]")],
                      {"problem": "A was read at the lane's column", "hint": "A[row * cols + c] * x[c]"}),
    "shuffle_given_a_lane_number": ([(SHUFFLE, SHUFFLE.replace("v, offset)", "v, (threadIdx.x % 32) + offset)"))],
                                    {"problem": "gave __shfl_down_sync a lane number",
                                     "hint": "__shfl_down_sync(0xffffffff, v, offset)"}),
    "x_of_the_lane": ([("* x[c];", "* x[lane];")], {"problem": "x[lane]", "hint": "x[c]"}),
    # blind audit TQB-matvec_warp-1: the two causes of 32 times lane 0's sum told apart by the
    # simulator's trace (was one verdict naming both, the loop from c = 0 or __shfl_up_sync)
    "every_lane_from_column_0": ([("int c = lane;", "int c = 0;")],
                                 {"problem": "32 times lane 0's sum: every lane of a warp read "
                                             "the same elements of A (on the simulator lanes 0 "
                                             "and 1 of row 0 both read A[0]): the column loop "
                                             "starts at c = 0",
                                  "hint": "for (int c = lane; c < cols; c += 32)"}),
    "shuffle_up": ([("__shfl_down_sync", "__shfl_up_sync")],
                   {"problem": "32 times lane 0's own sum, the products of its columns 0, 32, "
                               "64, ... alone, though the lanes read their own columns: lane 0 "
                               "got its own v back at each of warp_sum's 5 steps and doubled it",
                    "hint": "v += __shfl_down_sync(0xffffffff, v, offset)"}),
    # blind audit O4 (was 'y[0] = -4.72606, NumPy's is 8.60949' and the general hint)
    "shuffle_of_width_16": ([(SHUFFLE, SHUFFLE.replace("v, offset)", "v, offset, 16)"))],
                            {"problem": "was given a width of 16",
                             "hint": "drop the width argument"}),
    # blind audit S4 (was 'warp_sum's __shfl_down_sync was given a width of 16': lane 0 gets
    # the same sum) and its twin from 32 (was 'warp_sum's first shuffle, offset 32'): the
    # offset halved before the shuffle, offsets 8, 4, 2, 1, 0 (16, ..., 1, 0)
    "offset_halved_before_the_shuffle": ([("    for (int offset = 16; offset > 0; offset /= 2)\n" + SHUFFLE,
                                           "    int offset = 16;\n    while (offset > 0) {\n"
                                           "        offset /= 2;\n    " + SHUFFLE + "    }\n")],
                                         {"problem": "offsets were 8, 4, 2, 1 and then 0: the "
                                                     "offset was halved before each shuffle",
                                          "hint": "shuffle first, then halve"}),
    "offset_from_32_halved_before_the_shuffle": ([("    for (int offset = 16; offset > 0; offset /= 2)\n" + SHUFFLE,
                                                   "    int offset = 32;\n    while (offset > 0) {\n"
                                                   "        offset /= 2;\n    " + SHUFFLE + "    }\n")],
                                                 {"problem": "offsets were 16, 8, 4, 2, 1 and then 0",
                                                  "hint": "shuffle first, then halve"}),
    "shuffle_from_one_lane": ([("__shfl_down_sync", "__shfl_sync")],
                              {"problem": "__shfl_sync", "hint": "__shfl_down_sync"}),
    # blind audit W4 (was 'y[0] = 14.6952, NumPy's is 8.60949' and the plan)
    "the_last_lane_stores": ([("if (lane == 0)", "if (lane == 31)")],
                             {"problem": "lane 31 stored y[row]",
                              "hint": "if (lane == 0) y[row] = v"}),
    # blind audit THB-matvec_warp-1: only the block's first warp stores (was '75 of the 101
    # elements of y were never written (the first is y[1]) ... Hint: each warp's row is row =
    # blockIdx.x * blockDim.y + threadIdx.y; its lane 0 stores y[row]', the condition not named)
    "only_the_first_warp_stores": ([("if (lane == 0)", "if (lane == 0 && threadIdx.y == 0)")],
                                   {"problem": "only the first warp of each block (threadIdx.y "
                                               "== 0) stored its row",
                                    "hint": "every warp's lane 0 stores its own row, whatever "
                                            "its threadIdx.y: if (lane == 0) y[row] = v"}),
    # blind audit AQ (was '75 of the 101 elements of y were never written (the first is y[1])
    # ... Hint: each warp's row is row = ...', the guard not named): threadIdx.y == 0 for lane == 0
    "store_guarded_by_threadIdx_y": ([("if (lane == 0)", "if (threadIdx.y == 0)")],
                                     {"problem": "the store's guard tests threadIdx.y == 0, the "
                                                 "warp's place in the block, where it must test "
                                                 "lane == 0",
                                      "hint": "guard the store with the lane, not the warp: if "
                                              "(lane == 0) y[row] = v"}),
    # blind audit ACB-matvec_warp-1, warp_sum folded into lane 0's store (was 'the kernel
    # crashed: ... called a warp function whose mask names lanes that never call it there at
    # ...:10', the shuffle's line in warp_sum, not the call inside the if)
    "warp_sum_inside_the_if": ([("    v = warp_sum(v);\n    if (lane == 0)\n        y[row] = v;",
                                 "    if (lane == 0)\n        y[row] = warp_sum(v);")],
                               {"problem": "lane 0 of each warp alone called warp_sum",
                                "hint": "v = warp_sum(v); before the if"}),
    "every_lane_stores": ([("    if (lane == 0)\n        y[row] = v;", "    y[row] = v;")],
                          {"problem": "data race on y[", "hint": "lane 0 alone"}),
    "row_ignores_the_block": ([("blockIdx.x * blockDim.y + threadIdx.y;", "threadIdx.y;")],
                              {"problem": "never written", "hint": "blockIdx.x * blockDim.y"}),
    # blind audit U4 (was '85 of the 101 elements of y were never written (the first is y[4])'
    # and the right row line as hint)
    "blocks_counted_32_rows_apart": ([("blockIdx.x * blockDim.y + threadIdx.y;",
                                       "blockIdx.x * blockDim.x + threadIdx.y;")],
                                     {"problem": "the blocks were counted blockDim.x = 32 rows apart, "
                                                 "but a block holds blockDim.y = 4 rows",
                                      "hint": "row = blockIdx.x * blockDim.y + threadIdx.y"}),
    # blind audit TDB-matvec_warp-1: the block number not multiplied by the rows a block holds
    # (was '72 of the 101 elements of y were never written (the first is y[29])' and the row line)
    "block_number_not_multiplied": ([("int row = blockIdx.x * blockDim.y + threadIdx.y;",
                                      "int row = blockIdx.x + threadIdx.y;")],
                                    {"problem": "row = blockIdx.x + threadIdx.y steps by 1 row from "
                                                "one block to the next",
                                     "hint": "row = blockIdx.x * blockDim.y + threadIdx.y"}),
    "no_row_guard": ([("    if (row >= rows)\n        return;", "")],
                     {"problem": "written past its end", "hint": "row >= rows"}),
    # blind audit TEB-matvec_warp-1: the guard off by one (was 'y was written past its end
    # (y[rows] and on) ... Hint: keep the stub's if (row >= rows) return;', read as no guard)
    "row_guard_off_by_one": ([("if (row >= rows)", "if (row > rows)")],
                             {"problem": "y[101] alone was written past y's end, by the warp of "
                                         "row == rows = 101 (the grid's 2 rows after it returned): "
                                         "the guard if (row > rows) lets row == rows through",
                              "hint": "rows run 0 to rows - 1: return where row >= rows"}),
    "reads_past_the_row": ([("c < cols;", "c <= cols;")], {"problem": "y[", "hint": "< cols"}),
    # audit B: each named as itself
    "lane_and_row_swapped": ([("int lane = threadIdx.x;", "int lane = threadIdx.y;"),
                              ("blockIdx.x * blockDim.y + threadIdx.y;",
                               "blockIdx.x * blockDim.x + threadIdx.x;")],
                             {"problem": "never call it there",
                              "hint": "lanes 0 to 4 of each warp alone called warp_sum"}),
    # blind audit TAAB-matvec_warp-1: every shuffle by the constant 16, not the loop's offset
    # (was 'y[0] = 12.0927, NumPy's is 8.60949 ... Hint: lane l adds A[row * cols + c] * x[c]
    # ...', a restatement of the whole algorithm, the 16 not named)
    "shuffle_by_16_each_step": ([("__shfl_down_sync(0xffffffff, v, offset)",
                                  "__shfl_down_sync(0xffffffff, v, 16)")],
                                {"problem": "each y[row] is lane 0's sum plus 31 times lane 16's "
                                            "and no other lane's: every step of warp_sum "
                                            "shuffled by 16, not by its offset",
                                 "hint": "shuffle by the loop's offset, which halves at each "
                                         "step (16, 8, 4, 2, 1): v += __shfl_down_sync("
                                         "0xffffffff, v, offset)"}),
    "shuffle_replaces_v": ([("v += __shfl_down_sync", "v = __shfl_down_sync")],
                           {"problem": "lane 31's sum", "hint": "v += __shfl_down_sync"}),
    # blind audit QQ Q8: A's row length taken as the warp's width (was 'y[1] = 12.6976, NumPy's
    # is -22.9368' with the all-steps hint)
    "rows_read_32_apart": ([("A[row * cols + c]", "A[row * 32 + c]")],
                           {"problem": "A[row * 32 + c]", "hint": "A[row * cols + c]"}),
    # blind audit QQ Q7: the column loop steps by the block's warps (was 'y[0] = 57.0138, NumPy's
    # is 8.60949')
    "steps_by_blockdim_y": ([("c += 32)", "c += blockDim.y)")],
                            {"problem": "stepped by blockDim.y", "hint": "c += 32"}),
    "rows_read_rows_apart": ([("A[row * cols + c]", "A[row * rows + c]")],
                             {"problem": "A[row * rows + c]", "hint": "A[row * cols + c]"}),
    "warp_sum_result_dropped": ([("v = warp_sum(v);", "warp_sum(v);")],
                                {"problem": "or its result was dropped",
                                 "hint": "v = warp_sum(v)"}),
    # audit 2: four sums that got 'y[0] = X, NumPy's is Y'
    "keeps_the_last_product": ([("v += A[row * cols + c]", "v = A[row * cols + c]")],
                               {"problem": "only the row's last 32 products",
                                "hint": "v += A[row * cols + c] * x[c]"}),
    "cols_over_32_turns": ([(LOOP, "    for (int k = 0; k < cols / 32; k++)\n"
                                   "        v += A[row * cols + 32 * k + lane] * x[32 * k + lane];\n")],
                           {"problem": "not added (past the last multiple of 32): the loop ran cols / 32 turns",
                            "hint": "c < cols; c += 32"}),
    "grid_stride_over_columns": ([("c += 32)", "c += blockDim.x * gridDim.x)")],
                                 {"problem": "lane l stepped by blockDim.x * gridDim.x",
                                  "hint": "c += 32"}),
    "offset_minus_minus": ([("offset > 0; offset /= 2)", "offset > 0; offset--)")],
                           {"problem": "offset steps down by 1 (offset--)",
                            "hint": "offset /= 2"}),
    # audit 3: the block's threads as the step; __shfl_sync from lanes 1 to 31, into v itself
    "steps_by_the_block": ([("c += 32)", "c += blockDim.x * blockDim.y)")],
                           {"problem": "lane l stepped by blockDim.x * blockDim.y",
                            "hint": "c += 32"}),
    "shfl_sync_from_every_lane": ([("    for (int offset = 16; offset > 0; offset /= 2)\n" + SHUFFLE,
                                    "    for (int i = 1; i < 32; i++)\n"
                                    "        v += __shfl_sync(0xffffffff, v, i);\n")],
                                  {"problem": "for i = 1 to 31 into v itself",
                                   "hint": "v += __shfl_down_sync(0xffffffff, v, offset)"}),
    # audit B (2026-12): the first PASSed (every case had cols <= 1024), the second got 'a
    # factor is off ... int division and ^'
    "a_fixed_stretch_of_32_columns_a_lane": ([(LOOP, "    for (int c = lane * 32; c < lane * 32 + 32 && c < cols; c++)\n"
                                                     "        v += A[row * cols + c] * x[c];\n")],
                                             {"problem": "columns 1024 to 1099 were never added",
                                              "hint": "for (int c = lane; c < cols; c += 32)"}),
    "offsets_from_32": ([("offset = 16;", "offset = 32;")],
                        {"problem": "offset 32, reaches past the warp",
                         "hint": "start at offset 16, half the warp"}),
    # blind audit F10: x read at the row
    "x_of_the_row": ([("* x[c];", "* x[row];")], {"problem": "x was read at the row, x[row]",
                                                  "hint": "x[c]"}),
    # blind audit F11, F12: lanes 0 to 15, then lanes 0 to cols % 32 - 1, alone in a shuffle
    # (they were blamed on a lane and row swap)
    "shuffle_inside_an_if": ([(SHUFFLE, "        if ((threadIdx.x % 32) < offset)\n    " + SHUFFLE)],
                             {"hint": "a shuffle inside an if (lane < offset) leaves lanes out"}),
    "warp_sum_in_the_column_loop": ([(LOOP + "    v = warp_sum(v);\n",
                                      "    for (int c = lane; c < cols; c += 32)\n"
                                      "        v += warp_sum(A[row * cols + c] * x[c]);\n")],
                                    {"hint": "lanes 0 to 7, which have one column more than the "
                                             "others (cols = 1000), called warp_sum once more"}),
    # audit I (I21): a running sum, but each step shuffles the lane's first v (was 'y[0] =
    # 1.03634, NumPy's is 8.60949' and the plan)
    "shuffles_the_first_value": ([("    for (int offset = 16; offset > 0; offset /= 2)\n" + SHUFFLE
                                   + "    return v;",
                                   "    float s = v;\n    for (int offset = 16; offset > 0; offset /= 2)\n"
                                   "        s += __shfl_down_sync(0xffffffff, v, offset);\n    return s;")],
                                 {"problem": "the sums of lanes 0, 1, 2, 4, 8 and 16 only: each step "
                                             "of warp_sum shuffled the lane's first value, not the sum",
                                  "hint": "shuffle the running sum at each step"}),
    # audit K (K4): the column loop bounded by rows (was 'y[0] = 2.51963, NumPy's is 8.60949'
    # and the plan)
    "column_loop_to_rows": ([("c < cols; c += 32)", "c < rows; c += 32)")],
                            {"problem": "only columns 0 to 100 of its row: the lanes' column loop "
                                        "stopped at rows = 101",
                             "hint": "for (int c = lane; c < cols; c += 32)"}),
    # blind audit M17: warp_sum's sum kept in an int, as notebook 07's count (was 'y[0] = 7, NumPy's
    # is 8.60949' and the plan); and the int returned by warp_sum
    "warp_sum_in_an_int": ([(SHUFFLE + "    return v;",
                             "        c += __shfl_down_sync(0xffffffff, c, offset);\n    return c;"),
                            ("__device__ float warp_sum(float v)\n{\n",
                             "__device__ float warp_sum(float v)\n{\n    int c = v;\n")],
                           {"problem": "y holds whole numbers: warp_sum added the lanes' sums in an "
                                       "int, so each lane's sum lost its fraction",
                            "hint": "the sum is kept in an int: keep it a float"}),
    "warp_sum_returns_an_int": ([("__device__ float warp_sum(float v)", "__device__ int warp_sum(float v)")],
                                {"problem": "y holds whole numbers: the row's sum was cut to an int "
                                            "(toward 0) after warp_sum added the lanes",
                                 "hint": "the sum is kept in an int: keep it a float"}),
    # blind audit TB-matvec_warp-1: warp_sum's loop never ends (was 'the kernel did not finish:
    # the simulator stopped kernel 'matvec_warp' after 10 s, its time limit (an endless loop?) ...
    # Hint: a loop whose condition never becomes false: ...', which loop not said)
    "shuffles_while_offset_at_least_0": ([("offset > 0; offset /= 2)", "offset >= 0; offset /= 2)")],
                                         {"problem": "the loop in warp_sum never ends: the kernel "
                                                     "did not finish even on a row of 0 columns",
                                          "hint": "(> 0, not >= 0)"}),
    # blind audit Q4: the first column from the thread's place in the block (was 'y[1] = -20.7447,
    # NumPy's is -22.9368' and the plan)
    "first_column_from_the_block_s_thread": ([("int c = lane;", "int c = threadIdx.x + blockDim.x * threadIdx.y;")],
                                             {"problem": "left out its row's first 32 * w columns",
                                              "hint": "lane l starts at column l"}),
    # blind audit AG (was 'y[0] = 3.85966, NumPy's is 8.60949' and the plan): no column loop,
    # each lane adds one product, if (lane < cols) v = A[row * cols + lane] * x[lane]
    "one_product_a_lane": ([(LOOP, "    if (lane < cols)\n        v = A[row * cols + lane] * x[lane];\n")],
                           {"problem": "each y[row] holds only columns 0 to 31 of its row",
                            "hint": "for (int c = lane; c < cols; c += 32)"}),
    # blind audit TNB-matvec_warp-1: the lane's v declared int (was 'y is 0 everywhere: no lane
    # added anything to v' and TODO 1's loop)
    "v_declared_int": ([("float v = 0.0f;", "int v = 0;")],
                       {"problem": "v is declared int: each add's result is cut toward 0 to a "
                                   "whole number", "hint": "float v = 0.0f;"}),
    # blind audit AK (was 'y[0] = -inf, NumPy's is 8.60949' and the plan as hint): the lane's sum
    # blind audit AO (was 'PASS: y = A x matches NumPy ...'): float4 loads from A + row * cols, a row 16-byte
    # aligned only where cols is a multiple of 4 (a misaligned address on a GPU, the case of 42 columns)
    "float4_rows_misaligned": ([(LOOP, "    const float4 *a4 = reinterpret_cast<const float4 *>(A + row * cols);\n"
                                       "    const float4 *x4 = reinterpret_cast<const float4 *>(x);\n"
                                       "    for (int c = lane; c < cols / 4; c += 32) {\n        float4 a = a4[c], b = x4[c];\n"
                                       "        v += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;\n    }\n"
                                       "    for (int c = cols / 4 * 4 + lane; c < cols; c += 32)\n        v += A[row * cols + c] * x[c];\n")],
                               {"problem": "a float4 must start at a multiple of 16 bytes, and row 1 starts at A + row * cols = A + 42, "
                                           "byte 168, 8 past one: a row starts at a multiple of 16 bytes only where cols is a multiple of 4",
                                "hint": "load 4 floats at a time only where cols % 4 == 0"}),
    # blind audit AW (was 'PASS: y = A x matches NumPy ...', no case had cols < 32): the lanes
    # with no column return before warp_sum, whose shuffles' mask names all 32 lanes
    "lanes_past_cols_return": ([("    float v = 0.0f;", "    if (lane >= cols)\n        return;\n    float v = 0.0f;")],
                               {"problem": "lanes 20 to 31 of each warp, which have no column of a "
                                           "row of cols = 20, never called warp_sum",
                                "hint": "no return before warp_sum"}),
    # declared without a start value, float v;
    "v_never_set_to_0": ([("float v = 0.0f;", "float v;")],
                         {"problem": "is read before anything is stored in it: each lane's sum "
                                     "starts from whatever its register held",
                          "hint": "float v = 0.0f;"}),
}
# The simulator only: on a GPU a warp function with lanes missing is undefined behaviour.
SIMULATOR_ONLY = {name: "a warp function called with lanes missing is undefined on a GPU"
                  for name in ("lane_and_row_swapped", "shuffle_inside_an_if",
                               "warp_sum_in_the_column_loop", "warp_sum_inside_the_if",
                               "lanes_past_cols_return")}
SIMULATOR_ONLY["v_never_set_to_0"] = "on a GPU v starts from whatever its register held: y right or wrong by luck"
SIMULATOR_ONLY["float4_rows_misaligned"] = "a misaligned address on a GPU (cols = 77) breaks the context for the tests after it"
ENDLESS = {"shuffles_while_offset_at_least_0"}
"""Kernels that never end: stopped at half a second on the simulator, not at the checkers' 10 s
(a GPU kernel cannot be stopped from Python)."""
SIMULATOR_ONLY.update(dict.fromkeys(ENDLESS, "a kernel that never ends cannot be stopped on a GPU"))
# Right, but not the solution's way: each must pass (a speed rule may later ask more of the second)
RIGHT = {
    "butterfly": [(SHUFFLE, "        v += __shfl_xor_sync(0xffffffff, v, offset);\n")],
    "float4_only_where_rows_are_aligned": [(LOOP, "    if (cols % 4 == 0) {\n        const float4 *a4 = reinterpret_cast<const float4 *>(A + row * cols);\n"
                                                  "        for (int c = lane; c < cols / 4; c += 32) {\n            float4 a = a4[c], b = reinterpret_cast<const float4 *>(x)[c];\n"
                                                  "            v += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;\n        }\n    } else\n" + LOOP.replace("\n    ", "\n        ").replace("    for", "        for", 1))],
    "a_stretch_of_its_own_for_each_lane": [(LOOP, "    int chunk = (cols + 31) / 32;\n"
                                                  "    for (int c = lane * chunk; c < min(cols, (lane + 1) * chunk); c++)\n"
                                                  "        v += A[row * cols + c] * x[c];\n")],
    "two_columns_a_turn": [(LOOP, "    int c = lane;\n    for (; c + 32 < cols; c += 64)\n"
                                  "        v += A[row * cols + c] * x[c] + A[row * cols + c + 32] * x[c + 32];\n"
                                  "    if (c < cols)\n        v += A[row * cols + c] * x[c];\n")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{n: variant(KERNEL, *r) for n, (r, _) in WRONG.items()},
               **{n: variant(KERNEL, *r) for n, r in RIGHT.items()}}
    return compile_variant_pairs("matvec_warp", {  # each its own warp_sum, in one module
        name: re.sub(r"\bwarp_sum\b", f"warp_sum__{name}", text) for name, text in sources.items()})


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_matvec_warp_kernel(*kernels["solution"])
    assert verdict.passed is True
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(kernels, name):
    assert checker.check_matvec_warp_kernel(*kernels[name]).passed is True


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(kernels, name, monkeypatch):
    from helpers.exercises import common

    if name in ENDLESS:
        monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    verdict = checker.check_matvec_warp_kernel(*kernels[name])
    assert verdict.passed is False
    for field, words in WRONG[name][1].items():
        assert words in getattr(verdict, field), verdict


def test_the_stub_as_shipped_is_not_yet():
    verdict = checker.check_matvec_warp()
    assert verdict.passed is False
    assert verdict.problem.startswith("y is 0 everywhere")


# Mistakes the compiler refuses, each named from the simulator's record of g++'s first error.
DOES_NOT_COMPILE = {
    # blind audit AB (was 'does not compile. Hint: read the compiler's first error'): warp_sum
    # written as notebook 07's one-instruction count, __reduce_add_sync, on the float v
    "reduce_add_sync_on_a_float": ([("    for (int offset = 16; offset > 0; offset /= 2)\n" + SHUFFLE
                                     + "    return v;", "    return __reduce_add_sync(0xffffffff, v);")],
                                   {"problem": "line 9 gives __reduce_add_sync a float, v: it adds "
                                               "32-bit integers only",
                                    "hint": "v += __shfl_down_sync(0xffffffff, v, offset)"}),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name):
    assert_refused_and_named(checker.check_matvec_warp, "matvec_warp", name, *DOES_NOT_COMPILE[name])
