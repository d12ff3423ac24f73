"""The third bug hunt's checker (helpers.exercises.reverse_chunks) of notebook 09: the stub as
shipped is the planted bug, named with what the race check said; the fix and right kernels
written another way pass; other mistakes get their own verdicts. All variants are compiled as one
module (and, on PyCUDA, once more on the simulator, which looks for the planted bug)."""

import re

import pytest

from kernel_sources import compile_variant_pairs, solution, variant

from helpers.exercises import catalog
from helpers.exercises import reverse_chunks as checker

KERNEL = solution("reverse_chunks.cu")
FIX = "        __syncthreads();                     // FIX: every thread has read before the next stores\n"
FIRST_BARRIER = "            tile[t] = x[first + t];\n        __syncthreads();\n"
READ = "y[first + t] = tile[count - 1 - t];"

# name: (replacements, {field: words that the verdict's field must contain})
WRONG = {
    # blind audit TWB-reverse_chunks-1: the fix's barrier inside the store's if (was 'PASS: the
    # planted bug is fixed ...': threads 232 to 255 of the last chunk's block skip it)
    "fix_inside_the_store_s_if": ([("        if (t < count)\n            y[first + t] = tile[count - 1 - t];\n        __syncthreads();",
                                    "        if (t < count) {\n            y[first + t] = tile[count - 1 - t];\n            __syncthreads();\n        }")],
                                  {"problem": ["the __syncthreads() at line ", "is inside if (t < count): in the last",
                                               "in the last, partial chunk (n = 1000, first = 768, "
                                               "count = 232), threads t = 232 to 255 have t < count false"],
                                   "hint": "every thread of the block must reach each "
                                           "__syncthreads(): take it out of the if"}),
    "the_planted_bug": ([(FIX, "")], {"problem": ["the planted bug is still there: with 2 blocks "
                                                  "over 4 chunks the race check says: kernel",
                                                  "has a data race on tile["],
                                      "hint": "at the end of the loop's body"}),
    # blind audit TB-reverse_chunks-1: the fix's barrier after the loop, not at the end of its
    # body (was 'the planted bug is still there: with 2 blocks over 4 chunks the race check says:
    # ... Hint: the tile is used again for the next chunk: ...', the learner's barrier not named)
    "fix_after_the_loop": ([(FIX + "    }\n", "    }\n" + FIX[4:])],
                           {"problem": ["the __syncthreads() after the loop, at line ",
                                        "runs once, when the block has done all its chunks",
                                        "the race check says: kernel", "has a data race on tile["],
                            "hint": ["move that __syncthreads() into the loop",
                                     "at the end of the loop's body, before its closing brace"]}),
    # blind audit TDB-reverse_chunks-1: __syncwarp() as the fix (was 'the planted bug is still
    # there: ...' and the planted bug's hint, the learner's barrier not named)
    "syncwarp_as_the_fix": ([(FIX, FIX.replace("__syncthreads();", "__syncwarp();"))],
                            {"problem": ["the __syncwarp() at the end of the loop's body, at line ",
                                         "waits only for the 32 threads of its own warp",
                                         "has a data race on tile["],
                             "hint": ["__syncthreads() in the __syncwarp()'s place"]}),
    # blind audit AF (was 'the planted bug is still there: ... with no barrier between the two
    # ...', the learner's added barrier not named): the fix's barrier right after the first one
    "fix_right_after_the_first_barrier": ([(FIX, ""), (FIRST_BARRIER, FIRST_BARRIER + FIX)],
                                          {"problem": ["the planted bug is still there: the "
                                                       "__syncthreads() at line ", "comes right "
                                                       "after the one at line ", "orders nothing",
                                                       "thread 127 of block 0 storing tile[127] "
                                                       "for the next chunk at line ",
                                                       "thread 128 of block 0 is still reading it for "
                                                       "this chunk at line "],
                                           "hint": ["move the second __syncthreads() to the end "
                                                    "of the loop's body, after the store into y"]}),
    # audit F23: __threadfence_block() as the fix: the planted race, between its lines, named
    "fence_as_the_fix": ([(FIX, FIX.replace("__syncthreads();", "__threadfence_block();"))],
                         {"problem": ["the planted bug is still there",
                                      "no barrier between the two, only a fence"],
                          "hint": "at the end of the loop's body"}),
    # blind audit S2-8: the race 'fixed' by a tile of each thread's own, and no second barrier
    # (was 'y[0] = 0, NumPy's is -0.738279 ... Hint: y[first + t] = tile[count - 1 - t], ...')
    "tile_of_each_threads_own": ([(FIX, ""), ("__shared__ float tile[CHUNK];", "float tile[CHUNK];")],
                                 {"problem": ["no access to shared memory", "the tile is not __shared__"],
                                  "hint": "__shared__ float tile[CHUNK]"}),
    "no_barrier_at_all": ([(FIX, ""), (FIRST_BARRIER, "            tile[t] = x[first + t];\n")],
                          {"problem": ["race check found a data race", "data race on tile["],
                           "hint": "__syncthreads() between the write and the read"}),
    "thread_0_alone_waits": ([(FIX, "        if (t == 0)\n            __syncthreads();\n")],
                             {"problem": ["thread 0 of block 0 waits at the __syncthreads() at "
                                          "line ", "and thread 1 at the one at line ",
                                          "an if on t == 0"],
                              "hint": "every thread of the block must reach each"}),
    # blind audit Q15 (was 'the kernel failed on the simulator: thread (232, 0, 0) of block
    # (3, 0, 0) waits at a __syncthreads() that other threads of its block never reach at
    # reverse_chunks.cu:19', the right barrier, and the generic hint)
    "barrier_inside_the_load_s_if": (
        [(FIRST_BARRIER, "            {\n                __syncthreads();\n                tile[t] = "
          "x[first + t];\n            }\n        __syncthreads();\n"), (FIX, "")],
        {"problem": ["threads 0 to 231 of block 3 wait at the __syncthreads() at line ",
                     "and thread 232 at the one at line ",
                     "the threads with t < count took another way than those with t >= count",
                     "inside an if on t < count"],
         "hint": "take it out of the if"}),
    # blind audit Q16 (was '... thread (32, 0, 0) of block (0, 0, 0) waits at a __syncthreads()
    # ... at reverse_chunks.cu:17', the right barrier, and the generic hint)
    "fix_for_the_first_warp": ([(FIX, FIX.replace("        __syncthreads();",
                                                  "        if (t < 32) __syncthreads();"))],
                               {"problem": ["threads 0 to 31 of block 0 wait at the "
                                            "__syncthreads() at line ", "and thread 32 at the one "
                                            "at line ", "the first warp (t < 32)"],
                                "hint": "a barrier waits for the whole block, not a warp"}),
    # blind audit TOB-reverse_chunks-1: t taken as the global thread index (was '488 of the
    # 1,000 elements of y were never written ... Hint: a block takes every gridDim.x-th chunk:
    # first += gridDim.x * CHUNK', the loop's step blamed, which was right)
    "t_as_global_index": ([("int t = threadIdx.x;", "int t = blockIdx.x * blockDim.x + threadIdx.x;")],
                          {"problem": ["only block 0's chunks", "y[256] to y[511]",
                                       "t = blockIdx.x * blockDim.x + threadIdx.x = 256",
                                       "t < count"],
                           "hint": ["int t = threadIdx.x;", "first = blockIdx.x * CHUNK"]}),
    # blind audit TAAB-reverse_chunks-1: t taken as the lane, threadIdx.x % 32 (was 'the
    # simulator's race check found a data race ... on tile[0] ... threads (0, 0, 0) and (32, 0, 0)
    # ... Hint: two threads store into the same element of the shared array: ... check its
    # indices and the loops' steps', the % 32 not named)
    "t_as_the_lane": ([("int t = threadIdx.x;", "int t = threadIdx.x % 32;")],
                      {"problem": ["threads 0, 32, 64, ..., 224 of block 0 all loaded x[0] into "
                                   "tile[0]", "t = threadIdx.x % 32, the thread's lane",
                                   "tile[32] to tile[255] were never loaded"],
                       "hint": ["int t = threadIdx.x;", "0 to 255"]}),
    "not_reversed": ([(READ, "y[first + t] = tile[t];")],
                     {"problem": "y is a copy of x", "hint": "tile[count - 1 - t]"}),
    # blind audit TFB-reverse_chunks-1: the store mirrored as well as the read (was 'y is a copy
    # of x: no chunk was reversed ... Hint: thread t stores y[first + t] = tile[count - 1 - t]',
    # the outcome, which other mistakes give too)
    "mirrored_twice": ([(READ, "y[first + count - 1 - t] = tile[count - 1 - t];")],
                       {"problem": ["y is a copy of x: the mirror, count - 1 - t, was applied twice, "
                                    "in the read of tile and in the store into y, and each undoes "
                                    "the other", "thread 3 of block 1 (first = 256, count = 256) "
                                    "read tile[252] and stored it at y[508]"],
                        "hint": "mirror one side only: y[first + t] = tile[count - 1 - t]"}),
    # blind audit TJB-reverse_chunks-1: the mirror one off, tile[count - t] (was 'the kernel failed
    # on the simulator: thread (0, 0, 0) of block (0, 0, 0) indexed an array past the size it was
    # declared with (index 256) ... Hint: ... declare it as large as the largest index ...')
    "mirror_one_past": ([(READ, "y[first + t] = tile[count - t];")],
                        {"problem": "each chunk is reversed one place off",
                         "hint": "tile[count - 1 - t]"}),
    "reversed_one_place_off": ([(READ, "y[first + t] = tile[(count - t) % CHUNK];")],
                               {"problem": "one place off", "hint": "tile[count - 1 - t]"}),
    # blind audit AI (was '488 of the 1,000 elements of y were never written ... Hint: a block
    # takes every gridDim.x-th chunk: first += gridDim.x * CHUNK'): the race 'fixed' by dropping
    # the loop, one chunk a block, if (first < n)
    "no_loop_one_chunk_a_block": ([(FIX, ""), ("    for (int first = blockIdx.x * CHUNK; first < n; first += gridDim.x * CHUNK) {",
                                               "    int first = blockIdx.x * CHUNK;\n    if (first < n) {")],
                                  {"problem": ["your kernel has no loop over chunks",
                                               "each block reversed only its chunk blockIdx.x",
                                               "chunks 2 and 3 (y[512] to y[999], 488 elements) "
                                               "were never written"],
                                   "hint": ["for (int first = blockIdx.x * CHUNK; first < n; first "
                                            "+= gridDim.x * CHUNK)", "a second __syncthreads()"]}),
    # blind audit AR: the loop's step blockDim.x * CHUNK (was 'its loop ended after one turn:
    # each block reversed only its chunk blockIdx.x ...', the step's blockDim.x not named)
    "steps_by_blockdim": ([("first += gridDim.x * CHUNK", "first += blockDim.x * CHUNK")],
                          {"problem": ["the loop's step, first += blockDim.x * CHUNK, counts "
                                       "blockDim.x, the threads in a block (256), where gridDim.x, "
                                       "the blocks in the grid (2), belongs",
                                       "past n = 1,000, so the loop ended after one turn",
                                       "chunks 2 and 3 (y[512] to y[999], 488 elements) were "
                                       "never written"],
                           "hint": "first += gridDim.x * CHUNK"}),
    "chunks_of_the_first_block_only": ([("first += gridDim.x * CHUNK", "first += n")],
                                       {"problem": "never written", "hint": "gridDim.x * CHUNK"}),
    # blind audit TIB-reverse_chunks-1: the loop's condition first + CHUNK <= n (was '232 of the
    # 1,000 elements of y were never written ... Hint: ... first += gridDim.x * CHUNK', the step)
    "stops_before_the_partial_chunk": ([("first < n; first", "first + CHUNK <= n; first")],
                                       {"problem": ["the last, partial chunk (y[768] to y[999], "
                                                    "232 elements) was never written",
                                                    "first + CHUNK <= n"],
                                        "hint": ["first < n", "count = min(CHUNK, n - first)"]}),
    # blind audit TXB-reverse_chunks-1: the load guarded by the tile's size, t < CHUNK (was 'the
    # kernel crashed: block (2, 0, 0), thread (248, 0, 0): a read of x at reverse_chunks.cu:16,
    # ... Hint: read the error', the guard not named)
    "load_guarded_by_t_lt_chunk": ([("        if (t < count)\n            tile[t]", "        if (t < CHUNK)\n            tile[t]")],
                                   {"problem": ["in the last, partial chunk (first = 768, count = "
                                                "232, n = 1000) threads t = 232 to 255, past count, "
                                                "loaded x[1000] to x[1023], past the end of x",
                                                "the load is not held to the chunk's elements"],
                                    "hint": "guard the load with the chunk's count, as the store "
                                            "is: if (t < count) tile[t] = x[first + t];"}),
    "loads_one_past_the_last_chunk": ([("        if (t < count)\n            tile[t]", "        if (t <= count)\n            tile[t]")],
                                      {"problem": "a read of x[1000] at ",
                                       "hint": "x has 1000 elements"}),
    # blind audit THB-reverse_chunks-1: the store's guard dropped (was 'thread (232, 0, 0) of
    # block (3, 0, 0) indexed an array before its start (index -1) ... Hint: ... check how it is
    # worked out (a subtraction, ...)', the missing guard not named)
    "store_unguarded": ([("        if (t < count)\n            y[first + t]", "        y[first + t]")],
                        {"problem": ["thread 232 of block 3 read tile[-1], before its start",
                                     "first = 768, count = 232, n = 1000",
                                     "the store into y has no t < count guard"],
                         "hint": "if (t < count) y[first + t] = tile[count - 1 - t];"}),
    # (was '... Hint: in the last, partial chunk only the threads with t < count store', a guard
    # the kernel has; now the count named, as for count_without_the_chunk_s_start)
    "the_last_chunk_as_a_whole_one": ([("int count = min(CHUNK, n - first);", "int count = CHUNK;")],
                                      {"problem": ["past its end", "or count = CHUNK does"],
                                       "hint": "int count = min(CHUNK, n - first)"}),
    # blind audit TPB-reverse_chunks-1: every block's loop started at chunk 0 (was '... data race
    # on y[0] ... Hint: two blocks reversed the same chunk: ... first += gridDim.x * CHUNK', the
    # loop's step blamed, which the learner had right)
    "every_block_starts_at_chunk_0": ([("for (int first = blockIdx.x * CHUNK;", "for (int first = 0;")],
                                      {"problem": ["block 0 and block 1 both reversed chunk 0",
                                                   "both stored y[0]",
                                                   "every block's loop started at first = 0"],
                                       "hint": ["start each block at its own chunk",
                                                "for (int first = blockIdx.x * CHUNK;"]}),
    "steps_one_chunk": ([("first += gridDim.x * CHUNK", "first += CHUNK")],
                        {"problem": "data race on y[", "hint": "first += gridDim.x * CHUNK"}),
    "mirrors_the_last_chunk_as_whole": ([(READ, "y[first + t] = tile[CHUNK - 1 - t];")],
                                        {"problem": "mirrored as if it had 256",
                                         "hint": "tile[count - 1 - t]"}),
    # blind audit TSB-reverse_chunks-1: the chunk's count one short, n - 1 taken as the last
    # index (was '1 of the 1,000 elements of y were never written (the first is y[999]) ... Hint:
    # a block takes every gridDim.x-th chunk: first += gridDim.x * CHUNK', the loop's step)
    "count_one_short": ([("int count = min(CHUNK, n - first);", "int count = min(CHUNK, n - first - 1);")],
                        {"problem": ["the last chunk (first = 768) has n - first = 232 elements, "
                                     "but count was 231", "y[999], its last element, was never written",
                                     "y[768 + t] = x[768 + 230 - t]"],
                         "hint": "int count = min(CHUNK, n - first)"}),
    # blind audit W8: count not capped at CHUNK (was 'the kernel failed on the simulator: ...
    # (index 999) ... Hint: an array declared with a fixed size ... declare it as large as ...')
    "count_not_capped": ([("int count = min(CHUNK, n - first);", "int count = n - first;")],
                         {"problem": ["thread 0 of block 0 indexed tile[999], past its 256 entries",
                                      "count = n - first = 1000 - 0"],
                          "hint": "count = min(CHUNK, n - first)"}),
    # blind audit M18: two tiles picked by the chunk's parity, (first / CHUNK) % 2, which a block's
    # chunks keep with an even grid (was 'the planted bug is still there: with 2 blocks over 4
    # chunks the race check says: ...' and the planted bug's hint)
    "tiles_by_the_chunks_parity": ([(FIX, ""), ("__shared__ float tile[CHUNK];",
                                                "__shared__ float tiles[2][CHUNK];"),
                                    ("        int count = min(CHUNK, n - first);   // the elements this chunk has\n",
                                     "        int count = min(CHUNK, n - first);   // the elements this chunk has\n"
                                     "        int buf = (first / CHUNK) % 2;\n"),
                                    ("            tile[t] = x", "            tiles[buf][t] = x"),
                                    ("tile[count - 1 - t];", "tiles[buf][count - 1 - t];")],
                                   {"problem": ["the two tiles do not alternate whatever the grid",
                                                "a race on tiles[127] (shared memory) in block 0, "
                                                "whose chunks 0 and 2 are both even, so they share "
                                                "one tile", "with 3 blocks", "it finds none"],
                                    "hint": ["switch tiles at every turn of the loop",
                                             "tiles[turn]", "turn ^= 1"]}),
    # blind audit TMB-reverse_chunks-1: the chunk's count without its start (was 'y was written
    # past its end (y[1000] and on) ... Hint: in the last, partial chunk only the threads with
    # t < count store', a guard the kernel has)
    "count_without_the_chunk_s_start": ([("int count = min(CHUNK, n - first);",
                                          "int count = min(CHUNK, n);")],
                                        {"problem": ["count is 256 in the last, partial chunk "
                                                     "(first = 768), which has only n - first = "
                                                     "232 elements: the count left out the "
                                                     "chunk's start (as count = min(CHUNK, n)"],
                                         "hint": "int count = min(CHUNK, n - first)"}),
    # blind audit AQ (was 'count is 256 in the last, partial chunk ...: the count left out the
    # chunk's start (as count = min(CHUNK, n) or count = CHUNK does)', a start it has): the count
    # from the block's first chunk, right where a block has one chunk; and the same count taken
    # once, before the loop
    "count_from_the_block_s_first_chunk": ([("int count = min(CHUNK, n - first);",
                                             "int count = min(CHUNK, n - blockIdx.x * CHUNK);")],
                                           {"problem": ["count is 256 in the last, partial chunk "
                                                        "(first = 768)",
                                                        "the count was taken from the block's "
                                                        "first chunk, n - blockIdx.x * CHUNK"],
                                            "hint": "int count = min(CHUNK, n - first)"}),
    "count_before_the_loop": ([("    for (int first = blockIdx.x * CHUNK; first < n; first += gridDim.x * CHUNK) {\n"
                                "        int count = min(CHUNK, n - first);   // the elements this chunk has\n",
                                "    int count = min(CHUNK, n - (int)(blockIdx.x * CHUNK));\n"
                                "    for (int first = blockIdx.x * CHUNK; first < n; first += gridDim.x * CHUNK) {\n")],
                              {"problem": ["the count was taken from the block's first chunk"],
                               "hint": "int count = min(CHUNK, n - first)"}),
    # blind audit TTB-reverse_chunks-1 (was 'the kernel failed on the simulator: block (1, 0, 0),
    # thread (0, 0, 0): a read at reverse_chunks.cu:16, 241505 bytes past the end ... Hint: ...
    # check each index against its array's size', the load's index not named): first taken as
    # the chunk's number in the load
    "load_at_first_times_chunk": ([("tile[t] = x[first + t];", "tile[t] = x[first * CHUNK + t];")],
                                  {"problem": ["thread 0 of block 1 read x[65536], past the end "
                                               "of x (n = 1000): the load's index, first * CHUNK + "
                                               "t, multiplies first = 256 by CHUNK"],
                                   "hint": "the load reads x[first + t]"}),
}
# Right, but not the solution's way: each must pass
RIGHT = {
    "the_barrier_first_in_the_body": [(FIX, ""), ("        int count = min(CHUNK, n - first);",
                                                  "        __syncthreads();\n"
                                                  "        int count = min(CHUNK, n - first);")],
    "two_tiles_in_turn": [(FIX, ""), ("__shared__ float tile[CHUNK];",
                                      "__shared__ float tiles[2][CHUNK];\n    int turn = 0;"),
                          ("            tile[t] = x", "            tiles[turn][t] = x"),
                          ("tile[count - 1 - t];", "tiles[turn][count - 1 - t];\n        turn ^= 1;")],
    "the_reader_picks_its_element": [(READ, "y[first + count - 1 - t] = tile[t];")],
    # blind audit AK: threads with nothing left leave the loop, and so the kernel, before its
    # barriers: a thread that has returned need not reach them (notebook 09)
    "break_when_nothing_is_left": [("        if (t < count)\n            tile[t]",
                                    "        if (t >= count)\n            break;\n        tile[t]"),
                                   ("        if (t < count)\n            y[first + t]", "        y[first + t]")],
    # a barrier inside an if whose condition every thread of the block shares
    "fix_in_an_if_on_count": [(FIX, "        if (count > 0) {\n            __syncthreads();\n        }\n")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{n: variant(KERNEL, *r) for n, (r, _) in WRONG.items()},
               **{n: variant(KERNEL, *r) for n, r in RIGHT.items()}}
    return compile_variant_pairs("reverse_chunks", sources)


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_reverse_chunks_kernel(*kernels["solution"])
    assert verdict.passed is True
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(kernels, name):
    assert checker.check_reverse_chunks_kernel(*kernels[name]).passed is True


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_mistake_gets_its_own_verdict(kernels, name):
    verdict = checker.check_reverse_chunks_kernel(*kernels[name])
    assert verdict.passed is False
    for field, words in WRONG[name][1].items():
        for each in [words] if isinstance(words, str) else words:
            assert each in getattr(verdict, field), verdict


def test_the_stub_as_shipped_is_the_planted_bug():
    verdict = checker.check_reverse_chunks()
    assert verdict.passed is False
    assert verdict.problem.startswith("the planted bug is still there")
    shipped = catalog.as_shipped(catalog.find("reverse_chunks"))  # the planted bug, and no other
    planted = variant(KERNEL, *WRONG["the_planted_bug"][0])
    assert shipped[shipped.index("#define"):] == planted[planted.index("#define"):]


@pytest.mark.parametrize("name, barrier", [("fix_after_the_loop", "__syncthreads();"),
                                           ("syncwarp_as_the_fix", "__syncwarp();"),
                                           ("fix_right_after_the_first_barrier", "__syncthreads();"),
                                           ("fix_inside_the_store_s_if", "__syncthreads();")])
def test_the_misplaced_barrier_s_line_is_the_one_the_compiler_numbers(kernels, name, barrier):
    """The line the verdict names holds the learner's barrier, numbered as the compiler numbers
    the module's lines (its #line directives counted)."""
    from helpers.sim.compile.source import numbered_lines

    verdict = checker.check_reverse_chunks_kernel(*kernels[name])
    line = int(re.search(r"at line (\d+)", verdict.problem).group(1))
    simulated = kernels[name][1]
    assert [text for _, number, text in numbered_lines(simulated.source)
            if number == line and barrier in text], (line, verdict.problem)
