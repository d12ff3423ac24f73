"""The depth_range checker (notebook 10): the solution and two unusual right kernels pass, the
stub and the usual mistakes of a min and max with atomics fail, each with the verdict that names
it. A plain compare-and-store is found by the simulator's race check, on either backend."""

import pytest

from kernel_sources import (ROOT, assert_refused_and_named, compile_variant_pairs, simulator_only,
                            solution, variant)

from helpers.exercises import catalog
from helpers.exercises import depth_range as checker
from helpers.exercises.depth_range_models import result_stored_back
from helpers.exercises.kernel import Kernels

KERNEL = solution("depth_range.cu")
STUB = (ROOT / "cuda_src" / "exercises" / "depth_range.cu").read_text()
HOLE = "    if (d == 0)\n        return;\n"
ATOMICS = "    atomicMin(&range[0], d);\n    atomicMax(&range[1], d);\n"

BODY = ("    if (i >= n)\n        return;\n    unsigned int d = depth[i];\n" + HOLE + ATOMICS)
# each warp's nearest and farthest combined with shuffles, then lane 0's atomics
WARP_MIN_MAX = ("    unsigned int lo = 0xffffffffu, hi = 0u;\n    if (i < n) {{\n"
                "        unsigned int d = depth[i];\n        if (d != 0) {{ lo = d; hi = d; }}\n"
                "    }}\n    for (int off = {first}; off > 0; off >>= 1) {{\n"
                "        lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, off));\n"
                "        hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, off));\n    }}\n"
                "    if ((threadIdx.x & 31) == 0 && hi != 0) {{\n"
                "        atomicMin(&range[0], lo);\n        atomicMax(&range[1], hi);\n    }}\n")

# name: (replacements in the solution, words of the verdict's problem, words of its hint)
WRONG = {
    "holes_counted": ([(HOLE, "")], "the nearest depth came out 0", "return when d == 0"),
    # blind audit TNA-depth_range-1 (was 'the nearest depth came out 0: holes (depth 0, no
    # measurement) were counted ... Hint: a hole is no point: return when d == 0 ...', the learner
    # believing they have that test): the pointer depth compared with 0, not d
    "pointer_compared_with_0": ([("if (d == 0)", "if (depth == 0)")],
                                "no hole was skipped. if (depth == 0) compares the pointer "
                                "depth with 0, not the pixel's value d: it is never true",
                                "test the value read, not the pointer: if (d == 0) return;"),
    # blind audit TKA-depth_range-1 (was 'range is {1, 255}, expected {250, 9000}: depths were
    # lost. Hint: a compare and a store are two steps ...', a race there is not)
    "depth_in_a_byte": ([("unsigned int d = depth[i];", "unsigned char d = depth[i];")],
                        "depths cut to their low byte (depth[i] & 0xFF, 0 to 255): d was "
                        "declared unsigned char",
                        "unsigned int d = depth[i];"),
    # blind audit AH (was 'PASS: range holds the nearest and the farthest measured depth ...'):
    # d declared a signed short, so depths from 32768 on turned negative
    "depth_in_a_signed_short": ([("unsigned int d = depth[i];", "short d = depth[i];")],
                                "range[1] came out 4294941760 for a depth of 40000: d was "
                                "declared short, signed",
                                "keep the depth unsigned, as the camera gives it (0 to 65535): "
                                "unsigned int d = depth[i];"),
    # blind audit TSA-depth_range-1: millimetres made metres, as backproject_range does (was
    # 'range is {1, 9}, expected {250, 9000}: depths were lost ... Hint: a compare and a store
    # are two steps ...', the atomics already there)
    "depth_in_metres": ([("unsigned int d = depth[i];", "unsigned int d = depth[i] / 1000;")],
                        "range is {1, 9}, expected {250, 9000}: the range of the depths divided "
                        "by 1000, in whole metres",
                        "keep the depths in millimetres, as the camera gives them: unsigned int "
                        "d = depth[i]; with no / 1000"),
    # blind audit AF (was 'the farthest depth came out 65000, what lies past the end of depth:
    # threads past n read it ... Hint: ... if (i >= n) return; first', a guard the kernel has):
    # the guard i > n lets thread i = n through
    "guard_lets_n_through": ([("if (i >= n)", "if (i > n)")],
                             "the bounds guard lets thread i = n through (i > n, where i >= n is "
                             "needed)", "send away every thread from n on: if (i >= n) return;"),
    # blind audit AIC-depth_range-1 (was 'the farthest depth came out 65000, what lies past the
    # end of depth: threads past n read it ... Hint: ... if (i >= n) return; first', a guard the
    # kernel has): the guard inverted, every thread with a pixel returns
    "guard_inverted": ([("if (i >= n)", "if (i < n)")],
                       "the bounds guard is inverted: if (i < n) return; sends away every thread "
                       "with a pixel", "return when i >= n, not i < n"),
    "no_bounds_guard": ([("    if (i >= n)\n        return;\n", "")],
                        "what lies past the end of depth", "if (i >= n) return;"),
    # blind audit G19 (was 'range is {4294967295, 9000}, expected {250, 9000}, and the race
    # check finds no race: not every pixel was looked at, or a depth went to the other end')
    "atomics_on_signed_ints": ([(ATOMICS, "    atomicMin((int *)&range[0], (int)d);\n"
                                          "    atomicMax((int *)&range[1], (int)d);\n")],
                               "range[0] never moved from its start", "no cast to int *"),
    "no_atomic_min": ([(ATOMICS, "    atomicMax(&range[1], d);\n")],
                      "range[0] never moved from its start", "atomicMin(&range[0], d)"),
    "min_and_max_swapped": ([("atomicMin(&range[0]", "atomicMax(&range[0]"),
                             ("atomicMax(&range[1]", "atomicMin(&range[1]")],
                            "range is as it started", "atomicMin(&range[0], d)"),
    # blind audit N10 (was 'range is as it started, {4294967295, 0}: no depth made it nearer or
    # farther ... Hint: keep the nearest with atomicMin(&range[0], d), ...'): the slots swapped
    "atomics_into_each_other_s_slots": ([(ATOMICS, "    atomicMin(&range[1], d);\n"
                                                   "    atomicMax(&range[0], d);\n")],
                                        "range[0] got the atomicMax and range[1] the atomicMin",
                                        "range[0] is the nearest, range[1] the farthest"),
    # blind audit AB (was 'range[1] came out 0, the value it started with (or a hole's): no
    # measured depth was kept as the farthest ... Hint: keep the farthest with atomicMax(&range[1],
    # d), ...', as for a missing atomicMax): the atomicMax into range[0], the nearest's slot
    "atomic_max_into_range_0": ([("atomicMax(&range[1], d);", "atomicMax(&range[0], d);")],
                                "the atomicMax went into range[0], the nearest's slot",
                                "the farthest goes in range[1]: atomicMax(&range[1], d)"),
    "only_block_0": ([("blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x")],
                     "block 0's pixels only", "blockIdx.x * blockDim.x"),
    # blind audit AC (was 'range is {335, 7853}, expected {250, 9000}, and the race check finds
    # no race: not every pixel was looked at, or a depth went to the other end'): threadIdx.x and
    # blockIdx.x swapped in the index
    "thread_and_block_swapped": ([("blockIdx.x * blockDim.x + threadIdx.x",
                                   "threadIdx.x * blockDim.x + blockIdx.x")],
                                 "range is {335, 7853}, expected {250, 9000}: the range of pixels "
                                 "0 to 7, 128 to 135, 256 to 263, ... only (64 of the 1000): i = "
                                 "threadIdx.x * blockDim.x + blockIdx.x has threadIdx.x and "
                                 "blockIdx.x swapped",
                                 "blockIdx.x * blockDim.x + threadIdx.x"),
    # blind audit TIA-depth_range-1: the atomics only in thread 0 of each block, dot_product's
    # one atomic a block (was 'range is {882, 7828}, expected {250, 9000}, and the race check
    # finds no race: not every pixel was looked at, or a depth went to the other end')
    "atomics_in_thread_0_only": ([(ATOMICS, "    if (threadIdx.x == 0) {\n"
                                            "        atomicMin(&range[0], d);\n"
                                            "        atomicMax(&range[1], d);\n    }\n")],
                                 "range is {882, 7828}, expected {250, 9000}: the range of pixels "
                                 "0, 128, 256, ..., each block's first pixel only: the atomics ran "
                                 "only in thread 0 of each block (threadIdx.x == 0)",
                                 "every thread does both atomics for its own pixel"),
    # blind audit AO (was 'the last pixel (i = n - 1, the nearest depth) was not looked at: the
    # bounds guard is off by one ...', a guard the kernel has right): each block's range kept in
    # shared lo and hi and published by thread 0, which returned where its pixel is a hole
    "block_range_published_by_a_returned_thread_0": (
        [("    int i = blockIdx.x", "    __shared__ unsigned int lo, hi;\n"
          "    if (threadIdx.x == 0) { lo = 4294967295u; hi = 0; }\n    __syncthreads();\n"
          "    int i = blockIdx.x"),
         (ATOMICS, "    atomicMin(&lo, d);\n    atomicMax(&hi, d);\n    __syncthreads();\n"
                   "    if (threadIdx.x == 0) {\n        atomicMin(&range[0], lo);\n"
                   "        atomicMax(&range[1], hi);\n    }\n")],
        "blocks whose thread 0 has a measured pixel only: thread 0 publishes its block's range, "
        "but in", "let no thread return before thread 0 publishes them"),
    # blind audit TLA-depth_range-1: the index an unsigned short, as a depth is, wraps at 65,536
    # (was 'the last pixel (i = n - 1, the nearest depth) was not looked at: the bounds guard is
    # off by one ... Hint: ... if (i >= n) return; first (>=, not >)', a guard the code has)
    "index_an_unsigned_short": ([("int i = blockIdx.x", "unsigned short i = blockIdx.x")],
                                "pixels 65536 to 70000 were never looked at: i is an unsigned "
                                "short, which wraps at 65,536",
                                "int i = blockIdx.x * blockDim.x + threadIdx.x"),
    # blind audit TTA-depth_range-1: the hint's aside '(>=, not >)' fitted a guard of i > n, not
    # the learner's i >= n - 1 (was '... if (i >= n) return; first (>=, not >)')
    "last_pixel_left_out": ([("if (i >= n)", "if (i >= n - 1)")],
                            "the last pixel (i = n - 1, the nearest depth) was not looked at: the "
                            "bounds guard is off by one, thread i = n - 1 returned",
                            "if (i >= n) return; first: the bound is n, not n - 1"),
    "farthest_never_kept": ([("    atomicMax(&range[1], d);\n", "")], "range[1] came out 0",
                            "atomicMax(&range[1], d)"),
    # blind audit TFA-depth_range-1: Python's last element, range[-1], is the slot before range in
    # C (was 'range[1] came out 0 ...', the write before range unseen)
    "farthest_at_minus_1": ([("atomicMax(&range[1], d)", "atomicMax(&range[-1], d)")],
                            "atomicMax wrote range[-1], the element before range's start",
                            "atomicMax(&range[1], d)"),
    # blind audit T10: the slot addressed in bytes, range + sizeof(unsigned int), is range[4]
    # (was 'range[1] came out 0 ...', the write past range unseen under the old guard's poison)
    "farthest_offset_in_bytes": ([("atomicMax(&range[1], d)",
                                   "atomicMax(range + sizeof(unsigned int), d)")],
                                 "range + sizeof(unsigned int) counts 4 elements, not 4 bytes",
                                 "&range[1] (or range + 1)"),
    # blind audit TGA-depth_range-1: the pixel's index kept as the farthest, not its depth (was
    # 'range is {250, 999}, expected {250, 9000}, and the race check finds no race: not every
    # pixel was looked at, or a depth went to the other end ...')
    "farthest_index_not_depth": ([("atomicMax(&range[1], d)", "atomicMax(&range[1], i)")],
                                 "range[1] came out 999, the index of the last measured pixel, "
                                 "not a depth", "atomicMax(&range[1], d), d = depth[i]"),
    # blind audit TPA-depth_range-1: Python's exclusive end, the farthest kept plus one (was
    # 'range is {250, 9001}, expected {250, 9000}: depths were lost ... Hint: a compare and a
    # store are two steps ...', the atomics already there)
    "farthest_plus_1": ([("atomicMax(&range[1], d)", "atomicMax(&range[1], d + 1)")],
                        "range[1] came out 9001, one more than the farthest depth, 9000",
                        "no + 1: atomicMax(&range[1], d)"),
    # blind audit TXA-depth_range-1: gridDim for blockDim in the index (was 'range is {367,
    # 7966}, expected {250, 9000}, and the race check finds no race: not every pixel was looked
    # at, or a depth went to the other end ...', two causes and no gridDim)
    "grid_dim_for_block_dim": ([("blockIdx.x * blockDim.x", "blockIdx.x * gridDim.x")],
                               "range is {367, 7966}, expected {250, 9000}: the range of pixels 0 "
                               "to 183 only, pixels 184 to 999 were never looked at: i = "
                               "blockIdx.x * gridDim.x + threadIdx.x starts block b's pixels at "
                               "b * 8 (gridDim.x, the number of blocks), not b * 128 (blockDim.x",
                               "(gridDim.x is how many blocks there are): i = blockIdx.x * "
                               "blockDim.x + threadIdx.x"),
    # blind audit AU (was 'range is {250, 7998}, expected {250, 9000}, and the race check finds
    # no race: not every pixel was looked at, or a depth went to the other end ... Hint: thread i =
    # ... looks at depth[i], then atomicMin ...'): a warp's min and max combined by shuffles
    # started at offset 8, so lane 0's atomics never saw lanes 16 to 31
    "warp_shuffles_from_offset_8": ([(BODY, WARP_MIN_MAX.format(first=8))],
                                    "the range of lanes 0 to 15 of each warp only (pixels 0 to "
                                    "15, 32 to 47, 64 to 79, ...): the warp's shuffles started at "
                                    "offset 8",
                                    "start the shuffles at half the warp, 16"),
    "compare_and_store": ([(ATOMICS, "    if (d < range[0]) range[0] = d;\n"
                                     "    if (d > range[1]) range[1] = d;\n")],
                          ("race", "depths were lost"), "atomicMin(&range[0], d)"),
    # blind audit AE (was 'the range is that of pixels 1 to n - 1: pixel 0 was not looked at ...
    # Hint: i is one too many ...', an index the kernel has right): the two atomics in an if/else
    # on a plain read of range[0], so each depth reaches one of them alone
    "one_atomic_a_depth": ([(ATOMICS, "    if (d < range[0])\n        atomicMin(&range[0], d);\n"
                                      "    else\n        atomicMax(&range[1], d);\n")],
                           "each measured depth went to one atomic alone",
                           "with no if around them"),
    "added_not_kept": ([("atomicMax(&range[1], d)", "atomicAdd(&range[1], d)")],
                       "depths were lost", "atomicMax"),
    # blind audit TWA-depth_range-1: the hole test inverted, so only the holes reach the atomics
    # (was 'every depth became 0: range came out {0, 0}, if (d = 0) assigns 0 to d ... Hint:
    # compare with ==', an assignment the learner did not write)
    "hole_test_inverted": ([("if (d == 0)", "if (d != 0)")],
                           "the hole test is inverted: range came out {0, 0}, and with no holes "
                           "in the image it stayed {4294967295, 0}",
                           "return for the holes, when d == 0: if (d == 0) return;"),
    "assigned_not_compared": ([("if (d == 0)", "if (d = 0)")], ", d = 0, assigns where it should "
                              "compare", "which leaves d as it is: d == 0"),
    "pixel_0_skipped": ([("threadIdx.x;\n", "threadIdx.x + 1;\n")],
                        "the range is that of pixels 1 to n - 1", "i is one too many"),
    # the cases' junk after depth hid the read; the race-checked launch's depth has none
    "read_before_the_guard": ([("    if (i >= n)\n        return;\n    unsigned int d = depth[i];\n"
                                "    if (d == 0)", "    unsigned int d = depth[i];\n"
                                "    if (i >= n || d == 0)")],
                              "a read of depth[2000]", "check that index against that size"),
    "range_reset_in_the_kernel": ([("        return;\n    unsigned int d",
                                    "        return;\n    if (i == 0) { range[0] = 0xFFFFFFFF; "
                                    "range[1] = 0; }\n    unsigned int d")],
                                  ("race", "depths were lost"), "do not set it in the kernel"),
    # audit E (E38): the atomics' results stored back, Python's x = min(x, d): was 'range is as
    # it started ... Hint: keep the nearest with atomicMin(&range[0], d), ...'
    "atomic_result_stored_back": ([(ATOMICS, "    range[0] = atomicMin(&range[0], d);\n"
                                             "    range[1] = atomicMax(&range[1], d);\n")],
                                  ("the atomic's result was stored back", "depths were lost"),
                                  "with no range[0] = in front"),
    # blind audit J10 (was 'range is {250, 4294967295}, expected {250, 9000}: depths were lost
    # ... Hint: a compare and a store are two steps ...'): a hole made "infinitely far"
    "hole_made_infinitely_far": ([(HOLE, "    if (d == 0)\n        d = 0xFFFFFFFFu;\n")],
                                 "the holes (depth 0) were given a made-up depth, 4294967295",
                                 "skip it, return when d == 0"),
    # blind audit P10: a hole replaced by the nearest depth so far, read with a plain load
    "hole_reads_the_range": ([(HOLE, "    if (d == 0)\n        d = range[0];\n")],
                             "a hole reads range while other threads update it: thread",
                             "skip it, return when d == 0"),
    "hole_made_1_mm": ([(HOLE, "    if (d == 0)\n        d = 1;\n")],
                       "given a made-up depth, 1, which the atomics kept in range[0]",
                       "skip it, return when d == 0"),
    # blind audit TZA-depth_range-1: the block's number not multiplied by its size (was 'the
    # range is that of block 0's pixels only. Hint: every block has its pixels: ...', a symptom,
    # and pixels 0 to 134 were seen)
    "block_not_times_its_size": ([("int i = blockIdx.x * blockDim.x + threadIdx.x;",
                                   "int i = blockIdx.x + threadIdx.x;")],
                                 "the range of pixels 0 to 134 only, pixels 135 to 999 were never "
                                 "looked at: i = blockIdx.x + threadIdx.x",
                                 "multiply the block's number by its size"),
    # blind audit TA-depth_range-1, from the stub: its plain stores left above the atomics (was
    # 'range is {250, 250}, expected {250, 9000}: depths were lost. Hint: a compare and a store
    # are two steps ... atomicMin(&range[0], d) and atomicMax(&range[1], d) do both in one')
    "stub_s_stores_left_above_the_atomics": (
        [(ATOMICS, "    range[0] = d;\n    range[1] = d;\n" + ATOMICS)],
        "stores its depth into range[0] with a plain store at line",
        "delete the plain stores range[0] = d; and range[1] = d;"),
}
# on a GPU the reset lands before, among or after the other blocks' atomics, as the race goes
SIMULATOR_ONLY = {"range_reset_in_the_kernel": "on a GPU its outcome depends on a race",
                  "hole_reads_the_range": "on a GPU its outcome depends on a race",
                  "atomic_result_stored_back": "on a GPU its outcome depends on a race",
                  "stub_s_stores_left_above_the_atomics": "on a GPU its outcome depends on a race",
                  "one_atomic_a_depth": "its plain read of range[0] races with the atomics: on a "
                                        "GPU its outcome depends on a race"}
RIGHT = {
    "holes_skipped_by_an_if": [(HOLE + ATOMICS, "    if (d > 0) {\n        atomicMin(&range[0], d);"
                                                "\n        atomicMax(&range[1], d);\n    }\n")],
    # the fix the verdict of a block's range published by a returned thread 0 gives (blind
    # audit AO): no thread returns before the barrier, thread 0 publishes the shared lo and hi
    "block_range_in_shared_memory": [
        ("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n)\n        return;\n"
         "    unsigned int d = depth[i];\n" + HOLE + ATOMICS,
         "    __shared__ unsigned int lo, hi;\n"
         "    if (threadIdx.x == 0) { lo = 4294967295u; hi = 0; }\n    __syncthreads();\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    unsigned int d = i < n ? depth[i] : 0;\n"
         "    if (d != 0) { atomicMin(&lo, d); atomicMax(&hi, d); }\n    __syncthreads();\n"
         "    if (threadIdx.x == 0) {\n        atomicMin(&range[0], lo);\n"
         "        atomicMax(&range[1], hi);\n    }\n")],
    # the fix the verdict of shuffles started at offset 8 gives (blind audit AU)
    "warp_min_max_by_shuffles": [(BODY, WARP_MIN_MAX.format(first=16))],
    "grid_stride_loop": [("    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n)\n"
                          "        return;\n    unsigned int d = depth[i];\n" + HOLE + ATOMICS,
                          "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
                          "         i += blockDim.x * gridDim.x) {\n"
                          "        unsigned int d = depth[i];\n        if (d == 0) continue;\n"
                          "        atomicMin(&range[0], d);\n        atomicMax(&range[1], d);\n"
                          "    }\n")],
    # blind audit AW (was 'NOT YET: the simulator's race check found a data race ... reads it'):
    # atomicCAS loops whose first guess is a plain read, with no CAS where it cannot lower range[0]
    "cas_loop_seeded_by_a_plain_read": [
        ("__global__ void depth_range(",
         "__device__ void cas_min(unsigned int *addr, unsigned int v)\n{\n"
         "    unsigned int old = *(volatile unsigned int *)addr, assumed;\n"
         "    while (v < old) {\n        assumed = old;\n        old = atomicCAS(addr, assumed, v);\n"
         "        if (old == assumed) break;\n    }\n}\n\n__global__ void depth_range("),
        ("atomicMin(&range[0], d);", "cas_min(&range[0], d);")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, "stub": STUB,
               **{name: variant(KERNEL, *r) for name, r in RIGHT.items()},
               **{name: variant(KERNEL, *w[0]) for name, w in WRONG.items()}}
    return compile_variant_pairs("depth_range", sources)


def test_stub_as_shipped_is_not_yet(capsys):
    verdict = checker.check_depth_range()
    # the stub's threads all store into range[0]: on a GPU whichever store lands last wins, a
    # hole's 0 in some runs (the H200, 2026-12-03), so the first mistake named is either TODO's
    assert not verdict.passed and any(todo in verdict.hint for todo in (
        "atomicMin(&range[0], d)", "return when d == 0")), verdict
    assert catalog.as_shipped(catalog.find("depth_range")) == (
        ROOT / "cuda_src" / "exercises" / "depth_range.cu").read_text()


def test_an_atomic_s_result_stored_back_is_named_whatever_range_came_out(kernels):
    """Which store lands last decides range: as it started, or a depth lost (range[1] back to 0
    on two workers, in the ZIP copy's run of 2026-12-07, which got "no measured depth was kept
    as the farthest"): the race check names the mistake either way."""
    launch = checker._launch(checker.CASES[-1])
    stored = Kernels(None, kernels["atomic_result_stored_back"][1])
    for got in ([0xFFFFFFFF, 0], [250, 0]):
        problem, hint = next(result_stored_back(stored, launch, got))
        assert "the atomic's result was stored back" in problem and "no range[0] = in front" in hint
    assert list(result_stored_back(Kernels(None, kernels["solution"][1]), launch, [250, 0])) == []


@pytest.mark.parametrize("name", ["solution", *sorted(RIGHT)])
def test_right_kernels_pass(kernels, name, capsys):
    verdict = checker.check_depth_range_kernel(*kernels[name])
    assert verdict.passed is True, verdict


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_verdict(kernels, name, capsys):
    _, problem, hint = WRONG[name]
    verdict = checker.check_depth_range_kernel(*kernels[name])
    assert verdict.passed is False
    # the race: on the simulator the cases' launches give the right range by luck and the
    # race-checked launch names it; on a GPU the lost depths may show first
    problems = problem if isinstance(problem, tuple) else (problem,)
    assert any(p in verdict.problem for p in problems) and hint in verdict.hint, verdict


def test_the_grader_s_cases_pass_the_solution(kernels, capsys):
    verdict = checker.check_depth_range_kernel(*kernels["solution"], hidden=7)
    assert verdict.passed and "2 cases of the grader's own" in verdict.problem, verdict


# Mistakes the compiler refuses, each named from the simulator's record of g++'s first error
# (on a GPU, the same file compiled on the simulator): blind audit E37, a hole skipped with
# Python's continue (was 'does not compile. Hint: read the compiler's first error ...')
DOES_NOT_COMPILE = {
    "hole_skipped_with_continue": ([(HOLE, "    if (d == 0)\n        continue;\n")],
                                   "line 15 has continue outside any loop",
                                   "to skip this thread's element, return"),
    "hole_skipped_with_break": ([(HOLE, "    if (d == 0)\n        break;\n")],
                                "line 15 has break outside any loop", "return"),
    # blind audit G20: the value to update where the atomic takes its address
    "atomic_given_the_value": ([("atomicMin(&range[0], d);", "atomicMin(range[0], d);")],
                               "line 16 gives atomicMin range[0], the value to update",
                               "atomicMin(&range[0], d)"),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    replacements, problem, hint = DOES_NOT_COMPILE[name]
    assert_refused_and_named(checker.check_depth_range, "depth_range", name, replacements,
                             {"problem": problem, "hint": hint})
