"""The add_constant checker (helpers.exercises.add_constant), notebook 01's first exercise: the
solution passes, the stub as shipped does not, each usual mistake gets its own verdict, and kernels
right in another way pass. The solution and every variant are compiled as one module (and, on
PyCUDA, once more on the simulator, whose race check the checker uses)."""

import numpy as np
import pytest

from kernel_sources import (assert_refused_and_named, compile_variant_pairs, simulator_only,
                            solution, stable_file, variant)

from helpers.exercises import add_constant as checker

KERNEL = solution("add_constant.cu")
INDEX = ("int i = threadIdx.x;",)
STORE = ("y[i] = x[i] + c;",)

# name: (the replacement in the solution, how the verdict's problem starts)
WRONG = {
    "index_zero": ((*INDEX, "int i = 0;"), "only y[0] was written"),
    "block_index": ((*INDEX, "int i = blockIdx.x;"), "only y[0] was written"),
    # blind audit AB (was 'only y[0] was written: every thread used i = 0 (blockIdx.x is 0 too,
    # in a grid of one block)', though the code has neither): threadIdx.y, 0 in a 1-D block
    "index_from_thread_y": ((*INDEX, "int i = threadIdx.y;"),
                            "only y[0] was written: every thread's i was threadIdx.y, which is 0 "
                            "in every thread: the block is 1-D, (200, 1, 1)"),
    "c_forgotten": ((*STORE, "y[i] = x[i];"), "y equals x: c is not added"),
    # blind audit AH (was 'y equals x: c is not added ... Hint: y[i] = x[i] + c', what the
    # learner wrote): the stub's old store left below the new one, which it overwrites
    "stub_s_store_left_below": ((*STORE, "y[i] = x[i] + c;\n    y[i] = x[i];"),
                                "y equals x: c is not added: y[i] is stored twice, "
                                "y[i] = x[i] + c; at line "),
    "x_not_read": ((*STORE, "y[i] = c;"), "every element is c"),
    # blind audit AW (was PASS: the simulator compiled __launch_bounds__ away): a bound of 256 on
    # a kernel launched with one block of n threads, n up to 1024, which a GPU refuses to launch
    "launch_bounds_below_the_block": (("__global__ void add_constant(",
                                       "__global__ void __launch_bounds__(256) add_constant("),
                                      "your kernel's __launch_bounds__(256) allows at most 256 "
                                      "threads a block, but the exercise launches blocks of 1000 "
                                      "threads, (1000, 1, 1): a GPU refuses that launch"),
    "subtracted": ((*STORE, "y[i] = x[i] - c;"), "y = x - c"),
    "multiplied": ((*STORE, "y[i] = x[i] * c;"), "y = x * c"),
    "adds_to_y": ((*STORE, "y[i] += c;"), "y came out different when it held something else"),
    # blind audit AJ (was '... the kernel reads y (y[i] += c adds c to whatever y held ...)', a
    # line the learner never wrote): y[i] += x[i] + c, += where one = stores
    "adds_the_sum_to_y": ((*STORE, "y[i] += x[i] + c;"),
                          "y came out different when it held something else before the launch: "
                          "y[i] += x[i] + c; at line "),
    "reads_the_next": ((*STORE, "y[i] = x[i + 1] + c;"), "y[i] holds x[i + 1] + c"),
    "writes_the_next": ((*STORE, "y[i + 1] = x[i] + c;"), "y[200] and beyond were written"),
    # blind audit TOA-add_constant-1: the warp's lane for the index (was '168 of 200 elements
    # were never written (the first is y[32]) ...', silent on the wrap)
    "lane_of_the_warp": ((*INDEX, "int i = threadIdx.x % 32;"),
                         "y[0] to y[31] are right, but nothing from y[32] on was written, of "
                         "200: the index wrapped around at 32, as i = threadIdx.x % 32"),
    "half_the_threads": ((*STORE, "if (i % 2 == 0) y[i] = x[i] + c;"),
                         "100 of 200 elements were never written"),
    # blind audit TMA-add_constant-1 (was 'nothing was written: y still holds the NaN it was
    # filled with ... Hint: each thread should store its result: y[i] = x[i] + c', silent on ==)
    "compared_not_stored": ((*STORE, "y[i] == x[i] + c;"),
                            "nothing was written: y still holds the NaN it was filled with: "
                            "y[i] == x[i] + c; compares with ==, which gives true or false and "
                            "stores nothing"),
    # blind audit AG (was '199 of 200 elements are wrong (the first is y[1] = ...)', silent on
    # x[0]): x read at a fixed index, the same element for every thread
    "x_read_at_zero": ((*STORE, "y[i] = x[0] + c;"),
                       "every element is y[i] = x[0] + c: x was read at x[0], the same element "
                       "for all threads"),
    "c_written_in": ((*STORE, "y[i] = x[i] + 10.0f;"), "y = x + 10, but c is -2.5 here"),
    # audit A: a guard that leaves the last thread out; x[i] kept in an int
    "guard_leaves_the_last": ((*STORE, "if (i < blockDim.x - 1)\n        y[i] = x[i] + c;"),
                              "only y[199], the last element, was never written"),
    "guard_if_i": ((*STORE, "if (i) y[i] = x[i] + c;"),
                   "only y[0], the first element, was never written: a guard that is false for "
                   "i = 0"),
    "c_cut_to_an_int": ((*STORE, "y[i] = x[i] + int(c);"), "y = x + -2, but c is -2.5 here: "
                        "c was cut to a whole number"),
    "x_kept_in_an_int": ((*STORE, "int v = x[i];\n    y[i] = v + c;"),
                         "y = (int)x + c: x[i] was kept in an int"),
    # audit E: the guard from sizeof (a pointer's 8 bytes over a float's 4); the crashes of an
    # index scaled by sizeof(float) and of one shifted by blockDim.x (hints in HINTS)
    "guard_from_sizeof": ((*STORE, "if (i < sizeof(x) / sizeof(x[0]))\n        y[i] = x[i] + c;"),
                          "only y[0] and y[1] were written, of 200: the threads stopped at i = 2"),
    "index_in_bytes": ((*INDEX, "int i = threadIdx.x * sizeof(float);"), "the kernel crashed"),
    "index_after_a_block": ((*INDEX, "int i = blockDim.x + threadIdx.x;"), "the kernel crashed"),
    # blind audit Z1 (was 'the kernel crashed: ... thread (2, 0, 0): a read ... Hint: every
    # thread writes only y[i], its own element: i = threadIdx.x ...'): a row for each thread
    "index_times_the_block": ((*INDEX, "int i = threadIdx.x * blockDim.x;"), "the kernel crashed"),
    # blind audit J1 (was '744 of 1000 elements were never written (the first is y[256]) ...
    # Hint: every thread writes its own element: i = threadIdx.x ...', what the learner wrote)
    "index_in_an_unsigned_char": ((*INDEX, "unsigned char i = threadIdx.x;"),
                                  "y[0] to y[255] are right, but nothing from y[256] on was "
                                  "written, of 1000: the index wrapped around at 256"),
    # blind audit AD (was 'y[0] to y[255] are right ... the index wrapped around at 256, as an
    # index kept in an unsigned char does', though the index is an int): a guard of a block size
    # copied from the examples, i < 256, in a block of n threads
    "guard_of_a_block_size": ((*STORE, "if (i < 256)\n        y[i] = x[i] + c;"),
                              "y[0] to y[255] are right, but threads 256 and up wrote nothing "
                              "(y[256] to y[999], of 1000): the guard if (i < 256) at line "),
    # blind audit X1, thread numbers taken as counting from 1 (was 'only y[199], the last
    # element, was never written: a guard that stops one short ... Hint: ... no guard is needed')
    "index_shifted_down": ((*INDEX, "int i = threadIdx.x - 1;"),
                           "y[-1], before y[0], was written and y[199], the last element, never "
                           "was: every thread's index is one less than its number"),
    # blind audit TEA-add_constant-1, thread numbers taken as counting from 1 (was 'y[200] and
    # beyond were written, past y[n - 1] ... Hint: ... with nothing added to it', silent on y[0])
    "index_shifted_up": ((*INDEX, "int i = threadIdx.x + 1;"),
                         "y[200], one past y[n - 1], was written and y[0], the first element, "
                         "never was: every thread's index is one more than its number"),
    # blind audit TA1, the block's size in place of the thread's place (was 'y[200] and beyond
    # were written, past y[n - 1] ... Hint: ... with nothing added to it')
    "index_is_the_block_size": ((*INDEX, "int i = blockDim.x;"),
                                "every thread wrote y[200], one past y[n - 1], and y[0] to "
                                "y[199] were never written: every thread's index was blockDim.x"),
    # blind audit AU (was 'only y[36], the last element, was never written: a guard that stops
    # one short ... Hint: ... no guard is needed here'): float4 loads, 4 elements a thread, which
    # leave out the last n % 4 elements where n is no multiple of 4
    "float4_a_thread": ((*STORE, "if (i < blockDim.x / 4) {\n"
                                 "        float4 v = reinterpret_cast<const float4 *>(x)[i];\n"
                                 "        reinterpret_cast<float4 *>(y)[i] = "
                                 "make_float4(v.x + c, v.y + c, v.z + c, v.w + c);\n    }"),
                        "y[36], the last element of n = 37, was never written: each thread took "
                        "4 elements at once with a float4"),
    # every thread does the whole loop: right values, but for the race check
    "every_thread_loops": ((*STORE, "for (int j = 0; j < blockDim.x; j++)\n        y[j] = x[j] + c;"),
                           "two threads wrote y[0]"),
    # blind audit AP (was PASS: the compiler kept each thread's i, so the race check saw no
    # access to it): the thread's index declared __shared__, one i for the whole block
    "index_declared_shared": ((*INDEX, "__shared__ int i;\n    i = threadIdx.x;"),
                              "i is declared __shared__, which makes one i for the whole block, not "
                              "one for each thread: every thread stores into that one i "
                              "(i = threadIdx.x; at line "),
}
HINTS = {"float4_a_thread": "one element a thread here: the block has one thread for each "
                            "element",
         "index_declared_shared": "declare i without __shared__, int i;, a plain local variable",
         "launch_bounds_below_the_block": "make N at least the threads of every block the kernel "
                                          "is launched with (1000 here), or drop __launch_bounds__",
         "index_from_thread_y": "i = threadIdx.x, not threadIdx.y",
         "stub_s_store_left_below": "delete y[i] = x[i]; (line ",
         "x_read_at_zero": "read x at the thread's own index too: y[i] = x[i] + c",
         "compared_not_stored": "store with one =, == compares: y[i] = x[i] + c;",
         "index_is_the_block_size": "i = threadIdx.x, the thread's own number, not blockDim.x",
         "index_shifted_down": "with nothing subtracted: thread 0 has element 0",
         "index_shifted_up": "with nothing added: thread 0 has element 0",
         "guard_from_sizeof": "no guard is needed",
         "index_in_an_unsigned_char": "keep the index an int, whatever size you expect: int i = "
                                      "threadIdx.x (an unsigned char holds 0 to 255 only",
         "guard_of_a_block_size": "no guard is needed here: the block has exactly n threads",
         "index_in_bytes": "thread 66's index was 264 = 4 * 66: it was scaled by sizeof(float) = 4",
         "index_after_a_block": "thread 64's index was 264 = blockDim.x + 64: every index "
                                "was shifted by blockDim.x = 200",
         "index_times_the_block": "thread 2's index was 400 = 2 * blockDim.x: it was scaled by "
                                  "the block's size, 200, as if each thread had a row of its own"}
SIMULATOR_ONLY = dict.fromkeys(("index_in_bytes", "index_after_a_block", "index_times_the_block"),
                               "reads far past x: a GPU may fault and leave the context unusable")
RIGHT = {
    "one_line": ("int i = threadIdx.x;\n    y[i] = x[i] + c;",
                 "y[threadIdx.x] = c + x[threadIdx.x];"),
    "global_index_and_guard": ("int i = threadIdx.x;\n    y[i] = x[i] + c;",
                               "int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < blockDim.x * gridDim.x) {\n"
                               "        float v = x[i];\n        v += c;\n        y[i] = v;\n    }"),
    # c handed out through a __shared__ variable that one thread stores, behind a barrier
    "c_shared_by_thread_0": ("int i = threadIdx.x;\n    y[i] = x[i] + c;",
                             "__shared__ float cs;\n    if (threadIdx.x == 0)\n        cs = c;\n"
                             "    __syncthreads();\n    int i = threadIdx.x;\n    y[i] = x[i] + cs;"),
}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("add_constant", {
        "solution": KERNEL, **{name: variant(KERNEL, r) for name, (r, _) in WRONG.items()},
        **{name: variant(KERNEL, r) for name, r in RIGHT.items()}})


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_add_constant_kernel(*kernels["solution"])
    assert verdict.passed is True and capsys.readouterr().out.startswith("PASS:")


def test_the_stub_as_shipped_is_not_yet_right(capsys):
    verdict = checker.check_add_constant()
    assert verdict.passed is False
    assert verdict.problem.startswith("only y[0] was written"), verdict
    assert "threadIdx.x" in verdict.hint


@pytest.mark.parametrize("name", simulator_only(WRONG, SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(kernels, name, capsys):
    verdict = checker.check_add_constant_kernel(*kernels[name])
    assert verdict.passed is False
    assert verdict.problem.startswith(WRONG[name][1]), verdict
    assert HINTS.get(name, "") in verdict.hint, verdict
    assert capsys.readouterr().out.count("NOT YET:") == 1


@pytest.mark.parametrize("name", RIGHT)
def test_a_kernel_right_in_another_way_passes(kernels, name):
    assert checker.check_add_constant_kernel(*kernels[name]).passed is True


def test_the_grader_s_cases_are_sizes_a_block_can_have():
    drawn = checker.EXERCISE.draw(np.random.default_rng(3))
    assert len(drawn) == 3 and all(1 < n <= 1024 for n, _ in drawn)


def test_each_case_adds_another_c():
    """So that a kernel with a number in place of c fails."""
    for cases in (checker.CASES, checker.EXERCISE.draw(np.random.default_rng(3))):
        assert len({case[1] for case in cases}) == len(cases)


# Mistakes the compiler refuses, named from the simulator's record of g++'s first error: blind
# audit G1, the result returned as from a Python function (was 'line 10 returns a value, but a
# kernel is void ... Hint: store the thread's result into the output array ... (out[i] = ...;)')
DOES_NOT_COMPILE = {
    "result_returned": ([("y[i] = x[i] + c;", "return x[i] + c;")],
                        {"problem": "line 10 returns a value (x[i] + c), but a kernel is void",
                         "hint": "store the thread's result into y, the output, at its own index "
                                 "(y[i] = x[i] + c;)"}),
    # blind audit R1, a thread's place taken as one number, threadIdx without its .x (was 'does
    # not compile. Hint: read the compiler's first error'): g++ places the error in the prelude's
    # macro threadIdx, and notes the learner's line
    "threadIdx_whole": ([("int i = threadIdx.x;", "int i = threadIdx;")],
                        {"problem": "line 9 puts threadIdx, a uint3, where an int is needed: "
                                    "threadIdx is a uint3 with fields .x, .y, .z",
                         "hint": "write threadIdx.x"}),
    # the addition in a helper without __device__: nvcc refuses the call, and now so does the
    # simulator (it compiled as C++ and passed)
    "helper_without_device": ([("__global__ void add_constant", "float plus(float a, float b) "
                                "{ return a + b; }\n\n__global__ void add_constant"),
                               ("y[i] = x[i] + c;", "y[i] = plus(x[i], c);")],
                              {"problem": "line 12 calls plus, which is declared without "
                                          "__device__: a host function, which add_constant",
                               "hint": "declare it __device__ float plus(...)"}),
    # a __shared__ copy of c, initialized where it is declared: nvcc refuses the initializer
    "shared_initialized": ([("int i = threadIdx.x;", "__shared__ float sc = c;\n    int i = "
                             "threadIdx.x;"), ("x[i] + c;", "x[i] + sc;")],
                           {"problem": "line 9 gives the __shared__ variable sc an initializer",
                            "hint": "if (threadIdx.x == 0) sc = ...;"}),
    # a local copy of the input sized by the block: nvcc needs a constant size
    "local_array_of_the_block": ([("int i = threadIdx.x;", "float copy[blockDim.x];\n    int i = "
                                   "threadIdx.x;\n    copy[i] = x[i];"), ("x[i] + c;", "copy[i] + c;")],
                                 {"problem": "line 9 sizes the local array copy by blockDim.x, a "
                                             "value known only when the kernel runs",
                                  "hint": "#define N 256"}),
    # the kernel declared to return its result, as a Python function would (it compiled as C++,
    # and the simulator's launch refused it in words of its own templates)
    "declared_to_return_a_float": ([("__global__ void add_constant", "__global__ float add_constant"),
                                    ("y[i] = x[i] + c;", "return x[i] + c;")],
                                   {"problem": "line 7 declares the kernel add_constant to return "
                                               "float: a kernel returns nothing",
                                    "hint": "declare it __global__ void add_constant(...)"}),
    # an index past the end caught as Python's IndexError would be: device code has no exceptions
    "index_error_caught": ([("y[i] = x[i] + c;", "try { y[i] = x[i] + c; } catch (...) { }")],
                           {"problem": "line 10: add_constant uses try, and device code has no "
                                       "exceptions", "hint": "test for the problem with if"}),
}

@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    assert_refused_and_named(checker.check_add_constant, "add_constant", name, *DOES_NOT_COMPILE[name])


def test_a_math_call_nvcc_refuses_is_printed_in_its_own_words_not_the_simulators_macros(capsys):
    """fmax of a float and an int: what the checker prints is the error's message (on a GPU,
    nvcc's output), never the simulator's macros (__sim_math_fmax), and the verdict names it."""
    verdict = checker.check_add_constant(stable_file("add_constant_fmax_of_an_int.cu", variant(
        solution("add_constant.cu"), ("y[i] = x[i] + c;", "y[i] = fmax(x[i] + c, 0);"))))
    out = capsys.readouterr().out
    assert "__sim_" not in out and "fmax" in out, out
    assert "line 10 calls fmax(float, int)" in verdict.problem, verdict
