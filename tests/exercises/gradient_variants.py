"""The gradient exercise's variants for tests/exercises/test_gradient.py: the solution, the
known-wrong kernels (WRONG: name -> (the replacements in the solution, pieces of the verdict that
name the mistake)), those checked on the simulator only (SIMULATOR_ONLY), the right ones written
another way (RIGHT) and the right but slow one (SLOW)."""

from kernel_sources import solution

KERNEL = solution("gradient.cu")
BARRIER = "    __syncthreads();                           // the whole window is in s\n"
HALO = KERNEL[KERNEL.index("    if (threadIdx.x == 0)"):KERNEL.index(BARRIER)]
GUARD = "    if (i >= n)\n        return;\n"
DIFF = "(s[j + 1] - s[j - 1])"

# name: (replacements in the solution, words the NOT YET line must contain)
WRONG = {
    "no_barrier": ([(BARRIER, "")], ["data race on s[", "__syncthreads()"]),
    # audit E (E28): the halo stored by every thread, its ifs left out
    "halo_without_its_ifs": ([("    if (threadIdx.x == 0)                      // the halo, one input on "
                               "either side\n        s[0]", "    s[0]"),
                              ("    if (threadIdx.x == blockDim.x - 1)\n        s[blockDim.x + 1]",
                               "    s[blockDim.x + 1]")],
                             ["data race on s[0]", "several threads stored the halo s[0]",
                              "if (threadIdx.x == 0)"]),
    # blind audit TIA-gradient-1: the thread's input stored at s[threadIdx.x], the left halo's
    # slot forgotten (was '1000 of 1000 outputs are wrong (the first is out[0]): ... Hint: out[i]
    # = (s[j + 1] - s[j - 1]) * 0.5f, where s[j] holds in[i]; ...', silent on the store)
    "input_stored_at_threadIdx_x": ([("s[j] = in[clamp_index(i, n)];",
                                      "s[threadIdx.x] = in[clamp_index(i, n)];")],
                                    ["each thread stored its input at s[threadIdx.x], one slot "
                                     "left of s[j] = s[threadIdx.x + 1]", "s[0], the left halo",
                                     "Hint: s[0] is the left halo, so in[i] goes one slot on: "
                                     "s[j] = in[clamp_index(i, n)]"]),
    # blind audit AF (was 'every output is 0: nothing is computed yet, or it is multiplied by a
    # factor that is 0'): the window declared int, each input cut to a whole number into s
    "window_declared_int": ([("extern __shared__ float s[];", "extern __shared__ int s[];")],
                            ["s is declared int (extern __shared__ int s[])",
                             "Hint: s holds in's floats: declare it extern __shared__ float s[]"]),
    "no_halo": ([(HALO, "")], ["first or last element of a block: the halo", "s[0] ="]),
    "halo_not_clamped": ([("in[clamp_index(i - 1, n)]", "in[i - 1]"),
                          ("in[clamp_index(i + 1, n)]", "in[i + 1]")],
                         ["at the ends of the array", "clamp the halo"]),
    # blind audit AB (was '1 of 1000 outputs are wrong (the first is out[0]), at the ends of
    # the array: the halo read outside it ... Hint: clamp the halo ...', where no load read
    # outside it): the halo's load guarded by i > 0, so block 0's s[0] is never stored
    "halo_skipped_at_the_start": ([("    if (threadIdx.x == 0)                      // the halo, one "
                                    "input on either side\n        s[0] = in[clamp_index(i - 1, n)]",
                                    "    if (threadIdx.x == 0 && i > 0)\n        s[0] = in[i - 1]")],
                                  ["1 of 1000 outputs are wrong (the first is out[0]): thread 0 "
                                   "of block 0 did not load s[0], the left halo",
                                   "so out[0] read a shared element no thread stored",
                                   "a condition on the load skips it there",
                                   "Hint: the halo is loaded at the array's ends too, clamped "
                                   "(in[-1] is in[0])"]),
    # its mirror: the right halo's load guarded by i + 1 < n, missing where n fills its blocks
    "halo_skipped_at_the_end": ([("    if (threadIdx.x == blockDim.x - 1)\n        s[blockDim.x + 1] "
                                  "= in[clamp_index(i + 1, n)]", "    if (threadIdx.x == "
                                  "blockDim.x - 1 && i + 1 < n)\n        s[blockDim.x + 1] = "
                                  "in[i + 1]")],
                                ["1 of 1024 outputs are wrong (the first is out[1023]): thread "
                                 "127 of block 7 did not load s[blockDim.x + 1], the right halo",
                                 "(in[n] is in[n - 1])"]),
    # blind audit AI (was '... data race on s[2] ... with no barrier between the two ...',
    # one being there): the barrier inside the right halo's if, reached by the block's last thread
    "barrier_inside_the_halo_s_if": ([("    if (threadIdx.x == blockDim.x - 1)\n        s[blockDim.x + 1] "
                                       "= in[clamp_index(i + 1, n)];\n" + BARRIER,
                                       "    if (threadIdx.x == blockDim.x - 1) {\n        s[blockDim.x + 1] "
                                       "= in[clamp_index(i + 1, n)];\n    " + BARRIER + "    }\n")],
                                     ["the __syncthreads() at line ", "is inside if (threadIdx.x == "
                                      "blockDim.x - 1)", "so it holds the others back from nothing",
                                      "thread 0 of block 0 reads s[2] at line ",
                                      "Hint: every thread of the block must reach each __syncthreads(): "
                                      "take it out of the if"]),
    "return_before_loading": ([(GUARD, ""), ("    int j =", GUARD + "    int j =")],
                              ["the last alone", "return after the barrier"]),
    # blind audit TAAA-gradient-1 (was '1 of 1000 outputs are wrong (the first is out[999]),
    # the last alone: its right neighbour, loaded by the thread after it, is missing ... Hint:
    # ... return after the barrier, not before the loads', where the return was after it): the
    # store's guard off by one, 'the last index is n - 1'
    "guard_skips_the_last": ([(GUARD + "    out[i]", "    if (i >= n - 1)\n        return;\n"
                               "    out[i]")],
                             ["out[999], the last output (i = n - 1), was never written: every "
                              "other output is right", "the store's guard skips i = n - 1 "
                              "(thread 103 of block 7) too", "Hint: the last index, n - 1, has an output "
                              "too: return only for i past it, if (i >= n) return;"]),
    # blind audit TFA-gradient-1: a zero loaded past n, block_mean's habit, where the clamped
    # last element belongs (was '... the last alone: its right neighbour, loaded by the thread
    # after it, is missing ... Hint: ... return after the barrier, not before the loads')
    "zero_loaded_past_n": ([("s[j] = in[clamp_index(i, n)];", "s[j] = i < n ? in[i] : 0.0f;")],
                           ["1 of 1000 outputs are wrong (the first is out[999]): its right "
                            "neighbour, loaded by the thread after it (i = n, past the end), is 0",
                            "in[min(i, n - 1)]"]),
    # blind audit P13 (was '1 of 1024 outputs are wrong (the first is out[1023]), the last alone:
    # ... Hint: ... return after the barrier, not before the loads'): clamp_index given n - 1
    "right_halo_clamped_to_n_minus_2": ([("in[clamp_index(i + 1, n)]",
                                          "in[clamp_index(i + 1, n - 1)]")],
                                        ["the last block's right halo, s[blockDim.x + 1], held "
                                         "in[n - 2], not in[n - 1]", "came out 0",
                                         "clamp_index takes the size"]),
    # blind audit R13 (was 'the kernel crashed: block (0, 0, 0), thread (127, 0, 0): a write,
    # extern __shared__ array ... Hint: every index into in is clamped (clamp_index), s has
    # blockDim.x + 2 floats, ...'): the window's size taken as its last index
    "right_halo_one_slot_too_far": ([("s[blockDim.x + 1] = in[", "s[blockDim.x + 2] = in[")],
                                    ["the right halo went to s[blockDim.x + 2], one past the "
                                     "window's end: its last slot is s[blockDim.x + 1]",
                                     "Hint: s[0] to s[blockDim.x + 1]"]),
    # blind audit TYA-gradient-1 (was '1 of 1000 outputs are wrong (the first is out[0]), at
    # the ends of the array: the halo read outside it ... Hint: clamp the halo: thread 0 loads
    # s[0] = in[clamp_index(i - 1, n)] ...', the halo loads the learner had right): Python's
    # in[-1], clamp_index sending a negative index to n - 1
    "clamp_wraps_negative_to_the_last": ([("return i < 0 ? 0 :", "return i < 0 ? n - 1 :")],
                                         ["out[0] read in[999], the array's last element, as "
                                          "its left neighbour, not in[0]",
                                          "index -1 wrapped around to n - 1",
                                          "Hint: the gradient clamps at the ends: in "
                                          "clamp_index(i, n) a negative index goes to 0 (i < 0 "
                                          "? 0 : ...)"]),
    # its mirror: an index past the end wrapped to 0 (was '... the last alone: its right
    # neighbour, loaded by the thread after it, is missing ... return after the barrier')
    "clamp_wraps_past_the_end_to_0": ([("(i >= n ? n - 1 : i)", "(i >= n ? 0 : i)")],
                                      ["out[999] read in[0], the array's first element, as its "
                                       "right neighbour, not in[999]",
                                       "an index past the end goes to the last (i >= n ? n - 1 "
                                       ": i)"]),
    "stores_into_the_next": ([("    out[i] =", "    out[i + 1] =")], ["one too far", "out[i]"]),
    "sign_turned": ([(DIFF, "(s[j - 1] - s[j + 1])")], ["the sign is turned"]),
    "not_halved": ([(" * 0.5f;", ";")], ["twice too large: the centre difference was not "
                                         "halved", "* 0.5f"]),
    "static_array_too_small": ([("extern __shared__ float s[];", "__shared__ float s[130];")],
                               ["past the size it was declared with", "extern __shared__"]),
    # audit B: each named as itself
    "clamp_lets_n_through": ([("(i >= n ? n - 1 : i)", "(i > n ? n - 1 : i)")],
                             ["the clamp lets i == n through", "i >= n ? n - 1"]),
    # blind audit TJA-gradient-1 (was '... from in[n], past the end: the clamp lets i == n
    # through ... Hint: clamp every index i >= n to the last: i >= n ? n - 1 : i', blaming the
    # clamp, which was right): the thread's own load left unclamped
    "own_load_unclamped": ([("s[j] = in[clamp_index(i, n)];", "s[j] = in[i];")],
                           ["s[j] = in[i] loads without clamp_index", "in[1000] to in[1023]",
                            "s[j] = in[clamp_index(i, n)]"]),
    "window_without_the_halo_slot": ([("int j = threadIdx.x + 1;", "int j = threadIdx.x;")],
                                     ["s[-1]", "s[0] is the halo", "j = threadIdx.x + 1"]),
    "integer_half": ([(" * 0.5f;", " * (1 / 2);")],
                     ["every output is 0", "1 / 2 is integer division", "0.5f"]),
    # audit B (second round): the right halo loaded by no thread, or into the last input's slot
    # blind audit TNA-gradient-1 (was '7 of 1000 outputs are wrong (the first is out[127]), all
    # at the first or last element of a block: the halo ... Hint: thread 0 loads s[0] = ... and
    # the block's last thread ...'): the warp's last lane, 31, taken for the block's last thread
    # blind audit TXA-gradient-1 (was '7 of 1000 outputs are wrong (the first is out[127]), all
    # at the first or last element of a block: the halo ... Hint: thread 0 loads s[0] = ...',
    # silent on which side): the right halo loaded from j + 1, the slot, not i + 1
    "right_halo_from_the_slot": ([("in[clamp_index(i + 1, n)]", "in[clamp_index(j + 1, n)]")],
                                 ["7 of 1000 outputs are wrong, each at a block's last thread",
                                  "s[blockDim.x + 1], the right halo, held in[129] in every block",
                                  "in[j + 1] with j = threadIdx.x + 1 = blockDim.x, its slot in s",
                                  "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]"]),
    "left_halo_from_the_slot": ([("in[clamp_index(i - 1, n)]", "in[clamp_index(j - 1, n)]")],
                                ["s[0], the left halo, held in[0] in every block",
                                 "s[0] = in[clamp_index(i - 1, n)]"]),
    "right_halo_by_thread_31": ([("threadIdx.x == blockDim.x - 1", "threadIdx.x == 31")],
                                ["the right halo s[blockDim.x + 1] = s[129] was loaded by thread "
                                 "31 (threadIdx.x == 31), not by the block's last thread, "
                                 "threadIdx.x == blockDim.x - 1 = 127",
                                 "if (threadIdx.x == blockDim.x - 1)"]),
    "right_halo_by_no_thread": ([("threadIdx.x == blockDim.x - 1", "threadIdx.x == blockDim.x")],
                                ["7 of 1000 outputs are wrong, each at a block's last thread",
                                 "no thread loaded the right halo, s[blockDim.x + 1]",
                                 "threadIdx.x runs from 0 to blockDim.x - 1",
                                 "threadIdx.x == blockDim.x - 1"]),
    # blind audit AQ (was '... the right halo s[blockDim.x + 1] = s[129] was loaded by thread
    # 125 (threadIdx.x == 125), not by the block's last thread ...', the condition being right):
    # the right halo's line copied from the left one, in[i - 1] kept
    "right_halo_copied_minus": ([("s[blockDim.x + 1] = in[clamp_index(i + 1, n)]",
                                  "s[blockDim.x + 1] = in[clamp_index(i - 1, n)]")],
                                ["7 of 1000 outputs are wrong, each at a block's last thread",
                                 "the block's last thread loaded the right halo, s[blockDim.x + "
                                 "1], from in[i - 1], its left neighbour, where in[i + 1] belongs",
                                 "came out 0",
                                 "Hint: the right halo is the right neighbour, i + 1: "
                                 "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]"]),
    # its mirror: the left halo's line copied from the right one, in[i + 1] kept
    "left_halo_copied_plus": ([("s[0] = in[clamp_index(i - 1, n)]",
                                "s[0] = in[clamp_index(i + 1, n)]")],
                              ["8 of 1000 outputs are wrong, each at a block's first thread",
                               "the block's first thread loaded the left halo, s[0], from "
                               "in[i + 1], its right neighbour, where in[i - 1] belongs",
                               "Hint: the left halo is the left neighbour, i - 1: s[0] = "
                               "in[clamp_index(i - 1, n)]"]),
    "right_halo_in_the_last_slot": ([("s[blockDim.x + 1] =", "s[blockDim.x] =")],
                                    ["stored the right halo in s[blockDim.x]",
                                     "the thread before it read in[i + 2]",
                                     "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]"]),
    # audit 2: the right halo clamped to n, not n - 1 (in[n] read where n fills its blocks)
    "right_halo_min_n": ([("s[blockDim.x + 1] = in[clamp_index(i + 1, n)]",
                           "s[blockDim.x + 1] = in[min(i + 1, n)]")],
                         ["1 of 1024 outputs are wrong", "the right halo from in[n]",
                          "clamped to n, not n - 1", "in[clamp_index(i + 1, n)]"]),
    # mutation audit: the halos from other offsets or threads, the difference over other
    # neighbours or scaled, the result never stored (mistake models, after the detectors above)
    "left_halo_from_its_own_input": ([("s[0] = in[clamp_index(i - 1, n)]",
                                       "s[0] = in[clamp_index(i, n)]")],
                                     ["s[0], the left halo, held in[start], the block's first "
                                      "input, not in[start - 1]", "each at a block's first thread",
                                      "thread 0 (i == start) loads s[0] = in[clamp_index(i - 1, n)]"]),
    "right_halo_by_thread_0": ([("threadIdx.x == blockDim.x - 1", "threadIdx.x == 0")],
                               ["s[blockDim.x + 1], the right halo, held in[start + 1], thread "
                                "0's right neighbour, not in[start + blockDim.x]",
                                "the block's last thread, threadIdx.x == blockDim.x - 1, loads"]),
    # blind audit TA1 (was '7 of 1000 outputs are wrong (the first is out[127]), all at the
    # first or last element of a block: the halo ... Hint: thread 0 loads s[0] = ... and the
    # block's last thread ...'): i taken for the block's start in the right halo's index
    "right_halo_a_block_on": ([("s[blockDim.x + 1] = in[clamp_index(i + 1, n)];",
                                "s[blockDim.x + 1] = in[clamp_index(i + blockDim.x, n)];")],
                              ["s[blockDim.x + 1], the right halo, held in[i + blockDim.x], the "
                               "next block's last input, not in[i + 1]",
                               "7 of 1000 outputs are wrong, each at a block's last thread",
                               "the block's last thread's i is start + blockDim.x - 1",
                               "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]"]),
    "left_halo_in_the_first_slot": ([("s[0] =", "s[1] =")],
                                    ["thread 0 stored the left halo in s[1]",
                                     "the thread after it read in[i - 2]",
                                     "s[0] = in[clamp_index(i - 1, n)]"]),
    "left_halo_only_in_block_0": ([("if (threadIdx.x == 0)", "if (i == 0)")],
                                  ["s[0], the left halo, was read before any thread of its block "
                                   "loaded it", "thread 0 of each block, threadIdx.x == 0"]),
    "backward_difference": ([(DIFF, "(s[j] - s[j - 1])")],
                            ["the difference is taken over in[i] - in[i - 1]",
                             "(s[j + 1] - s[j - 1]) * 0.5f"]),
    # blind audit T13 (was '1000 of 1000 outputs are wrong (the first is out[0]): out[0] was
    # stored by thread (0, 0, 0) ... loaded in[0] and s[2] and s[1] ... Hint: out[i] = ...'):
    # the np.diff habit, a one-sided difference not halved
    "forward_difference_not_halved": ([(DIFF + " * 0.5f", "s[j + 1] - s[j]")],
                                      ["a one-sided difference, forward: s[j + 1] - s[j]",
                                       "as np.diff takes it, and not halved",
                                       "the gradient is the centre difference",
                                       "(s[j + 1] - s[j - 1]) * 0.5f"]),
    "backward_difference_not_halved": ([(DIFF + " * 0.5f", "s[j] - s[j - 1]")],
                                       ["a one-sided difference, backward: s[j] - s[j - 1]",
                                        "the gradient is the centre difference"]),
    "neighbours_added": ([(DIFF, "(s[j + 1] + s[j - 1])")],
                         ["the neighbours are added", "(s[j + 1] - s[j - 1]) * 0.5f"]),
    "divided_by_a_half": ([(" * 0.5f;", " / 0.5f;")],
                          ["every output is 4 times the right one", "multiplied by 2, not halved"]),
    # audit I13: operator precedence, only the left neighbour halved
    "left_neighbour_halved": ([(DIFF + " * 0.5f", "s[j + 1] - s[j - 1] * 0.5f")],
                              ["the difference is not halved, only the left neighbour is",
                               "put the difference in parentheses: out[i] = (s[j + 1] - "
                               "s[j - 1]) * 0.5f"]),
    "result_never_stored": ([("    out[i] =", "    float g =")],
                            ["out was never written", "out[i] = (s[j + 1] - s[j - 1]) * 0.5f"]),
    # audit E (E30): the neighbours read at threadIdx.x, not j: s[threadIdx.x - 1] for thread 0
    # is s[4294967295] (threadIdx.x is unsigned), 16 GiB past s, once named a wild pointer
    "difference_at_the_thread_index": ([(DIFF, "(s[threadIdx.x + 1] - s[threadIdx.x - 1])")],
                                       ["a read of s[4294967295]",
                                        "the index is -1 wrapped around as an unsigned int",
                                        "threadIdx.x - 1 for thread 0", "j = threadIdx.x + 1"]),
    # audit 3b: the window loaded, but the output from global memory, its indices unclamped
    # blind audit X25 (was 'the kernel failed on the simulator: ... a read of s[130] ... Hint: s
    # has 130 elements, ... check that index against that size'): j's +1 added again
    "halo_offset_added_twice": ([(DIFF, "(s[j + 2] - s[j])")],
                                ["read s[130], past the window's 130 floats, two slots past its "
                                 "own input's s[j] = s[128]: a neighbour was read at s[j + 2]",
                                 "j = threadIdx.x + 1 already holds the +1 past the halo",
                                 "(s[j + 1] - s[j - 1]) * 0.5f"]),
    # the same in a static window with room past its end, as a GPU's shared memory has: the
    # outputs (each block's last, which reads the room's garbage, aside) name it
    "halo_offset_added_twice_with_room": ([(DIFF, "(s[j + 2] - s[j])"),
                                           ("extern __shared__ float s[];",
                                            "__shared__ float s[1027];")],
                                          ["every output is (in[i + 2] - in[i]) / 2, s[j + 2] - "
                                           "s[j]", "already holds the +1 past the halo"]),
    # blind audit AD (was 'the kernel crashed: block (1, 0, 0), thread (3, 0, 0): a read at
    # gradient.cu:26, extern __shared__ array ... Hint: every index into in is clamped ...'): the
    # neighbours indexed with i, the element's global index, not the slot j
    "neighbours_at_the_global_index": ([(DIFF, "(s[i + 1] - s[i - 1])")],
                                       ["thread 3 of block 1 (i = 131) read s[132], past the end "
                                        "of the window's 130 floats", "indexed with i, the "
                                        "element's global index", "Hint: i indexes in, j indexes "
                                        "s: out[i] = (s[j + 1] - s[j - 1]) * 0.5f"]),
    # blind audit AQ (was 'the kernel crashed: block (1, 0, 0), thread (3, 0, 0): a write at
    # gradient.cu:18, extern __shared__ array ... Hint: every index into in is clamped ...'): the
    # window's slot taken from the global index, j = i + 1
    "slot_at_the_global_index": ([("int j = threadIdx.x + 1;", "int j = i + 1;")],
                                 ["thread 3 of block 1 (i = 131) wrote s[132], past the end of "
                                  "the window's 130 floats", "its input was stored at s[i + 1], "
                                  "indexed with i, the element's global index",
                                  "Hint: i indexes in, j indexes s: j = threadIdx.x + 1"]),
    # blind audit AE (was 'a data race on out[8] ... Hint: each thread stores only out[i]'): gridDim
    # for blockDim in the index, so the blocks overlap and out[184] on got no thread
    "grid_dim_for_block_dim": ([("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                 "int i = blockIdx.x * gridDim.x + threadIdx.x;")],
                               ["i = blockIdx.x * gridDim.x + threadIdx.x starts block b's "
                                "elements at b * 8 (gridDim.x", "elements 184 to 999 got no thread",
                                "Hint: blocks lie blockDim.x elements apart",
                                "i = blockIdx.x * blockDim.x + threadIdx.x"]),
    "neighbours_from_global_unclamped": ([(DIFF, "(in[i + 1] - in[i - 1])")],
                                         ["read its neighbours from global memory",
                                          "read both neighbours from s"]),
    # blind audit AR (was the race on s[0], silent on the =): the halo's test assigns j = 1
    "halo_test_assigns": ([("if (threadIdx.x == 0)", "if (j = 1)")],
                          [", j = 1, assigns where it should compare: it stores 1 in j", "Hint: compare with ==, which leaves j as it is: j == 1"]),
}
# The simulator only: on a GPU an index past a shared array's end may be an illegal address.
SIMULATOR_ONLY = {"grid_dim_for_block_dim": "the race between blocks is the simulator's race "
                                            "check's; a GPU runs it unchecked",
                  "barrier_inside_the_halo_s_if": "a barrier that only the block's last thread "
                                                  "reaches: a GPU may hang there",
                  "static_array_too_small": "an overrun of shared memory may break the GPU's "
                                            "context",
                  "window_without_the_halo_slot": "a read before a shared array's start may be "
                                                  "an illegal address on a GPU",
                  "difference_at_the_thread_index": "s[4294967295] is an illegal address on a "
                                                    "GPU",
                  "right_halo_one_slot_too_far": "a write past the launch's shared memory: "
                                                 "on a GPU it may land unnoticed, and "
                                                 "s[blockDim.x + 1] hold garbage",
                  "slot_at_the_global_index": "a write past the launch's shared memory: "
                                              "on a GPU it may land unnoticed",
                  "neighbours_at_the_global_index": "a read past the launch's shared "
                                                    "memory: on a GPU it may read garbage "
                                                    "unnoticed",
                  "halo_offset_added_twice": "a read past the launch's shared memory: on a GPU "
                                             "it may read garbage unnoticed",
                  "right_halo_by_no_thread": "s[blockDim.x + 1], never loaded, holds garbage on "
                                             "a GPU: maybe what an earlier launch left there",
                  **dict.fromkeys(("left_halo_in_the_first_slot", "left_halo_only_in_block_0",
                                   "halo_skipped_at_the_start", "halo_skipped_at_the_end"),
                                  "s[0], never loaded, holds garbage on a GPU")}
# Right, not the solution's way: each must pass and be FAST
RIGHT = {
    "halo_by_threads_0_and_1": [("if (threadIdx.x == blockDim.x - 1)\n"
                                 "        s[blockDim.x + 1] = in[clamp_index(i + 1, n)];",
                                 "if (threadIdx.x == 1)\n        s[blockDim.x + 1] = "
                                 "in[clamp_index(blockIdx.x * blockDim.x + blockDim.x, n)];")],
    "window_loaded_in_a_loop": [(HALO, ""), (
        "    s[j] = in[clamp_index(i, n)];\n",
        "    for (int k = threadIdx.x; k < blockDim.x + 2; k += blockDim.x)\n"
        "        s[k] = in[clamp_index(blockIdx.x * blockDim.x - 1 + k, n)];\n")],
    "store_inside_an_if": [(GUARD, ""), ("    out[i] =", "    if (i < n)\n        out[i] =")],
    # the threads past n return after the loads, before the barrier: a barrier waits for every
    # thread that has not returned (notebooks 06 and 09; PTX's exit releases a barrier that only
    # exited threads hold up). Blind audit AC had it named; blind audit AM found that against
    # the course's rule, as reverse_blocks' early_return and reverse_chunks' break are right
    "return_before_the_barrier": [(BARRIER + GUARD, GUARD + BARRIER)],
}
# Right but slow: the neighbours read from global memory
SLOW = {"neighbours_from_global_memory": [
    (DIFF, "(in[clamp_index(i + 1, n)] - in[clamp_index(i - 1, n)])")]}
