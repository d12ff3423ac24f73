"""The block_mean exercise's variants for tests/exercises/test_block_mean.py: the solution, the
solution with each planted bug put back (BUG, WITH_BUGS), the right kernels written another way
(RIGHT), and those with the planted bugs fixed but wrong in another way (WRONG; SIMULATOR_ONLY,
those whose verdict holds on the simulator alone)."""

from block_mean_tree_variants import TREE, TREE_WRONG
from kernel_sources import solution

from helpers.backend import BACKEND

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
ATOMIC_MEAN = (BUG[1][0] + BUG[2][0] + "\n    if (t == 0) {\n" + BUG[3][0] + "    }\n",  # means[b] zeroed by thread 0,
               "    if (t == 0)\n        means[blockIdx.x] = 0.0f;\n    __syncthreads();\n"  # a barrier, atomicAdds
               "    if (i < n)\n        atomicAdd(&means[blockIdx.x], x[i] / count);\n")
# Right, but not the solution's way: each must pass
RIGHT = {
    "the_mean_added_atomically": [ATOMIC_MEAN],
    "a_tree_in_shared_memory": [TREE],
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
# Kernels whose planted bugs are fixed but which are wrong in another way: (replacements, words)
WRONG = {
    # FIX 2 written without its parentheses: named before the planted bugs' verdict (which said
    # bug 2 was still there, by the race it leaves)
    "fix_2_without_parentheses": ([(BUG[2][0], BUG[2][0].replace("__syncthreads();",
                                                                 "__syncthreads;"))],
                                  ["is never called", "__syncthreads();"]),
    # blind audit TJA-block_mean-1 (was 'means[0] = -0.00736..., but the mean of that block is
    # -0.02878... Hint: add up tile[0] to tile[count - 1] and divide by count'): divided by n
    "divides_by_n": ([("means[blockIdx.x] = sum / count;", "means[blockIdx.x] = sum / n;")],
                     ["each block's mean is its sum divided by n = 1000, the whole array's "
                      "length", "divide by count, the elements the block has: means[blockIdx.x] "
                      "= sum / count"]),
    "divides_by_block": ([("means[blockIdx.x] = sum / count;", "means[blockIdx.x] = sum / BLOCK;")],
                         ["the last block's mean is its sum divided by 256",
                          "divide by count, the elements the block has, not by BLOCK"]),
    # blind audit TEA-block_mean-1: the count without the block's start, min(BLOCK, n) (was 'the
    # last block's mean is its sum divided by 256, but it has only 232 elements ... Hint: divide
    # by count, the elements the block has, not by BLOCK', which the kernel already did)
    # blind audit TRA-block_mean-1: the parenthesis closed before - first (was 'means[1] = nan,
    # but the mean of that block is 0.0732... Hint: add up tile[0] to tile[count - 1] and divide
    # by count', silent on the count line)
    "count_first_outside_the_min": ([("int count = min(BLOCK, n - first);",
                                      "int count = min(BLOCK, n) - first;")],
                                    ["the count came out min(BLOCK, n) - first",
                                     "256 - 256 = 0 in block 1", "means[1] = nan = 0 / 0",
                                     "256 - 512 = -256 in block 2",
                                     "take first away from n inside the min: int count = "
                                     "min(BLOCK, n - first);"]),
    "count_without_the_block_start": ([("int count = min(BLOCK, n - first);",
                                        "int count = min(BLOCK, n);")],
                                      ["the last block's mean is its sum divided by 256",
                                       "count = min(BLOCK, n) is 256 in every block",
                                       "with one block (n = 100) the mean is right",
                                       "count = min(BLOCK, n - first)"]),
    # blind audit TDA-block_mean-1: the sum stored in means, divided in y's line (was 'means[0] =
    # -7.368..., but the mean of that block is -0.0287... Hint: add up tile[0] to tile[count - 1]
    # and divide by count', silent on the / count in y's line)
    "sum_stored_divided_in_y": ([("means[blockIdx.x] = sum / count;", "means[blockIdx.x] = sum;"),
                                 ("y[i] = x[i] - means[blockIdx.x];",
                                  "y[i] = x[i] - means[blockIdx.x] / count;")],
                                ["means[0] = -7.36829 is block 0's sum, 256 times its mean",
                                 "y is right: it divides by count",
                                 "means[blockIdx.x] = sum / count, and y[i] = x[i] - "
                                 "means[blockIdx.x], with no / count"]),
    # blind audit TKA-block_mean-1 (was 'every element of y has the wrong sign ... Hint: check
    # each number the formula multiplies or divides by: ... int divided by an int ... ^ ...')
    # blind audit TXA-block_mean-1 (was 'the kernel failed in the launch that looks for bug 2
    # ..., on a mistake that is not one of the planted bugs: a data race on y[256] ... Hint: two
    # threads store into the same element ...: check its indices and the loops' steps'): first
    # taken as the thread's first element, so i = first + t counts t twice
    "first_counts_the_thread": ([("int first = blockIdx.x * BLOCK;",
                                  "int first = blockIdx.x * BLOCK + t;")],
                                ["each thread's element came out i = blockIdx.x * 256 + 2 * t, "
                                 "t counted twice", "thread 128 of block 0 and thread 0 of "
                                 "block 1 both stored y[256]", "odd elements of y",
                                 "first is the block's first element, the same for all its "
                                 "threads: int first = blockIdx.x * BLOCK; then i = first + t"]),
    "subtraction_reversed": ([("y[i] = x[i] - means[blockIdx.x];",
                               "y[i] = means[blockIdx.x] - x[i];")],
                             ["every element of y is its block's mean minus x[i]",
                              "the subtraction is the wrong way round",
                              "Hint: y[i] = x[i] - means[blockIdx.x]"]),
    "adds_the_mean": ([("y[i] = x[i] - means[blockIdx.x];", "y[i] = x[i] + means[blockIdx.x];")],
                      "y is wrong: y[0] ="),
    "barrier_inside_the_if": ([(BUG[2][0], ""), ("    if (t == 0) {\n",
                                                  "    if (t == 0) {\n        __syncthreads();\n")],
                              ["thread 0 of block 0 waits at the __syncthreads() at line ",
                               ", inside if (t == 0), and thread 1 at the one at line ",
                               "Hint: take the __syncthreads() at line ",
                               "out of the if: put it right before the if"]),
    # blind audit AN (was '... a data race on means[0] ... Hint: ... put a __syncthreads() between
    # the two, after thread 0's if', silent on the one the kernel has there): the barrier after
    # the mean's store moved into thread 0's if (t == 0), which the other threads skip
    "mean_barrier_inside_thread_0_s_if": ([("    }\n    __syncthreads();\n",
                                            "        __syncthreads();\n    }\n")],
                                          ["data race on means[0] (global memory)",
                                           "with no barrier between them that it waits at: the "
                                           "__syncthreads() at line ", "is inside if (t == 0), "
                                           "which thread 1 of block 0 skips",
                                           "Hint: take that __syncthreads() out of the if: put it "
                                           "right after the if's closing brace"]),
    # blind audit AN (was '... thread (1, 0, 0) ... waits at a __syncthreads() that other threads
    # of its block never reach ... Hint: every thread of the block that has not returned must
    # reach the same __syncthreads() ...', which pointed at the right one): one kept in thread
    # 0's if (t == 0) besides the one after it
    "barrier_kept_in_thread_0_s_if": ([("    }\n    __syncthreads();\n",
                                        "        __syncthreads();\n    }\n    __syncthreads();\n")],
                                      ["thread 0 of block 0 waits at the __syncthreads() at line ",
                                       ", inside if (t == 0), and thread 1 at the one at line ",
                                       "two different barriers",
                                       "Hint: delete the __syncthreads() at line ",
                                       "right after the if's closing brace, already holds"]),
    # issue 28: each named as itself, not as a planted bug, and with a hint that fixes it
    "no_barrier_before_reading_the_mean": (
        [("    }\n    __syncthreads();\n", "    }\n")],
        ["data race on means[0] (global memory)", "not one of the planted bugs",
         "__syncthreads() between"]),
    # blind audit AL (was '... a data race on means[0] ... Hint: ... put a __syncthreads() between the
    # two, after thread 0's if', which it had): the mean read into a register above that barrier
    "mean_read_above_the_barrier": ([("    }\n    __syncthreads();\n", "    }\n    float mean = means["
                                      "blockIdx.x];\n    __syncthreads();\n"),
                                     ("y[i] = x[i] - means[blockIdx.x];", "y[i] = x[i] - mean;")],
                                    ["data race on means[0] (global memory)", "above the "
                                     "__syncthreads() at line ", "Hint: move the read of "
                                     "means[blockIdx.x] below the __syncthreads()"]),
    # y indexed by the thread alone: every block stores y[0..255], a race, but not on means
    "y_by_the_thread": ([("y[i] = x[i] - means[blockIdx.x];", "y[t] = x[i] - means[blockIdx.x];")],
                        ["data race on y[", "two threads store into the same element"]),
    "tile_declared_too_small": ([("__shared__ float tile[BLOCK];", "__shared__ float tile[BLOCK / 2];")],
                                ["past the size it was declared with", "declared"]),
    # blind audit AB (was 'means[0] = -6.62e+35, but the mean of that block is -0.0287...
    # Hint: add up tile[0] to tile[count - 1] and divide by count', which the kernel did): bug 3
    # fixed with a local sum never set to 0, the planted bug's 'whatever was there' again
    "sum_never_set_to_0": ([("float sum = 0.0f; ", "float sum;      ")],
                           ["sum (declared at line ", ") is read before anything is stored in it",
                            # on a GPU the sum may come out right by luck, and the verdict says so
                            *(["bug 3's mistake again, in a local",
                               "Hint: give sum a value where it is declared, before the loop adds "
                               "to it: float sum = 0.0f;"] if BACKEND == "simulator" else
                              ["Hint: give sum a value where it is declared"])]),
    # blind audit AC (was 'the kernel failed in the launch that looks for bug 2 ..., on a mistake
    # that is not one of the planted bugs: a data race on means[0] ... Hint: ... check its indices
    # and the loops' steps'): bug 3's start at 0 stored by every thread, outside thread 0's if
    "mean_started_by_every_thread": ([("    if (t == 0) {\n", "    means[blockIdx.x] = 0.0f;\n"
                                       "    if (t == 0) {\n"), (BUG[3][0], BUG[3][1])],
                                     ["a thread other than 0, thread (1, 0, 0) of block "
                                      "(0, 0, 0), stores means[0] at line ",
                                      "before thread 0's sum", "every thread of block 0 makes it",
                                      "Hint: start the mean at 0 in thread 0 alone"]),
    "int_sum": ([("float sum = 0.0f;", "int sum = 0;")],
                ["int", "float sum = 0.0f"]),
    # blind audit TPA-block_mean-1 (was '... indexed an array past the size it was declared with
    # (index 256) ... Hint: ... count is at most BLOCK: count = min(BLOCK, n - first), k < count
    # (not <=)', silent on the max the learner wrote): max for min in the count
    "count_by_max": ([("int count = min(BLOCK, n - first);", "int count = max(BLOCK, n - first);")],
                     ["thread 0 of block 0 read tile[256]", "the sum over 256, not over 100",
                      "the larger of BLOCK and n - first (max)", "int count = min(BLOCK, n - first);"]),
    # blind audit AP (opened with 'the kernel failed in the launch that looks for bug 1 ..., on
    # a mistake that is not one of the planted bugs'): the sum loop's k <= count named first
    "sum_one_past_count": ([("k < count; k++", "k <= count; k++")],
                           ["NOT YET: thread 0's sum loop ran one past the block's elements",
                            "read tile[256], past the tile's end", "as k <= count does",
                            "the mean came out right", "Hint: the block's elements are tile[0] to tile[count - 1]",
                            "k < count (not <=)"]),
    # the y store's guard, not the load's, reads x[n]: named as itself, not as bug 1
    "y_stored_up_to_n": ([("    if (i < n)\n        y[i]", "    if (i <= n)\n        y[i]")],
                         ["the line that stores y", "lets i = n through", "not i <= n"]),
    # blind audit TNA-block_mean-1 (was '... its guard lets i = n through ... not i <= n', a
    # guard the learner never wrote): the store of y with no guard at all
    "y_stored_unguarded": ([("    if (i < n)\n        y[i] = x[i] - means[blockIdx.x];",
                             "    y[i] = x[i] - means[blockIdx.x];")],
                           ["the line that stores y", "has no guard", "i = 1000 to 1023",
                            "y[1000] to y[1023] were written",
                            "Hint: guard the store as the load is: if (i < n)"]),
    # blind audit AN (was '... i = 1000 to 1023, read x[i] and write y[i] past both arrays ...',
    # where the line reads tile[t]): the store with no guard, of the tile's element
    "y_stored_unguarded_from_the_tile": ([("    if (i < n)\n        y[i] = x[i] - means[blockIdx.x];",
                                           "    y[i] = tile[t] - means[blockIdx.x];")],
                                         ["the line that stores y", "has no guard",
                                          "i = 1000 to 1023, write y[i] past y's end",
                                          "y[1000] to y[1023] were written",
                                          "Hint: guard the store as the load is: if (i < n) before "
                                          "the line that stores y[i]"]),
    # blind audit AE (was '... the line that stores y ... has no guard: ... Hint: guard the store as
    # the load is: if (i < n) ...', a guard there): the store guarded by t, the thread's place
    "y_store_guarded_by_the_thread": ([("    if (i < n)\n        y[i]", "    if (t < n)\n        y[i]")],
                                      ["the line that stores y", "is guarded by the thread's place "
                                       "in its block, t (0 to 255), which is always below n = 1000",
                                       "threads 232 to 255 of the last block (i = 1000 to 1023) "
                                       "pass it", "y[1000] to y[1023] were written",
                                       "Hint: guard the store with the element's index, as the "
                                       "load is: if (i < n)"]),
    # blind audit TFA-block_mean-1: the last block's count as n % BLOCK, < for <= (was 'means[2]
    # = nan, but the mean of that block is -0.125... Hint: add up tile[0] to tile[count - 1] and
    # divide by count'): 0 for a full last block (n = 768)
    "full_last_block_counted_0": ([("int count = min(BLOCK, n - first);",
                                    "int count = first + BLOCK < n ? BLOCK : n % BLOCK;")],
                                  ["means[2] = nan = 0 / 0: the last block is full (n = 768 = 3 * "
                                   "256), but its count came out 0",
                                   "count = min(BLOCK, n - first)", "first + BLOCK <= n"]),
    # blind audit THA-block_mean-1 (was 'means[3] = -0.2981..., but the mean of that block is
    # -0.2993... Hint: add up tile[0] to tile[count - 1] and divide by count'): one too many
    "count_one_too_many": ([("int count = min(BLOCK, n - first);",
                             "int count = min(BLOCK, n - first + 1);")],
                           ["means[3] = ", "the last, partial block's sum divided by 233, where "
                            "it has 232 elements", "count came out one too many",
                            "Hint: count the elements from the block's first: count = "
                            "min(BLOCK, n - first), with no + 1"]),
    # blind audit TOA-block_mean-1 (was 'means[0] = -0.02889..., but the mean of that block is
    # -0.02878... Hint: add up tile[0] to tile[count - 1] and divide by count'): NumPy's ddof=1
    "divided_by_count_less_1": ([("means[blockIdx.x] = sum / count;",
                                  "means[blockIdx.x] = sum / (count - 1);")],
                                ["each block's mean is its sum divided by count - 1", "means[0] = ",
                                 "block 0's sum divided by 255, where it has 256 elements",
                                 "Hint: the mean divides the sum by the number of elements: "
                                 "means[blockIdx.x] = sum / count"]),
    "count_not_capped": ([("int count = min(BLOCK, n - first);", "int count = n - first;")],
                         ["index 256", "count = min(BLOCK, n - first)"]),
    # bug 3 fixed, but the mean made by the grid's thread 0 alone: not named as bug 3
    "mean_by_thread_0_of_block_0": ([("    if (t == 0) {", "    if (i == 0) {")],
                                    ["not one of the planted bugs", "means[1] is read before",
                                     "only thread 0 of block 0 computed a mean", "if (t == 0)"]),
    "sum_from_first": ([("for (int k = 0; k < count; k++)", "for (int k = first; k < first + count; k++)")],
                       ["index 256", "tile holds the block's own elements", "k runs from 0"]),
    # blind audit N5 (was 'means[0] = 0.0006683043320663273, but the mean of that block is
    # -0.02878238819539547 ... Hint: add up tile[0] to tile[count - 1] and divide by count')
    "sum_by_block_stride": ([("for (int k = 0; k < count; k++)",
                              "for (int k = t; k < count; k += blockDim.x)")],
                            ["which is tile[0] / count, x[0] / 256", "added only tile[0]",
                             "for (int k = 0; k < count; k++)"]),
    # blind audit X9 and X10 (both were 'means[3] = ..., but the mean of that block is ...
    # Hint: add up tile[0] to tile[count - 1] and divide by count'): the load's guard one short,
    # and the sum started at tile[0]
    "load_guard_one_short": ([("tile[t] = i < n ? x[i] : 0.0f;", "tile[t] = i < n - 1 ? x[i] : 0.0f;")],
                             ["means[3] = ", "x[n - 1], the array's last element, counted as 0",
                              "i < n - 1", "tile[t] = i < n ? x[i] : 0.0f"]),
    "sum_from_tile_0": ([("float sum = 0.0f; ", "float sum = tile[0];")],
                        ["means[0] = ", "with tile[0] counted twice", "float sum = 0.0f"]),
    # blind audit TMA-block_mean-1 (was 'means[0] = -0.0294..., but the mean of that block is
    # -0.0287... Hint: add up tile[0] to tile[count - 1] and divide by count', silent on tile[0]):
    # the sum's loop from k = 1
    "sum_from_k_1": ([("for (int k = 0; k < count; k++)", "for (int k = 1; k < count; k++)")],
                     ["means[0] = ", "with tile[0], its first element x[0] = ", "left out of the "
                      "sum: the sum's loop starts at k = 1",
                      "Hint: add every element from tile[0] on: for (int k = 0; k < count; k++)"]),
    # blind audit TIA-block_mean-1: the sum added tile[t], thread 0's own element, count times
    # (was 'means[0] = 0.171..., but the mean of that block is -0.0287... Hint: add up tile[0] to
    # tile[count - 1] and divide by count', silent on tile[t])
    "sum_adds_tile_t": ([("sum += tile[k];", "sum += tile[t];")],
                        ["means[0] = 0.171", "x[0], block 0's first element",
                         "added tile[t], thread 0's own element tile[0], count times",
                         "Hint: add the element the loop is at: sum += tile[k]"]),
    "sum_reads_x": ([("sum += tile[k];", "sum += x[k];")],
                    ["the mean of block 0's elements", "sum += tile[k]"]),
    # blind audit TGA-block_mean-1: the load read x[t], not x[i], so every block loaded block
    # 0's elements (was 'means[1] = ..., the mean of block 0's elements x[0] to x[255]: the sum
    # read x[k], not the block's own elements ... Hint: ... sum += tile[k]', which it did)
    "load_reads_x_at_t": ([("tile[t] = i < n ? x[i] : 0.0f;", "tile[t] = i < n ? x[t] : 0.0f;")],
                          ["the mean of block 0's elements", "block 1's thread 1 loaded x[1] "
                           "into tile[1]", "not x[257]", "Hint: load the block's own element, "
                           "x[i]: tile[t] = i < n ? x[i] : 0.0f"]),
    # audit G9: the load guarded by the block's count, not n: blocks 1 and up load only zeros
    "load_guarded_by_count": ([("tile[t] = i < n ? x[i] : 0.0f;", "tile[t] = i < count ? x[i] : 0.0f;")],
                              ["means[1] to means[3] are 0", "loaded only zeros", "i < n ? x[i]"]),
    # audit 3: the sum and the store outside thread 0's if: every thread stores means[b]
    # blind audit T5 (was '2 of the 3 planted bugs fixed ...; still there: bug 1 (the bounds
    # guard), the bounds checks: block (3, 0, 0), thread (232, 0, 0): a read of x ... Hint: in
    # the last block the threads whose i is n or more still load x[i] into tile[]: guard that
    # load ...'): the guard tests the thread's place in the block, t, not i
    "load_guarded_by_the_thread": ([("tile[t] = i < n ? x[i] : 0.0f;", "tile[t] = t < n ? x[i] : 0.0f;")],
                                   ["the load's guard compared the thread's place in the block, t, "
                                    "with n", "thread 232 (block 3) has t = 232 < n while its "
                                    "element, i = 1000, is past x's end",
                                    "Hint: compare the element's index with n: tile[t] = i < n ? "
                                    "x[i] : 0.0f"]),
    # blind audit AG (was '... still there: bug 1 (the bounds guard) ... Hint: in the last block the
    # threads whose i is n or more still load x[i] into tile[] ...'): the load clamped to n, not n - 1
    "load_clamped_to_n": ([("tile[t] = i < n ? x[i] : 0.0f;", "tile[t] = x[min(i, n)];")],
                          ["threads 232 to 255 of the last block (block 3, i = 1000 to 1023) all read "
                           "x[1000] = x[n]", "one past x's last element, x[n - 1]",
                           "Hint: clamp to the last element, x[min(i, n - 1)]"]),
    "store_outside_the_if": ([("    if (t == 0) {\n        float sum = 0.0f;", "    float sum = 0.0f;\n    if (t == 0) {"),
                              ("        means[blockIdx.x] = sum / count;    // FIX 3\n    }",
                               "    }\n    means[blockIdx.x] = sum / count;")],
                             ["a data race on means[0]", "every thread of block 0 stored means[0]",
                              "if (t == 0)"]),
    # blind audit Z10 (was '... indexed an array past the size it was declared with (index 256)
    # ... Hint: block 1's thread 0 read tile[256] ... so k runs from 0 to count - 1'): the load
    # stores into the tile at the element's index over the whole array
    "tile_stored_at_i": ([("tile[t] = i < n ? x[i] : 0.0f;", "tile[i] = i < n ? x[i] : 0.0f;")],
                         ["block 1's thread 0 stored into tile[256]", "indexed by i",
                          "Hint: tile holds the block's own elements, one for each thread: "
                          "tile[t] = i < n ? x[i] : 0.0f"]),
    # blind audit Z9 (was '... a data race on means[0] ... Hint: two threads store into the same
    # element of the array ... check its indices'): the mean stored at the thread's index
    "mean_stored_at_t": ([("means[blockIdx.x] = sum / count;", "means[t] = sum / count;")],
                         ["a data race on means[0]", "block (1, 0, 0) writes it",
                          "Hint: thread 0 of each block stored its block's mean in means[0]",
                          "means[blockIdx.x] = sum / count"]),
    # blind audit AI (was '... on a mistake that is not one of the planted bugs: ... a write of
    # means[256] ... Hint: means has 4 elements ...: check that index against that size'): the
    # block's mean stored and read at means[first], the block's first element, not its number
    "mean_at_the_block_s_first_element": ([("means[blockIdx.x] = sum / count;", "means[first] = sum / count;"),
                                           ("y[i] = x[i] - means[blockIdx.x];", "y[i] = x[i] - means[first];")],
                                          ["means holds one mean a block, 4 here",
                                           "block 1 wrote its mean at means[256]",
                                           "the index of its first element, first = blockIdx.x * 256",
                                           "Hint: store and read the block's mean at its block's "
                                           "number: means[blockIdx.x] = sum / count"]),
    # blind audit TA-block_mean-1: a local sum taken as shared, y[i] = x[i] - sum / count, 0 in
    # every thread but thread 0 (was 'y is wrong: y[1] = 0.83..., NumPy's is 0.85... Hint: y[i] =
    # x[i] - means[blockIdx.x], after a barrier ...', silent on the pattern and on sum)
    "local_sum_read_by_every_thread": ([("    if (t == 0) {\n        float sum = 0.0f;",
                                         "    float sum = 0.0f;\n    if (t == 0) {"),
                                        ("y[i] = x[i] - means[blockIdx.x];",
                                         "y[i] = x[i] - sum / count;")],
                                       ["y[i] = x[i] in every thread but thread 0 of its block",
                                        "y[1] = 0.83", "each thread's own",
                                        "y[i] = x[i] - means[blockIdx.x]"]),
    # blind audit AK (was '... still there: bug 2 (the barrier), the race check: a data race on
    # sum[0] ... Hint: thread 0 reads every tile[k] ...'): bug 3 fixed by a shared sum that every
    # thread adds to with atomicAdd, with no barrier between thread 0's sum = 0.0f and the adds
    "shared_sum_zeroed_while_added": ([("    __shared__ float tile[BLOCK];\n", "    __shared__ float "
                                        "tile[BLOCK];\n    __shared__ float sum;\n"),
                                       (BUG[2][0] + "\n    if (t == 0) {\n" + BUG[3][0] + "    }\n",
                                        "    if (t == 0)\n        sum = 0.0f;\n    atomicAdd(&sum, "
                                        "tile[t]);\n    __syncthreads();\n    if (t == 0)\n"
                                        "        means[blockIdx.x] = sum / count;\n")],
                                      ["thread 0 of block 0 gives "
                                       "sum[0] its start value at line ", "while thread 1 of block 0 "
                                       "already adds into it atomically at line ",
                                       "Hint: every thread must see the start value before it adds",
                                       "a __syncthreads() between thread 0's store"]),
    "global_mean_zeroed_while_added": ([(ATOMIC_MEAN[0], ATOMIC_MEAN[1].replace("__syncthreads();\n", ""))], [  # blind audit AU
        "thread 0 of block 0 gives means[0] its start value at line ", "while thread 1 of block 0 already adds into it "
        "atomically at line ", "Hint: every thread must see the start value before it adds", "a __syncthreads() between"]),
    # blind audit AF (was 'means[3] = nan, but the mean of that block is -0.299... Hint: add up
    # tile[0] to tile[count - 1] ...', silent on the cause): FIX 1 as if (i < n) with no else, and
    # the sum over the whole tile, k < BLOCK, reading tile[232] to tile[255] that nothing stored
    "sum_over_the_unstored_tile": ([(BUG[1][0], "    if (i < n)\n        tile[t] = x[i];\n"),
                                    ("k < count;", "k < BLOCK;")],
                                   ["means[3] = nan", "thread 0 of block 3 read tile[232] in the "
                                    "sum", "which no thread of its block had stored (the init "
                                    "check", "threads 232 to 255 of block 3 (i >= n) store "
                                    "nothing in tile", "shared memory is not zeroed",
                                    "Hint: add up only the block's elements, for (int k = 0; k "
                                    "< count; k++)", "tile[t] = i < n ? x[i] : 0.0f"]),
    **TREE_WRONG,
}
# The simulator only: on a GPU these write past an array, or read what no thread stored
SIMULATOR_ONLY = {"mean_at_the_block_s_first_element": "means[256] written past its 4 elements: "
                                                       "undefined on a GPU",
                  "sum_over_the_unstored_tile": "tile[232] to tile[255] never stored: on a GPU "
                                                "they hold whatever was there, often 0"}
