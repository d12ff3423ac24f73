"""The multiply_vectors checker (helpers.exercises.multiply_vectors), notebook 01's second
exercise: the solution passes, the stub as shipped does not, each usual mistake gets its own
verdict, and kernels right in another way pass. The solution and every variant are compiled as
one module (and, on PyCUDA, once more on the simulator, whose race check the checker uses)."""

import numpy as np
import pytest

from kernel_sources import (assert_refused_and_named, compile_variant_pairs, simulator_only,
                            solution, variant)

from helpers.exercises import multiply_vectors as checker

KERNEL = solution("multiply_vectors.cu")
INDEX = "blockIdx.x * blockDim.x + threadIdx.x"
STORE = "out[i] = a[i] * b[i];"

# name: (the replacement in the solution, how the verdict's problem starts, and any more words
# that the verdict must contain)
WRONG = {
    "thread_index_only": ((INDEX, "threadIdx.x"), "only the first block's elements were written",
                          "i = threadIdx.x alone"),
    # blind audit AJ (was 'only the first block's elements were written ...: i = threadIdx.x
    # alone ...', which the learner never wrote): i =+ threadIdx.x, a plus sign after =, for +=
    "plus_sign_for_add": ((INDEX + ";", "blockIdx.x * blockDim.x;\n    i =+ threadIdx.x;"),
                          "only the first block's elements were written",
                          "i =+ threadIdx.x; at line ", "Hint: add with +=: i += threadIdx.x;"),
    "block_offset_only": ((INDEX, "blockIdx.x * blockDim.x"),
                          "only the first element of each block"),
    # blind audit AG (was 'only the first element of each block was written: threadIdx.x is
    # missing', though the code has threadIdx.y): threadIdx.y, 0 in a 1-D block, for threadIdx.x
    "place_from_thread_y": ((INDEX, "blockIdx.x * blockDim.x + threadIdx.y"),
                            "only the first element of each block was written: the thread's "
                            "place was threadIdx.y, which is 0 in every thread: the block is "
                            "1-D, (128, 1, 1)", "Hint: + threadIdx.x, not threadIdx.y"),
    "grid_for_block": ((INDEX, "blockIdx.x * gridDim.x + threadIdx.x"),
                       "the blocks' elements overlap"),
    # blind audit TNB-multiply_vectors-1: gridDim.x where blockIdx.x belongs (was 'out[896] and
    # beyond were written, past out[n - 1] ... Hint: i = blockIdx.x * blockDim.x + threadIdx.x
    # ...', gridDim.x not named)
    "grid_for_block_index": ((INDEX, "gridDim.x * blockDim.x + threadIdx.x"),
                             "every block wrote the same elements, out[n] to out[n + blockDim.x - "
                             "1], all past the end", "gridDim.x * blockDim.x + threadIdx.x takes "
                             "the number of blocks (gridDim.x, the same in every block) where the "
                             "block's own number, blockIdx.x, belongs",
                             "Hint: i = blockIdx.x * blockDim.x + threadIdx.x"),
    "block_number_added": ((INDEX, "blockIdx.x + threadIdx.x"),
                           "the blocks' elements overlap, each block starting one element after"),
    # blind audit Q5: blockDim.y, which is 1 in a 1-D launch, for the block's size; the verdict
    # must not say the learner wrote blockIdx.x + threadIdx.x (was '... blockIdx.x + threadIdx.x
    # adds the block's number')
    "block_size_from_y": ((INDEX, "blockIdx.x * blockDim.y + threadIdx.x"),
                          "the blocks' elements overlap, each block starting one element after",
                          "start is blockIdx.x times 1, not times blockDim.x"),
    "block_of_one_less": ((INDEX, "blockIdx.x * (blockDim.x - 1) + threadIdx.x"),
                          "each block starts one element too early"),
    "guard_one_short": ((STORE, "if (i < gridDim.x * blockDim.x - 1)\n        " + STORE),
                        "only out[895], the last element, was never written"),
    # blind audit A: blocks counted from 1 (was '128 of 896 elements were never written')
    # blind audit TXB-multiply_vectors-1: the thread's place subtracted (was 'out[-127] to out[-1]
    # were written, before out[0]: some threads' index came out below 0 ... Hint: i = blockIdx.x *
    # blockDim.x + threadIdx.x ...', the sign not named)
    "thread_place_subtracted": ((INDEX, "blockIdx.x * blockDim.x - threadIdx.x"),
                                "out[-127] to out[-1] were written, before out[0], and out[769] to "
                                "out[895] never: the thread's place is subtracted, blockIdx.x * "
                                "blockDim.x - threadIdx.x", "Hint: add the thread's place, + "
                                "threadIdx.x, not - threadIdx.x"),
    # blind audit AB (was '889 of 896 elements were never written (the first is out[1])', the
    # cause not named): blockIdx.x typed where threadIdx.x belongs
    "block_number_for_the_place": ((INDEX, "blockIdx.x * blockDim.x + blockIdx.x"),
                                   "each block wrote one element only, out[b * 128 + b] (out[0], "
                                   "out[129], out[258], ...)", "blockIdx.x * blockDim.x + "
                                   "blockIdx.x adds blockIdx.x where the thread's place",
                                   "Hint: add the thread's place, + threadIdx.x, not + blockIdx.x"),
    "blocks_counted_from_1": ((INDEX, "(blockIdx.x - 1) * blockDim.x + threadIdx.x"),
                              "block 0 wrote before the start of out",
                              "the blocks are counted from 1", "block 0 starts at element 0"),
    # blind audit TVB-multiply_vectors-1: blocks counted from 1 the other way, (blockIdx.x + 1)
    # (was 'out[896] and beyond were written, past out[n - 1] ... Hint: i = blockIdx.x * blockDim.x
    # + threadIdx.x ...', the shift by a block not named)
    "blocks_one_block_on": ((INDEX, "(blockIdx.x + 1) * blockDim.x + threadIdx.x"),
                            "every block took the elements of the block after it",
                            "out[0] to out[127] (block 0's) were never written",
                            "out[896] to out[1023], past the end",
                            "Hint: block 0 starts at element 0"),
    # blind audit S2-5: each element shifted by one (was 'out[-1] was written, before out[0] ...'
    # here, 'out[896] and beyond were written, past out[n - 1] ...' for one_past)
    "index_one_short": ((INDEX, INDEX + " - 1"), "every thread took the element one place back",
                        "with nothing taken off"),
    # blind audit F15: the store at the block-local index (was 'only the first block's elements
    # were written ... i = threadIdx.x alone ... or a guard i < blockDim.x')
    "stored_at_thread_index": ((STORE, "out[threadIdx.x] = a[i] * b[i];"),
                               "every block stored at out[threadIdx.x]", "the index i is right",
                               "store at the global index, out[i]"),
    # blind audit F14 (was 'out[896] and beyond were written, past out[n - 1]')
    "parenthesised_sum": ((INDEX, "blockIdx.x * (blockDim.x + threadIdx.x)"),
                          "the elements are spread out", "multiplies the thread's place",
                          "no parentheses"),
    # blind audit H9, H10 (were the crash with the plain index hint, and '576 of 896 elements
    # were never written' with it)
    "thread_place_multiplied": ((INDEX, "blockIdx.x * blockDim.x * threadIdx.x"),
                                "the kernel crashed", "thread 21 of block 1 reached element 2688",
                                "the index multiplied the block's first element"),
    "blocks_a_warp_apart": ((INDEX, "blockIdx.x * warpSize + threadIdx.x"),
                            "the blocks' elements overlap and the last ones got no thread",
                            "blockIdx.x * warpSize + threadIdx.x"),
    # blind audit W5 (was 'the kernel crashed: block (3, 0, 0), thread (0, 0, 0): a read ... past
    # the end of a 11264-byte allocation ... Hint: i = blockIdx.x * blockDim.x + threadIdx.x ...')
    "block_of_1024": ((INDEX, "blockIdx.x * 1024 + threadIdx.x"), "the kernel crashed: thread 0 "
                      "of block 3 reached element 3072 = 3 * 1024 + 0", "stepped 1024 elements",
                      "blockDim.x = 128 threads", "Hint: the block's size is blockDim.x, not a "
                      "number: i = blockIdx.x * blockDim.x + threadIdx.x"),
    # blind audit Q9 (was '768 of 896 elements were never written (the first is out[0])' with
    # the index hint)
    "block_size_added": ((INDEX, "threadIdx.x + blockDim.x"),
                         "every block wrote the same elements, blockDim.x to 2 * blockDim.x - 1",
                         "i = threadIdx.x + blockDim.x adds the block's size"),
    # blind audit Q10 (was '640 of 896 elements were never written (the first is out[256])'
    # with the index hint, the formula the learner wrote)
    "index_in_an_unsigned_char": (("int i = " + INDEX, "unsigned char i = " + INDEX),
                                  "only elements 0 to 255 were written", "8-bit unsigned char",
                                  "Hint: keep the index an int"),
    "index_in_a_signed_char": (("int i = " + INDEX, "signed char i = " + INDEX),
                               "only elements -128 to 127 were written", "8-bit signed char"),
    # blind audit TB-multiply_vectors-1 (was 'the kernel crashed: block (0, 0, 0), thread (21,
    # 0, 0): a read at multiply_vectors.cu:10, 1 byte past the end of a 11264-byte allocation ...
    # Hint: i = blockIdx.x * blockDim.x + threadIdx.x ...', a crash with the textbook formula)
    "roles_swapped": ((INDEX, "threadIdx.x * blockDim.x + blockIdx.x"),
                      "every thread took element threadIdx.x * blockDim.x + blockIdx.x",
                      "blockIdx.x and threadIdx.x swapped roles", "stored out[8 * t + b]",
                      "Hint: blockIdx.x picks the block"),
    # blind audit TWB-multiply_vectors-1: the warp's lane for the thread's place (was '672 of 896
    # elements were never written (the first is out[32]) ... Hint: i = blockIdx.x * blockDim.x +
    # threadIdx.x ...', % 32 not named)
    "lane_for_thread": ((INDEX, INDEX + " % 32"),
                        "only the first 32 elements of each block were written",
                        "out[128] to out[159]", "each by 4 threads",
                        "threadIdx.x % 32 is the thread's lane in its warp (0 to 31)",
                        "Hint: the thread's place in the block is threadIdx.x, all of it, "
                        "no % 32"),
    "block_of_256": ((INDEX, "blockIdx.x * 256 + threadIdx.x"), "the index takes 256"),
    "b_not_used": ((STORE, "out[i] = a[i];"), "out equals a"),
    "a_squared": ((STORE, "out[i] = a[i] * a[i];"), "out = a * a"),
    "added": ((STORE, "out[i] = a[i] + b[i];"), "out = a + b"),
    "a_read_one_on": ((STORE, "out[i] = a[i + 1] * b[i];"), "out[i] = a[i + 1] * b[i]"),
    "one_past": ((INDEX, INDEX + " + 1"), "every thread took the element one place on",
                 "i counts from 1", "with nothing added"),
    # blind audit TFB-multiply_vectors-1: blockIdx.y, 0 in a 1-D grid, for blockIdx.x (was
    # 'only the first block's elements were written ...: i = threadIdx.x alone ... or a guard
    # i < blockDim.x', two causes not in the code); a launch with a 2-D grid tells them apart
    "block_number_from_y": ((INDEX, "blockIdx.y * blockDim.x + threadIdx.x"),
                            "only the first block's elements were written",
                            "blockIdx.y, which is 0 in a 1-D grid, where blockIdx.x belongs",
                            "the blocks of row y = 1 wrote out[8] to out[15]",
                            "Hint: a 1-D grid numbers its blocks with blockIdx.x"),
    "guard_against_blockDim": ((STORE, "if (i < blockDim.x)\n        " + STORE),
                               "only the first block's elements were written",
                               "a guard i < blockDim.x", "blocks past 0 wrote nothing",
                               "so no guard"),
    # blind audit AI (was '889 of 896 elements were never written (the first is out[7]) ... Hint:
    # i = blockIdx.x * blockDim.x + threadIdx.x ...', the index already right): a guard against
    # gridDim.x, the number of blocks, taken for the number of threads
    "guard_against_gridDim": ((STORE, "if (i < gridDim.x)\n        " + STORE),
                              "only out[0] to out[6] were written, by threads 0 to 6 of block 0: "
                              "a guard compares i with gridDim.x = 7, the number of blocks",
                              "so no guard is needed"),
    "b_at_the_thread_s_place": (("b[i]", "b[threadIdx.x]"), "out[i] = a[i] * b[threadIdx.x]",
                                "b[i], at the global index"),
    # blind audit TLB-multiply_vectors-1 (was '895 of 896 elements are wrong ...: out[1] was stored
    # by thread (1, 0, 0) ..., which loaded a[0] and b[1]', a's index not named)
    "a_at_the_block_number": (("a[i] * b[i]", "a[blockIdx.x] * b[i]"),
                              "a was read at blockIdx.x, where i belongs: every thread of block b "
                              "read a[b]", "read a at the element's own index, a[i]: out[i] = a[i] * b[i]"),
    # blind audit TGB-multiply_vectors-1, re-run at 9b9798f ('a was read at threadIdx.x ...
    # Hint: read a at ... a[i]', b left out, and i is threadIdx.x in this kernel): the block's
    # offset put in the store alone
    "offset_in_the_store_alone": (("int i = " + INDEX + ";\n    " + STORE,
                                   "int i = threadIdx.x;\n    out[blockIdx.x * blockDim.x + i] = "
                                   "a[i] * b[i];"),
                                  "a and b were read at threadIdx.x, where i belongs",
                                  "read a and b at the element's own index, a[i] and b[i]",
                                  "with i = blockIdx.x * blockDim.x + threadIdx.x"),
    "a_at_the_thread_s_place": (("a[i] * b[i]", "a[threadIdx.x] * b[i]"),
                                "out[i] = a[threadIdx.x] * b[i]", "a[i], at the global index"),
    # every thread does the whole loop: right values, but for the race check
    "every_thread_loops": ((STORE, "for (int j = 0; j < blockDim.x * gridDim.x; j++)\n"
                                   "        out[j] = a[j] * b[j];"),
                           "two threads wrote out[0]", "no loop over all of out"),
    # no detector names it: where the first wrong element came from (helpers.exercises.origin,
    # on the simulator's twin on a GPU)
    "b_at_half_the_index": ((STORE, "out[i] = a[i] * b[i / 2];"), "895 of 896 elements are wrong",
                            "out[1] was stored by thread (1, 0, 0) of block (0, 0, 0) at line",
                            "which loaded a[1] and b[0]"),
    # blind audit AO (was 'out[896] and beyond were written, past out[n - 1] ... Hint: i =
    # blockIdx.x * blockDim.x + threadIdx.x ...', the index the learner has): float2 loads, two
    # elements a thread, in a launch of one thread per element
    "float2_a_thread": ((STORE, "float2 va = reinterpret_cast<const float2 *>(a)[i];\n"
                                "    float2 vb = reinterpret_cast<const float2 *>(b)[i];\n"
                                "    reinterpret_cast<float2 *>(out)[i] = "
                                "make_float2(va.x * vb.x, va.y * vb.y);"),
                        "every thread wrote two elements, out[2 * i] and out[2 * i + 1]",
                        "out[896] to out[1791], past the end",
                        "Hint: one element a thread here"),
    # blind audit AU (was 'the kernel crashed: block (5, 0, 0), thread (32, 0, 0): a read at
    # ...:7, 1 byte past the end ... Hint: i = blockIdx.x * blockDim.x + threadIdx.x ...', the
    # index the learner has): float4 loads, four elements a thread, in a launch of one a thread
    "float4_a_thread": ((STORE, "float4 va = reinterpret_cast<const float4 *>(a)[i];\n"
                                "    float4 vb = reinterpret_cast<const float4 *>(b)[i];\n"
                                "    reinterpret_cast<float4 *>(out)[i] = make_float4(va.x * vb.x, "
                                "va.y * vb.y, va.z * vb.z, va.w * vb.w);"),
                        "the kernel crashed: thread 32 of block 5, i = 672, read a float4 at "
                        "element 4 * i = 2688, past the end of the arrays (n = 896)",
                        "Hint: one element a thread here"),
    # near misses (helpers.exercises.near): a factor, a constant
    "halved": (("out[i] = a[i] * b[i];", "out[i] = a[i] * b[i] / 2;"),
               "every element of out is 0.5 times the right value", "divides by"),
    "plus_one": (("out[i] = a[i] * b[i];", "out[i] = a[i] * b[i] + 1;"),
                 "every element of out is the right value plus 1", "term by term"),
}
RIGHT = {
    "the_other_order": ("int i = " + INDEX + ";\n    " + STORE,
                        "out[threadIdx.x + blockDim.x * blockIdx.x] =\n"
                        "        b[threadIdx.x + blockDim.x * blockIdx.x] *"
                        " a[threadIdx.x + blockDim.x * blockIdx.x];"),
    "grid_stride": ("int i = " + INDEX + ";\n    " + STORE,
                    "for (int i = " + INDEX + "; i < blockDim.x * gridDim.x;\n"
                    "         i += blockDim.x * gridDim.x)\n        " + STORE),
}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("multiply_vectors", {
        "solution": KERNEL, **{name: variant(KERNEL, w[0]) for name, w in WRONG.items()},
        **{name: variant(KERNEL, r) for name, r in RIGHT.items()}})


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_multiply_vectors_kernel(*kernels["solution"])
    assert verdict.passed is True and capsys.readouterr().out.startswith("PASS:")


def test_the_stub_as_shipped_is_not_yet_right(capsys):
    verdict = checker.check_multiply_vectors()
    assert verdict.passed is False
    assert verdict.problem.startswith("only the first block's elements were written"), verdict
    assert "blockIdx.x * blockDim.x + threadIdx.x" in verdict.hint


# reads far past a: a crash on the simulator, an illegal address on a GPU
SIMULATOR_ONLY = {"thread_place_multiplied": "reads past the end of a",
                  "block_of_1024": "reads past the end of a",
                  "roles_swapped": "reads past the end of a",
                  "float4_a_thread": "reads past the end of a"}


@pytest.mark.parametrize("name", simulator_only(list(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(kernels, name, capsys):
    verdict = checker.check_multiply_vectors_kernel(*kernels[name])
    assert verdict.passed is False
    assert verdict.problem.startswith(WRONG[name][1]), verdict
    assert all(words in str(verdict) for words in WRONG[name][2:]), verdict
    assert capsys.readouterr().out.count("NOT YET:") == 1


@pytest.mark.parametrize("name", RIGHT)
def test_a_kernel_right_in_another_way_passes(kernels, name):
    assert checker.check_multiply_vectors_kernel(*kernels[name]).passed is True


def test_the_grader_s_cases_have_several_blocks_of_other_sizes():
    drawn = checker.EXERCISE.draw(np.random.default_rng(5))
    assert len(drawn) == 3 and all(blocks > 1 and blocks % 2 for _, blocks in drawn)


def test_the_reads_not_the_racing_stores_tell_a_store_at_the_threads_place(kernels):
    """The blocks race on out[0 .. blockDim.x - 1]; a GPU may leave block 0's results in all of
    them, which i = threadIdx.x alone leaves too. What the blocks read tells the two apart."""
    from helpers.exercises.kernel import Kernels
    size = 32
    launch = checker._launch((size, 3))
    reads = {name: checker.read_past_block_0(Kernels(*kernels[name]), launch, size)
             for name in ("stored_at_thread_index", "thread_index_only")}
    assert reads == {"stored_at_thread_index": True, "thread_index_only": False}
    a, b = launch.model
    unwritten = np.arange(a.size) >= size
    got = np.where(unwritten, np.nan, np.resize(a[:size] * b[:size], a.size))  # block 0's, last
    (problem, hint), = checker.stored_at_thread(got, unwritten, a * b, size, "out", lambda: True)
    assert problem.startswith("every block stored at out[threadIdx.x]") and "landed last" in problem


def test_pythons_power_for_the_product_is_named_whole():
    """Blind audit THB-multiply_vectors-1: a[i] ** b[i], which C reads as a[i] * (*b[i]) (was
    '... writes a[i] ** b, Python's power ... Hint: multiply it out: powf(a[i], b)', b's [i] lost
    and a power hinted where the exercise multiplies)."""
    assert_refused_and_named(checker.check_multiply_vectors, "multiply_vectors", "power",
                             [(STORE, "out[i] = a[i] ** b[i];")],
                             {"problem": "line 10 writes a[i] ** b[i]: C has no ** operator "
                                         "(Python's power): it reads a[i] * (*b[i])",
                              "hint": "a product takes one *: out[i] = a[i] * b[i];"})


def test_a_guard_on_a_length_the_kernel_is_not_given_is_named():
    # blind audit AL (was '... does not compile: line 10 uses n, which nothing declared before it.
    # Hint: declare n with its type ... (int n = ...;)'): vector_add's guard if (i < n) copied,
    # but multiply_vectors has no parameter n, and its launch of whole blocks needs no guard
    assert_refused_and_named(checker.check_multiply_vectors, "multiply_vectors", "guard_on_n",
                             [(STORE, "if (i < n) {\n        " + STORE + "\n    }")],
                             {"problem": "line 10 uses n in the bounds guard if (i < n), but n is "
                                         "not a parameter of multiply_vectors (its parameters are "
                                         "a, b and out, no length)",
                              "hint": "drop the if (i < n) and keep its body: "
                                      "out[i] = a[i] * b[i];"})
