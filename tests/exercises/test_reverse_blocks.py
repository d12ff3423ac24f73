"""The block-reverse exercise of notebook 06 (helpers.exercises.reverse_blocks): the solution
passes, the stub fails, each usual mistake fails with its own hint (a missing barrier, found by
the race check whatever order the threads ran in; the last block mirrored as if full; a mirror
one off; the whole array reversed; the store unguarded), and kernels right in other ways pass.
All are compiled as one module (on a GPU, a second time by the simulator, for the race check)."""

import pytest

from kernel_sources import (assert_mistake_named, assert_refused_and_named, compile_variant_pairs,
                            simulator_only, solution, variant)

from helpers.backend import BACKEND
from helpers.exercises import reverse_blocks as checker

KERNEL = solution("reverse_blocks.cu")
BARRIER = "    __syncthreads();                       // every element is in s before any thread reads\n"
STORE = "out[start + j] = s[len - 1 - j]"

# name: (replacements in the solution, words the NOT YET line must contain)
WRONG = {
    # blind audit AC (was '996 of 1000 elements are wrong (the first is out[1] = -1.73828 ...):
    # ... Hint: element j of the block's output is its element len - 1 - j ...', silent on the
    # slip): the - j outside the brackets, s[len - 1] - j
    "minus_j_outside_the_brackets": ([("s[len - 1 - j];", "s[len - 1] - j;")],
                                     ["is s[len - 1] minus j", "out[1] = s[255] - 1",
                                      "the - j is outside the brackets",
                                      "Hint: move - j inside the brackets, into the index: "
                                      "out[start + j] = s[len - 1 - j]"]),
    # blind audit TOB-reverse_blocks-1: the load guarded by j < n where j < len belongs (was 'a
    # read of in[1000] ... Hint: ... a guard like if (i < n)', a guard like the learner's own)
    "load_guarded_by_j_lt_n": ([("    if (j < len)\n        s[j]", "    if (j < n)\n        s[j]")],
                               ["the load's guard is j < n where j < len belongs",
                                "block 3, which has only len = n - start = 1000 - 768 = 232",
                                "threads j = 232 to 255 read in[1000] to in[1023]",
                                "if (j < len) s[j] = in[start + j];"]),
    # blind audit TPB-reverse_blocks-1: j = threadIdx.x % 32, the warp's lane (was '... a data
    # race on s[0] ... thread (0, 0, 0) ... and thread (32, 0, 0) ... Hint: two threads store into
    # the same element of the shared array: ... check its indices and the loops' steps')
    "j_as_the_lane": ([("int j = threadIdx.x;", "int j = threadIdx.x % 32;")],
                      ["threads 0 and 32 of block 0 both loaded s[0]", "j = threadIdx.x % 32",
                       "only s[0] to s[31] were loaded, each by 8 threads",
                       "j is the thread's place in the block, 0 to 255, not its lane in a warp: "
                       "int j = threadIdx.x;"]),
    # blind audit TWB-reverse_blocks-1: the barrier inside the load's if (was 'PASS: every block
    # of 256 elements (fewer in the last) reversed ...': threads 232 to 255 of the last block skip
    # it and return, a barrier that not every thread of the block reaches)
    "barrier_inside_the_load_s_if": ([("    if (j < len)\n        s[j] = in[start + j];\n    __syncthreads();",
                                       "    if (j < len) {\n        s[j] = in[start + j];\n        __syncthreads();\n    }")],
                                     ["the __syncthreads() at line ", "is inside if (j < len): in the last",
                                      "in the last, partial block, block 3 (n = 1000, len = 232), "
                                      "threads j = 232 to 255 have j < len false",
                                      "every thread of the block must reach each __syncthreads(): "
                                      "take it out of the if"]),
    "no_barrier": ([(BARRIER, "")], ["data race on s[", "__syncthreads()"]),
    # audit F21: the barrier without its parentheses names the function and calls nothing (nvcc
    # compiles it too); named from the simulator's compiler records
    "barrier_without_parentheses": ([(BARRIER, "    __syncthreads;\n")],
                                    ["the __syncthreads at line ", "is never called",
                                     "__syncthreads();"]),
    # blind audit TFB-reverse_blocks-1: the warp's barrier where the block's belongs (was 'kernel
    # 'reverse_blocks' has a data race on s[255] ...: thread (255, 0, 0) ... writes it at
    # reverse_blocks.cu:17, and thread (0, 0, 0) ... reads it at reverse_blocks.cu:20, with no
    # barrier between the two ... Hint: put a __syncthreads() between the write and the read ...',
    # the learner's __syncwarp() there not named)
    "syncwarp_for_barrier": ([(BARRIER, "    __syncwarp();\n")],
                             ["the __syncwarp() at ", "waits only for the 32 threads of its own "
                              "warp, not for the block: thread 255 (warp 7) writes s[255] at ",
                              ", and thread 0 (warp 0) reads it at ", "threads of different "
                              "warps, which a __syncwarp() does not hold back",
                              "Hint: a barrier for the whole block: __syncthreads() in the "
                              "__syncwarp()'s place"]),
    # audit F20: a fence where the barrier belongs; the race is the same, and named as such
    "fence_for_barrier": ([(BARRIER, "    __threadfence();\n")],
                          ["with no barrier between the two, only a fence, at which no thread waits",
                           "Hint: a fence is not a barrier", "put a __syncthreads() in its place"]),
    "last_block_mirrored_as_full": ([("s[len - 1 - j]", "s[BLOCK - 1 - j]")],
                                    ["mirrored as if it had 256", "min(BLOCK, n - start)"]),
    # blind audit TDB-reverse_blocks-1: s a local array, each thread's own (was 'every element of
    # out is the right value cut to a whole number (toward zero)', the values being in (-1, 1))
    "s_not_shared": ([("__shared__ float s[BLOCK];", "float s[BLOCK];")],
                     ["s is not in shared memory", "each thread had its own s",
                      "__shared__ float s[BLOCK];"]),
    # blind audit TEB-reverse_blocks-1: s declared int, each float cut to a whole number on its way
    # through s (was '1000 of 1000 elements are wrong (the first is out[0] = 0, expected
    # -0.738279) ... Hint: element j of the block's output is its element len - 1 - j: ...', the
    # mirror the learner had right); told from a kernel that stores 0 by a launch of in * 1000
    "s_declared_int": ([("__shared__ float s[BLOCK];", "__shared__ int s[BLOCK];")],
                       ["every element of out is its mirror cut to a whole number (toward zero)",
                        "a shared array declared int (__shared__ int s[BLOCK])",
                        "Hint: s carries in's floats: declare it __shared__ float s[BLOCK]"]),
    # blind audit TGB-reverse_blocks-1: len one short (was '232 of 1000 elements are wrong (the
    # first is out[768] = 0.453813, expected -0.216503): out[768] was stored by thread (0, 0, 0)
    # ... Hint: element j of the block's output is its element len - 1 - j: ...', len not named)
    "len_one_short": ([("int len = min(BLOCK, n - start);", "int len = min(BLOCK, n - start - 1);")],
                      ["the last block's len is one short: it holds n - start = 232 elements "
                       "(out[768] to out[999]) but mirrored 231", "out[999] was never written",
                       "the - 1 in len = min(BLOCK, n - start - 1)",
                       "Hint: len counts the block's elements: len = min(BLOCK, n - start)"]),
    # blind audit TQB-reverse_blocks-1: len = n % BLOCK in every block (was '768 of 1000 elements
    # are wrong (the first is out[0] = 0.378852, expected -0.738279): out[0] was stored by thread
    # (0, 0, 0) ... loaded in[0] and s[231] ... Hint: element j of the block's output is ...', the
    # len of the full blocks not named)
    "len_of_the_last_block_everywhere": ([("int len = min(BLOCK, n - start);", "int len = n % BLOCK;")],
                                         ["every block mirrored len = n % BLOCK = 1000 % 256 = 232 "
                                          "elements, the last block's count, where its own belongs",
                                          "out[0] = 0.378852 got in[231], expected in[255]",
                                          "Hint: each block counts its own elements: len = min(BLOCK, "
                                          "n - start), BLOCK in every full block"]),
    # blind audit TJB-reverse_blocks-1: len one too many (was 'the kernel wrote past the end of out
    # (as far as out[1000]; ...) ... Hint: only threads with j < len store: keep the guard if (j <
    # len) on the store too', the guard being kept)
    "len_one_too_many": ([("int len = min(BLOCK, n - start);", "int len = min(BLOCK, n - start + 1);")],
                         ["the last block's len is one too many: it holds n - start = 232 elements "
                          "(out[768] to out[999]) but mirrored 233", "out[1000]",
                          "the + 1 in len = min(BLOCK, n - start + 1)",
                          "Hint: len counts the block's elements: len = min(BLOCK, n - start)"]),
    "mirror_one_off": ([("s[len - 1 - j]", "s[len - j]")], ["one element off"]),
    "len_not_capped": ([("int len = min(BLOCK, n - start);", "int len = n - start;")],
                       ["far past the end of s", "len = min(BLOCK, n - start)"]),
    # blind audit THB-reverse_blocks-1: max where min belongs (was 'the kernel crashed: ... Hint:
    # thread 0 read s[999], far past the end of s ...: from the whole array's last element n - 1
    # (s[n - 1 - j]) or from a len not capped at BLOCK ...', two causes, max not named)
    "len_the_larger": ([("int len = min(BLOCK, n - start);", "int len = max(BLOCK, n - start);")],
                       ["len came out the larger of BLOCK and n - start, max(BLOCK, n - start), "
                        "where the smaller, min, belongs",
                        "thread 0 of block 0 read s[999], far past the end of s",
                        "Hint: len counts the block's elements, at most BLOCK: the smaller of "
                        "the two, len = min(BLOCK, n - start)"]),
    # blind audit F19: the mirror against the whole array (was 'len counts more than the
    # block's elements', len being right); block 0 reads as with len = n - start
    "mirror_against_n": ([("s[len - 1 - j]", "s[n - 1 - j]")],
                         ["far past the end of s", "s[n - 1 - j]", "len = n - start",
                          "out[start + j] = s[len - 1 - j]"]),
    "every_block_loads_block_0": ([("s[j] = in[start + j]", "s[j] = in[j]")],
                                  ["every block mirrored block 0's elements", "s[j] = in[start + j]"]),
    "last_block_of_n_mod_block": ([("int len = min(BLOCK, n - start);",
                                    "int len = (blockIdx.x == gridDim.x - 1) ? n % BLOCK : BLOCK;")],
                                  ["the last block wrote nothing", "min(BLOCK, n - start)"]),
    "whole_array_reversed": ([(STORE, "out[n - 1 - start - j] = s[j]")],
                             ["the whole array was reversed", "its own elements"]),
    "stores_into_the_next": ([(STORE, "out[start + j + 1] = s[len - 1 - j]")],
                             ["one too far", "out[start + j]"]),
    "load_guard_off_by_one": ([("    if (j < len)\n        s[j]", "    if (j <= len)\n        s[j]")],
                              ["a read of in[1000] at ", "1 element past the end"]),
    # blind audit TNB-reverse_blocks-1: the load's guard compares the global index with len (was
    # '744 of 1000 elements are wrong (the first is out[256] = nan, expected -0.608197): out[256]
    # was stored by thread (0, 0, 0) of block (1, 0, 0) at line 20, which loaded s[255] ... Hint:
    # element j of the block's output is its element len - 1 - j: out[start + j] = s[len - 1 -
    # j] ...', the store, which was right, blamed)
    "load_guard_global": ([("    if (j < len)\n        s[j]", "    if (start + j < len)\n        s[j]")],
                          ["no thread of a block past 0 loaded into s", "the load's guard "
                           "compared start + j with len", "block 1: start + j = 256 to 511, len = "
                           "256", "yet every block stored into out, from an s never filled",
                           "Hint: the load's guard is the store's, the thread's place in its "
                           "block against the block's len: if (j < len) s[j] = in[start + j];"]),
    "store_unguarded": ([("    if (j < len)\n        out", "    out")],
                        ["if (j < len) on the store"]),
    "barrier_after_the_store": ([(BARRIER, ""), ("s[len - 1 - j];", "s[len - 1 - j];\n"
                                                 "    __syncthreads();")],
                                ["data race on s[", "__syncthreads()"]),
    "j_global": ([("int j = threadIdx.x;", "int j = blockIdx.x * blockDim.x + threadIdx.x;")],
                 ["only block 0 wrote", "j = threadIdx.x"]),
    # blind audit W7: len capped before the start is taken away, 0 or less past block 0 (was
    # 'only block 0 wrote ...: in block b j ran from b * 256 ... Hint: ... j = threadIdx.x', j
    # being right); told from j_global by a launch of 128-thread blocks
    "len_capped_before_the_start": ([("int len = min(BLOCK, n - start);",
                                      "int len = min(BLOCK, n) - start;")],
                                    ["only block 0 wrote", "len came out 0 or less in every "
                                     "block past 0", "Hint: a block's len is its own elements",
                                     "len = min(BLOCK, n - start)"]),
    "start_steps_grid": ([("int start = blockIdx.x * BLOCK;", "int start = blockIdx.x * gridDim.x;")],
                         ["data race on out[", "start = blockIdx.x * BLOCK"]),
    "len_of_block_index": ([("int len = min(BLOCK, n - start);",
                             "int len = min(BLOCK, n - (int)blockIdx.x);")],
                           ["as if it had 256, past the end of out", "len = min(BLOCK, n - start)"]),
    # audit 2: the store without start; the mirror from s[-1]
    "store_without_start": ([(STORE, "out[j] = s[len - 1 - j]")],
                            ["every block stored its elements into out[0 .. 255]",
                             "without the block's start", "out[start + j] = s[len - 1 - j]"]),
    "mirror_adds_start": ([("s[len - 1 - j]", "s[start + len - 1 - j]")],
                          ["thread 0 of block 1 read s[511], start + len - 1", "s[len - 1 - j]"]),
    # blind audit Q7: the mirror written back into s in place, then stored (a race on s)
    "mirror_in_place": ([(STORE, "{ s[j] = s[len - 1 - j]; out[start + j] = s[j]; }")],
                        ["s is written after the barrier while partner threads still read it",
                         "Hint: leave s as loaded", "out[start + j] = s[len - 1 - j]"]),
    # blind audit S7: the mirror from the element's global number (was 'the kernel crashed: thread
    # (0, 0, 0) of block (1, 0, 0) indexed an array before its start (index -1) ... Hint: thread 0
    # read s[-1], before the start of s: the mirror counts back from the block's last element ...')
    "mirror_of_the_global_element": ([("s[len - 1 - j]", "s[len - 1 - (start + j)]")],
                                     ["thread 0 of block 1 read s[-1] at ", "before the start of s: the "
                                      "mirror's index took the element's global number, start + j "
                                      "= 256", "Hint: mirror with the thread's place in its block, "
                                      "j = threadIdx.x: out[start + j] = s[len - 1 - j]"]),
    # blind audit U7: the mirror's parentheses add j (was 'the kernel crashed: thread (1, 0, 0) of
    # block (0, 0, 0) indexed an array past the size it was declared with (index 256) ... Hint: a
    # thread with j >= len read s[len - 1 - j], before the start of s ...')
    "mirror_adds_j": ([("s[len - 1 - j]", "s[len - (1 - j)]")],
                      ["thread 1 of block 0 read s[256], past the end of s", "s[len - 1 + j], "
                       "the mirror added j", "Hint: the mirror is s[len - 1 - j]"]),
    # blind audit TB-reverse_blocks-1: the store mirrored too (was 'the output is the input,
    # unchanged: nothing was reversed ... Hint: element j of the block's output is its element
    # len - 1 - j: ...', though the read of s mirrored)
    "mirrored_twice": ([(STORE, "out[start + len - 1 - j] = s[len - 1 - j]")],
                       ["the output is the input, unchanged: the mirror, len - 1 - j, was applied "
                        "twice, in the read of s and the store into out", "thread 3 of block 1, "
                        "start = 256, len = 256: loaded in[259], put it in s[3], read s[252], "
                        "stored that at out[508]", "Hint: mirror once, in the read of s alone"]),
    "load_and_read_mirrored": ([("s[j] = in[start + j]", "s[j] = in[start + len - 1 - j]")],
                               ["was applied twice, in the load from in and the read of s",
                                "loaded in[508]"]),
    # blind audit AG (was '... indexed an array past the size it was declared with (index 255)
    # ... Hint: ... declare it as large as the largest index that reaches it'): s declared one
    # short, s[BLOCK - 1], sized by the largest index 255, not the count 256
    "s_declared_one_short": ([("__shared__ float s[BLOCK];", "__shared__ float s[BLOCK - 1];")],
                             ["s is declared with 255 floats, one fewer than the block's 256 "
                              "threads", "thread 255 of block 0 reached s[255]",
                              "Hint: s needs one element for each of the block's 256 threads, "
                              "__shared__ float s[BLOCK]"]),
    "mirror_from_minus_one": ([("s[len - 1 - j]", "s[-1 - j]")],
                              ["(index -1)", "s[-1], before the start of s", "s[len - 1 - j]"]),
}
# The simulator only: on a GPU an index outside a shared array may be an illegal address, which
# leaves the CUDA context unusable for every test after it in the process.
SIMULATOR_ONLY = dict.fromkeys(("mirror_one_off", "store_unguarded", "len_not_capped", "mirror_against_n",
                                "len_the_larger",
                                "mirror_adds_start", "mirror_of_the_global_element",
                                "mirror_adds_j", "s_declared_one_short"),
                               "an index outside a shared array may break the GPU's context")
SIMULATOR_ONLY.update(
    mirror_in_place="threads overwrite s while their partners read it: on a GPU the values "
                    "depend on timing",
    mirror_from_minus_one="an index before a shared array's start may be an illegal address",
    store_without_start="the blocks race on out[0 .. 255]: on a GPU which block's store stays "
                        "there, element by element, is a matter of timing",
    s_not_shared="each thread reads elements of its own local s that it never wrote: garbage "
                 "on a GPU",
    j_as_the_lane="threads j and j + 32 load the same s[j % 32], and out reads s[len - 1 - j], "
                  "never loaded: garbage on a GPU",
    load_guard_global="blocks past 0 read s that none of their threads loaded: garbage, or an "
                      "earlier block's, on a GPU")
# Right, not the solution's way: each must pass
RIGHT = {
    "early_return": [("    int j = threadIdx.x;\n",
                      "    int j = threadIdx.x;\n    if (j >= len)\n        return;\n")],
    "mirrored_on_the_store": [(STORE, "out[start + len - 1 - j] = s[j]")],
    # a barrier inside an if whose condition every thread of the block shares
    "barrier_in_an_if_on_len": [(BARRIER, "    if (len > 0) {\n        __syncthreads();\n    }\n")],
    "mirrored_on_the_load": [("s[j] = in[start + j]", "s[len - 1 - j] = in[start + j]"),
                             (STORE, "out[start + j] = s[j]")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{name: variant(KERNEL, *r) for name, (r, _) in WRONG.items()},
               **{name: variant(KERNEL, *r) for name, r in RIGHT.items()}}
    return compile_variant_pairs("reverse_blocks", sources)


def run_checker(pair, capsys):
    verdict = checker.check_reverse_blocks_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_the_solution_passes(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert (verdict.level, "no race" in verdict.problem) == ("PASS", True), out


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.passed is True, out


def test_the_stub_fails_saying_nothing_was_reversed(capsys):
    verdict = checker.check_reverse_blocks()
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, "stub", ["nothing was reversed"])


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_a_known_mistake_fails_with_its_hint(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, WRONG[name][1])


def test_on_a_gpu_the_race_check_needs_the_simulator_s_kernel(kernels):
    if BACKEND == "simulator":
        pytest.skip("on the simulator the notebook's kernel is the simulator's")
    with pytest.raises(ValueError, match="the kernel compiled by the simulator too"):
        checker.check_reverse_blocks_kernel(kernels["solution"][0])


# Mistakes the compiler refuses, named from the simulator's record of g++'s first error: blind
# audit H13, the host's wait as the barrier (was 'does not compile. Hint: read the compiler's first
# error')
DOES_NOT_COMPILE = {
    "host_wait_as_the_barrier": ([("    __syncthreads();                       // every element",
                                   "    cudaDeviceSynchronize();               // every element")],
                                 {"problem": "line 18 calls cudaDeviceSynchronize: "
                                             "cudaDeviceSynchronize is the host's wait for the whole "
                                             "device",
                                  "hint": "inside a kernel the threads of a block wait for each "
                                          "other at __syncthreads();"}),
    # blind audit TXB-reverse_blocks-1: the shared array sized like a Python list, s[len] (was
    # '... line 12 uses len, which nothing declared before it. Hint: declare len with its type
    # before its first use ...', which would still not compile)
    "shared_array_sized_by_len": ([("__shared__ float s[BLOCK];", "__shared__ float s[len];")],
                                  {"problem": "line 12 sizes the __shared__ array s with len, a "
                                              "variable (line 14) whose value is known only when "
                                              "the kernel runs: the size of a __shared__ array "
                                              "must be a constant the compiler knows",
                                   "hint": "size it with the constant, __shared__ float "
                                           "s[BLOCK];, and let only the threads j < len use it"}),
}

@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    assert_refused_and_named(checker.check_reverse_blocks, "reverse_blocks", name, *DOES_NOT_COMPILE[name])


def test_the_global_element_s_mirror_is_named_without_the_launch():
    """From the race-checked launch on the simulator (how a GPU's check finds it) the failure
    carries no launch: the mirror from start + j is named from the error's fields alone."""
    from types import SimpleNamespace

    from helpers.exercises.failure import Failure

    err = SimpleNamespace(kind="array bounds", block=(2, 0, 0), thread=(3, 0, 0),
                          element=255 - (512 + 3), line="/tmp/k.cu:20")
    problem, hint = next(checker._refine(Failure(err, (256, 1, 1))))
    assert problem.startswith("thread 3 of block 2 read s[-260] at k.cu:20, before the start of "
                              "s: the mirror's index took the element's global number, start + "
                              "j = 515"), problem
    assert hint.endswith("out[start + j] = s[len - 1 - j]"), hint


@pytest.mark.skipif(BACKEND != "simulator", reason=SIMULATOR_ONLY["store_without_start"])
def test_blocks_storing_into_out_0_are_named_whichever_landed_last(kernels, capsys, monkeypatch):
    """store_without_start's blocks race on out[0 .. 255]: where block 0's store happened to land
    last everywhere, out holds block 0's mirror there, as when only block 0 wrote (a fresh
    clone's run named len = min(BLOCK, n) - start): the trace of the stores tells them apart."""
    original = checker._block_mistakes

    def block_0_landed_last(n, run):
        if n > checker.BLOCK:
            run.out.got[:checker.BLOCK] = run.model[:checker.BLOCK][::-1]
        yield from original(n, run)

    monkeypatch.setattr(checker, "_block_mistakes", block_0_landed_last)
    verdict, out = run_checker(kernels["store_without_start"], capsys)
    assert "every block stored its elements into out[0 .. 255]" in verdict.problem, out
