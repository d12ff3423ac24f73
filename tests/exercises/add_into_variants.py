"""The add_into exercise's variants for tests/exercises/test_add_into.py: the solution (KERNEL),
the mistakes (WRONG: the replacement in the solution and the words the verdict's problem must
contain; HINTS, the words its hint must contain; SIMULATOR_ONLY, those whose verdict holds on the
simulator alone) and the kernels right in another way (RIGHT)."""

from kernel_sources import solution

KERNEL = solution("add_into.cu")
STRIDE = "int stride = gridDim.x * blockDim.x;"

# name: (the replacement in the solution, a piece of the verdict's problem: where several threads
# add to one element at once, a GPU may lose some of their additions, so not which element first)
WRONG = {
    "one_element_a_thread": (("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                              "i += stride)", "int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                              "    if (i < n)"),
                             "only the first 64 elements were added"),
    "body_indexes_the_start": (("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                                "i += stride)", "int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                "    for (int j = i; j < n; j += stride)"),
                               "only the first 64 elements were added to, each once a pass"),
    # blind audit X3 (was 'y[1000] and beyond were written, past y[n - 1] ... Hint: the loop must
    # stop at n'): a while loop with its step at the top of the body
    "stepped_before_use": (("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                            "i += stride)\n        y[i] += x[i];",
                            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "    while (i < n) {\n        i += stride;\n        y[i] += x[i];\n"
                            "    }"),
                           "y[0] to y[63], each thread's first element, were never added to, "
                           "and y[1000] to y[1063], past y[n - 1], were: the loop steps i before "
                           "it uses it"),
    # blind audit AE (was 'y[0] got x[0] added 2 times: threads visit the same elements ...
    # Hint: step by ... gridDim.x * blockDim.x', half the fix): a block-stride loop, which starts
    # at threadIdx.x and steps by blockDim.x, so every block walks all n elements
    "block_stride_loop": (("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                           "i += stride)", "for (int i = threadIdx.x; i < n; i += blockDim.x)"),
                          "each x[i] was added into y[i] 2 times, once by each block: the loop "
                          "starts at threadIdx.x and steps by blockDim.x"),
    "stride_of_a_block": ((STRIDE, "int stride = blockDim.x;"),
                          "times: threads visit the same elements: the loop steps by blockDim.x"),
    # blind audit AG (was 'y[32] got x[32] added 2 times: threads visit the same elements: the
    # loop steps by blockDim.x, a block's threads ...', silent on gridDim.y): gridDim.y, 1 in a
    # 1-D grid, where gridDim.x belongs in the stride
    "stride_from_grid_y": ((STRIDE, "int stride = blockDim.x * gridDim.y;"),
                           "times: threads visit the same elements: the stride int stride = "
                           "blockDim.x * gridDim.y; at line "),
    "stride_of_the_blocks": ((STRIDE, "int stride = gridDim.x;"),
                             "times: threads visit the same elements: the loop steps by gridDim.x"),
    # audit N2: the elements per thread taken for the step
    "stride_of_the_elements_per_thread": (
        (STRIDE, "int stride = n / (gridDim.x * blockDim.x);"),
        "times: threads visit the same elements: the loop steps by n / (gridDim.x * blockDim.x) "
        "= 15, the elements per thread"),
    # a step that is none of the launch's sizes
    "stride_of_a_warp_less_one": ((STRIDE, "int stride = 31;"),
                                  "the loop steps by 31, not by the grid's 64 threads"),
    # audit G3: range(start, n, stride) read as a loop stepping by 1
    "steps_by_one": (("i += stride)", "i++)"),
                     "times: threads visit the same elements: the loop steps by 1 (i++)"),
    # blind audit TGA-add_into-1 (was 'only the first 64 elements were added, one a thread: each
    # thread did one element, not all of its elements', as if there were no loop): blockDim.x
    # for gridDim.x, a stride of 1024, past n
    "stride_of_a_block_squared": ((STRIDE, "int stride = blockDim.x * blockDim.x;"),
                                  "only the first 64 elements were added, one a thread: the loop "
                                  "steps by 1024 = blockDim.x * blockDim.x (32 * 32), not by the "
                                  "grid's 64 threads"),
    "stride_too_long": ((STRIDE, "int stride = 2 * gridDim.x * blockDim.x;"),
                        "488 of 1000 elements were never added to (the first is y[64]): the loop "
                        "steps by 128, 2 times the grid's 64 threads, so each thread adds only "
                        "every second of its elements"),
    # blind audit TMA-add_into-1 (was '... the loop steps by 128, 2 times the grid's 64
    # threads ... Hint: step by the number of threads in the whole grid: stride = gridDim.x *
    # blockDim.x, with nothing multiplied', the stride as written): the for's step written again
    # at the end of its body
    "stepped_twice_a_turn": (("        y[i] += x[i];\n",
                              "    {\n        y[i] += x[i];\n        i += stride;\n    }\n"),
                             "488 of 1000 elements were never added to (the first is y[64]): the "
                             "loop steps i twice a turn, by the for's i += stride and again by "
                             "the i += stride; in its body"),
    # blind audit Z3 (was '744 of 1000 elements were never added to (the first is y[64]) ...
    # Hint: for (...; i += stride), with stride = gridDim.x * blockDim.x ...'): a stride in bytes
    "stride_in_bytes": ((STRIDE, "int stride = gridDim.x * blockDim.x * sizeof(float);"),
                        "744 of 1000 elements were never added to (the first is y[64]): the loop "
                        "steps by 256, 4 times the grid's 64 threads, so each thread adds only "
                        "every 4th of its elements (4 is sizeof(float): a stride in bytes"),
    "start_below_0": (("blockIdx.x * blockDim.x + threadIdx.x;", "blockIdx.x * blockDim.x - "
                                                                 "threadIdx.x;"),
                      "y[-31] to y[-1] were written, before y[0]"),
    "stores_into_the_one_before": (("y[i] += x[i];", "y[i - 1] += x[i];"),
                                   "y[-1] was written, before y[0]"),
    "adds_into_the_next": (("y[i] += x[i];", "y[i + 1] += x[i];"),
                           "each x[i] was added into y[i + 1]"),
    "no_bound": (("i < n;", "i <= n;"), "y[1000] and beyond were written"),
    # blind audit AB (was 'y[300] and beyond were written, past y[n - 1] ... Hint: the loop must
    # stop at n', which while (i < n) does): a do-while adds before its first test
    "do_while": (("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
                  "        y[i] += x[i];",
                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    do {\n"
                  "        y[i] += x[i];\n        i += stride;\n    } while (i < n);"),
                 "y[300] to y[639] were written, past y[n - 1], each by a thread whose start "
                 "was already n or more (the grid's 640 threads start at 0 to 639): do { ... } "
                 "while (i < n); runs its body once before its first test"),
    # blind audit TPA-add_into-1 (was '64 of 1000 elements were never added to (the first is
    # y[936]) ... Hint: for (...; i < n; ...)', the loop header restated): a while loop's habit
    # of looking one stride ahead
    "tests_one_stride_ahead": (("i < n; i += stride)", "i + stride < n; i += stride)"),
                               "the last 64 elements (y[936] to y[999]), the last one of each "
                               "thread, were never added to: the loop's test looks one stride "
                               "ahead"),
    # blind audit AO (was '24 of 1000 elements were never added to (the first is y[936]) ...
    # Hint: for (...; i < n; i += stride)', which undoes the speed-up): the loop unrolled by two,
    # i and i + stride while i + stride < n, with no tail for a thread's last lone element
    "unrolled_by_two_no_tail": (("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                                 "i += stride)\n        y[i] += x[i];",
                                 "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
                                 "i + stride < n; i += 2 * stride) {\n        y[i] += x[i];\n"
                                 "        y[i + stride] += x[i + stride];\n    }"),
                                "24 of the 1,000 elements were never added to (the first is "
                                "y[936]), left over by threads 40 to 63 (1 each): the loop, "
                                "unrolled by 2, handles i and i + stride while i + stride < n"),
    # the known gap of blind audit AO: the loop unrolled by three with no tail leaves out, on
    # the first case, the same elements as passes rounded down (was 'the last 40 elements
    # (y[960] on) were never added to: the loop made n / stride = 1000 / 64 = 15 passes')
    "unrolled_by_three_no_tail": (("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                                   "i += stride)\n        y[i] += x[i];",
                                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; "
                                   "i + 2 * stride < n; i += 3 * stride) {\n"
                                   "        y[i] += x[i];\n        y[i + stride] += x[i + stride];\n"
                                   "        y[i + 2 * stride] += x[i + 2 * stride];\n    }"),
                                  "40 of the 1,000 elements were never added to (the first is "
                                  "y[960]), left over by threads 0 to 39 (1 each): the loop, "
                                  "unrolled by 3, handles i, i + stride, ..., i + 2 * stride while "
                                  "i + 2 * stride < n"),
    # blind audit TKA-add_into-1: the loop's test against the stride, i < stride (was 'only the
    # first 64 elements were added, one a thread: each thread did one element, not all of its
    # elements', silent on the test)
    "bound_by_the_stride": (("i < n;", "i < stride;"),
                            "only the first 64 elements were added, one a thread: the loop's "
                            "test compares i with the stride, i < stride, so each thread stops "
                            "after its first element"),
    # blind audit TFA-add_into-1 (was 'the kernel crashed: ... a read at add_into.cu:10, 225 bytes
    # past the end of a 20128-byte allocation ... Hint: the loop must stop at n: for (...)'):
    # range(start, n, stride) as an iterator loop, i != n, which a thread's i jumps over
    # the thread named is the first to run past y on the simulator: block 0's or block 1's
    "loop_while_not_n": (("i < n;", "i != n;"),
                         "by the stride 64 and jumps over n = 1000, never equal to it, so the "
                         "loop ran on until it read"),
    "start_without_the_block": (("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                 "int i = threadIdx.x;"), "the loop starts at threadIdx.x"),
    "start_without_blockDim": (("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                "int i = blockIdx.x + threadIdx.x;"),
                               "blockIdx.x is not multiplied by blockDim.x"),
    "start_with_gridDim": (("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                            "int i = blockIdx.x * gridDim.x + threadIdx.x;"),
                           "the loop starts at blockIdx.x * gridDim.x + threadIdx.x"),
    "start_roles_swapped": (("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                             "int i = threadIdx.x * blockDim.x + blockIdx.x;"),
                            "the loop starts at threadIdx.x * blockDim.x + blockIdx.x"),
    # blind audit TXA-add_into-1 (was 'the loop starts at threadIdx.x: every block starts at
    # element 0'): the stride, the grid's threads, where blockDim.x belongs
    "start_with_the_stride": (("int i = blockIdx.x * blockDim.x + threadIdx.x",
                               "int i = blockIdx.x * stride + threadIdx.x"),
                              "the loop starts at blockIdx.x * stride + threadIdx.x: blockIdx.x "
                              "is multiplied by the stride, the grid's threads, not by "
                              "blockDim.x, a block's threads (block 1 starts at element 64, not "
                              "32)"),
    # blind audit TYA-add_into-1 (was '1 of 1000 elements were never added to (the first is
    # y[0]) ... Hint: for (int i = ...; i < n; i += stride) ...', silent on the start): threads
    # counted from 1, the start one element late
    "start_one_late": (("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                        "int i = blockIdx.x * blockDim.x + threadIdx.x + 1;"),
                       "y[0] was never added to, every other element once: the loop starts one "
                       "element late, at blockIdx.x * blockDim.x + threadIdx.x + 1"),
    # blind audit TAAA-add_into-1 (was 'y[0] got x[0] added 32 times: threads visit the same
    # elements ... Hint: step by the number of threads in the whole grid, gridDim.x *
    # blockDim.x', the step as written): blockDim.x + threadIdx.x parenthesised in the start
    "start_parenthesised": (("for (int i = blockIdx.x * blockDim.x + threadIdx.x;",
                             "for (int i = blockIdx.x * (blockDim.x + threadIdx.x);"),
                            "the loop starts at blockIdx.x * (blockDim.x + threadIdx.x): the "
                            "parentheses make blockIdx.x multiply threadIdx.x too, so every "
                            "thread of block 0 starts at element 0 (thread 1 of block 0 starts "
                            "at element 0, not 1)"),
    "start_at_0": (("int i = blockIdx.x * blockDim.x + threadIdx.x;", "int i = 0;"),
                   "the loop starts at 0 for every thread"),
    # blind audit AK (was 'y[0] got x[0] added 32 times: threads visit the same elements ...
    # Hint: step by the number of threads in the whole grid', the step being right): the start
    # without threadIdx.x, so every thread of a block starts at the block's first element
    "start_without_the_thread": (("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                  "int i = blockIdx.x * blockDim.x;"),
                                 "the loop starts at blockIdx.x * blockDim.x, without threadIdx.x: "
                                 "every thread of a block starts at the block's first element "
                                 "(thread 1 of block 0 starts at element 0, not 1)"),
    "chunks_of_n_over_threads": (
        ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
         "        y[i] += x[i];",
         "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n    int per = n / stride;\n"
         "    for (int i = t * per; i < (t + 1) * per; i++)\n        y[i] += x[i];"),
        "the last 40 elements (y[960] on) were never added to: chunks of n / threads"),
    # blind audit TA1 (was 'the last 40 elements (y[960] on) were never added to: chunks of
    # n / threads elements leave out the last n % threads ... Hint: for (...)'): the passes
    # counted with n / stride rounded down, each pass strided right
    "passes_rounded_down": (
        ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
         "        y[i] += x[i];",
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    for (int pass = 0; pass < n / stride; pass++)\n"
         "        y[i + pass * stride] += x[i + pass * stride];"),
        "the last 40 elements (y[960] on) were never added to: the loop made n / stride = "
        "1000 / 64 = 15 passes, rounded down, so the last, partial pass"),
    # blind audit AL (was 'y[1000] and beyond were written, past y[n - 1] ... Hint: the loop must
    # stop at n'): the passes counted rounded up, (n + stride - 1) / stride, with no test of the
    # element, so threads with none in the last, partial pass add past n
    "passes_rounded_up_untested": (
        ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
         "        y[i] += x[i];",
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    for (int pass = 0; pass < (n + stride - 1) / stride; pass++)\n"
         "        y[i + pass * stride] += x[i + pass * stride];"),
        "y[1000] to y[1023] were written, past y[n - 1]: every thread went round the loop "
        "(n + stride - 1) / stride = (1000 + 63) / 64 = 16 times"),
    # blind audit AC (was 'y[0] got x[0] added 2 times: threads visit the same elements ...
    # Hint: step by ... gridDim.x * blockDim.x', the step right): the stub's one-element if kept
    # above the loop, so each thread adds its first element twice
    "stub_s_if_kept": ((STRIDE, STRIDE + "\n    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                         "    if (j < n)\n        y[j] += x[j];"),
                       "y[0] to y[63], each thread's first element, got x added twice, every "
                       "other element once: each thread added its first element at line "),
    "assigned": (("y[i] += x[i];", "y[i] = x[i];"), "y holds x"),
    "subtracted": (("y[i] += x[i];", "y[i] -= x[i];"), "x was subtracted from y"),
    # blind audit AQ (was 'y[0] = -2.0, which is not y + k * x for any whole k ... Hint: each
    # element once: y[i] += x[i]'): y read where x belongs, so y came out doubled
    "adds_y_to_itself": (("y[i] += x[i];", "y[i] += y[i];"),
                         "y came out doubled: each y[i] is 2 * y[i] (y[0] = -2.0, where "),
    "added_twice": (("y[i] += x[i];", "y[i] += 2.0f * x[i];"), "y[0] got x[0] added 2 times"),
    # audit P2: a 16-bit index, which wraps negative past 32767 (the case of n = 40000)
    "short_index": (("for (int i", "for (short i"),
                    "the loop's index wrapped negative past 32767: thread (0, 0, 0) of block "
                    "(0, 0, 0), whose next i was 32768"),
    "every_thread_loops": (("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                            "i += stride)", "for (int i = 0; i < n; i++)"),
                           "every thread did the whole loop"),
    # blind audit AH (was PASS): a __syncthreads() in the grid-stride loop, 'to keep the threads
    # in step', which the threads of a block go round a different number of times
    "barrier_in_the_loop": (("        y[i] += x[i];", "    {\n        y[i] += x[i];\n"
                                                     "        __syncthreads();\n    }"),
                            "which the threads of a block go round a different number of times: "
                            "with n = 1000 and 64 threads"),
    # blind audit AU (was '1 of 777 elements were never added to (the first is y[776]) ...',
    # silent on the cause): a grid-stride loop over float4 groups with no tail
    "float4_no_tail": (("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
                        "stride)\n        y[i] += x[i];",
                        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; "
                        "i += stride) {\n"
                        "        float4 a = reinterpret_cast<const float4 *>(x)[i];\n"
                        "        float4 b = reinterpret_cast<float4 *>(y)[i];\n"
                        "        reinterpret_cast<float4 *>(y)[i] = "
                        "make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);\n    }"),
                       "y[776], the last element of n = 777, was never added to: each thread "
                       "took 4 elements at once with a float4"),
}
# the words the hint must contain, where the problem's alone would not show it fixes the mistake
HINTS = {"float4_no_tail": "after the float4 loop, add the last n % 4 elements one float at a time",
         "do_while": "test i before the first element too",
         "start_parenthesised": "multiply first, then add threadIdx.x: i = blockIdx.x * "
                                "blockDim.x + threadIdx.x",
         "start_one_late": "with nothing added: i = blockIdx.x * blockDim.x + threadIdx.x",
         "stride_of_a_block_squared": "int stride = blockDim.x * gridDim.x;",
         "stepped_twice_a_turn": "remove the i += stride; from the loop's body",
         "stub_s_if_kept": "remove the one-element if",
         "stride_from_grid_y": "gridDim.x * blockDim.x, not gridDim.y",
         "block_stride_loop": "start at i = blockIdx.x * blockDim.x + threadIdx.x and step by "
                              "stride = gridDim.x * blockDim.x",
         "bound_by_the_stride": "i < n",
         "tests_one_stride_ahead": "not the next one: i < n",
         "unrolled_by_two_no_tail": "if (i < n) y[i] += x[i];",
         "unrolled_by_three_no_tail": "for (; i < n; i += stride) y[i] += x[i];",
         "barrier_in_the_loop": "the threads of add_into share nothing",
         "adds_y_to_itself": "add x into y: y[i] += x[i], with x[i] on the right",
         "passes_rounded_up_untested": "if (i + pass * stride < n)"}
SIMULATOR_ONLY = {"block_stride_loop": "on a GPU the blocks' additions into one element race and "
                                       "some are lost: how many land varies",
                  "every_thread_loops": "on a GPU the threads' additions into one element race "
                                        "and some are lost: how many land varies",
                  "loop_while_not_n": "threads whose i jumps over n add far past y: a GPU may "
                                      "fault and leave the context unusable",
                  "barrier_in_the_loop": "a barrier that some threads of the block never reach: "
                                         "undefined on a GPU"}
RIGHT = {
    "while_loop": ("    int stride = gridDim.x * blockDim.x;\n"
                   "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
                   "        y[i] += x[i];",
                   "    int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
                   "    while (i < n) {\n        y[i] = y[i] + x[i];\n"
                   "        i += blockDim.x * gridDim.x;\n    }"),
    "passes_counted": ("    int stride = gridDim.x * blockDim.x;\n"
                       "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
                       "        y[i] += x[i];",
                       "    int threads = gridDim.x * blockDim.x;\n"
                       "    int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    for (int pass = 0; pass < (n + threads - 1) / threads; pass++)\n"
                       "        if (pass * threads + t < n)\n"
                       "            y[pass * threads + t] += x[pass * threads + t];"),
    # the loop unrolled by two, with its tail (blind audit AO's mistake mended)
    "unrolled_by_two_with_tail": ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; "
                                  "i += stride)\n        y[i] += x[i];",
                                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "    for (; i + stride < n; i += 2 * stride) {\n"
                                  "        y[i] += x[i];\n        y[i + stride] += x[i + stride];"
                                  "\n    }\n    if (i < n)\n        y[i] += x[i];"),
}
