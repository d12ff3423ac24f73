"""The privatised RGB histogram's checker (helpers.exercises.histogram_rgb): the solution passes,
the stub fails, and each known mistake fails with the hint written for it. The solution and all
its wrong variants are compiled as one module (and, on PyCUDA, once more on the simulator, whose
race check and trace the checker uses)."""

import numpy as np
import pytest

from kernel_sources import (simulator_only, assert_mistake_named, compile_variant_pairs, solution, stable_file,
                            variant)

from helpers.exercises import histogram_rgb as checker

KERNEL = solution("histogram_rgb.cu")
COUNT = "        atomicAdd(&local[(j % CHANNELS) * LEVELS + rgb[j]], 1u);\n"
BYTE_LOOP = ("    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < CHANNELS * n;\n"
             "         j += blockDim.x * gridDim.x)\n" + COUNT)
PIXEL_LOOP = ("    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x)\n"
              "        for (int c = 0; c < CHANNELS; c++)\n"
              "            atomicAdd(&local[c * LEVELS + rgb[3 * p + c]], 1u);\n")
CLEAR = ("    for (int b = threadIdx.x; b < CHANNELS * LEVELS; b += blockDim.x)\n"
         "        local[b] = 0;\n")
ADD = ("    for (int b = threadIdx.x; b < CHANNELS * LEVELS; b += blockDim.x)\n"
       "        if (local[b] > 0)\n")
FIRST_BARRIER = "    __syncthreads();                       // every bin is 0 before anyone counts\n"
SECOND_BARRIER = ("    __syncthreads();                       // every byte is counted before the "
                  "bins are added\n")
GLOBAL_ATOMICS = ("    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < 3 * n; "
                  "j += blockDim.x * gridDim.x)\n"
                  "        atomicAdd(&bins[(j % 3) * 256 + rgb[j]], 1u);\n}\n")

# (name, source, words that the NOT YET line must contain)
WRONG = [
    # blind audit TMA-histogram_rgb-1: the channel's offset scaled by CHANNELS where LEVELS
    # belongs (was '763 of the 768 bins are wrong, the first bins[3] ...', silent on the offset)
    ("channel_offset_by_channels", variant(KERNEL, (COUNT, COUNT.replace("* LEVELS", "* CHANNELS"))),
     ["the bins are what bin c * 3 + v gives", "green's bins start at 3 and blue's at 6",
      "Hint: channel c's 256 bins start at c * LEVELS (c * 256): bin (j % CHANNELS) * LEVELS + "
      "rgb[j]"]),
    # blind audit TEA-histogram_rgb-1 (was '99,614 of the 100,005 bytes were not counted ... Hint:
    # count every byte once ...', a right loop): local without __shared__, 768 bins a thread
    ("local_without_shared", variant(KERNEL, ("    __shared__ unsigned int local[CHANNELS * LEVELS];\n",
                      "    unsigned int local[CHANNELS * LEVELS];\n")),
     ["391 of the 100,005 bytes were counted, and only the bytes j whose bin b has b % blockDim.x = j % blockDim.x (256)",
      "local was declared without __shared__", "768 bins of its own",
      "__shared__ unsigned int local[CHANNELS * LEVELS]"]),
    # blind audit X29 (was 'the kernel crashed: ... a read of rgb ..., 4380 bytes past the end
    # ... Hint: local has 768 bins and rgb 3 * n bytes: ...', bounds that are right)
    ("byte_read_at_3j", variant(KERNEL, (COUNT, COUNT.replace("rgb[j]", "rgb[3 * j]"))),
     ["thread 0 of block 0 read rgb[104448] = rgb[3 * 34816]", "j already counts bytes",
      "byte j is rgb[j]"]),
    # blind audit AO (was '... rgb[3 * 34816] ... j already counts bytes. Hint: byte j is rgb[j]', the byte loop's fix): a pixel a step, p < 3 * n kept
    ("pixel_loop_to_3n", variant(KERNEL, (BYTE_LOOP, PIXEL_LOOP.replace("p < n;", "p < CHANNELS * n;"))),
     ["rgb[104448] = rgb[3 * 34816], past the image's 100,005 bytes, for its pixel p = 34816", "runs while p < 3 * n, the byte loop's bound", "Hint: a loop over pixels stops at the image's n pixels: for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n;"]),
    ("racy_shared_bins", variant(KERNEL, (COUNT, "        local[(j % CHANNELS) * LEVELS + rgb[j]]++;\n")),
     ["data race on local[", "atomicAdd(&local[k], 1u)"]),
    ("racy_global_bins",
     KERNEL[:KERNEL.index("{\n") + 2] + GLOBAL_ATOMICS.replace(
         "atomicAdd(&bins[(j % 3) * 256 + rgb[j]], 1u);", "bins[(j % 3) * 256 + rgb[j]]++;"),
     ["data race on bins[", "atomicAdd"]),
    ("global_atomics_only",
     KERNEL[:KERNEL.index("{\n") + 2] + GLOBAL_ATOMICS,
     ["atomic additions to the global bins", "not privatised", "__shared__"]),
    ("no_barrier_after_clearing", variant(KERNEL, (FIRST_BARRIER, "")),
     ["race check found a data race", "atomically", "__syncthreads() after each step"]),
    ("no_barrier_before_adding", variant(KERNEL, (SECOND_BARRIER, "")),
     ["race check found a data race", "atomically", "__syncthreads() after each step"]),
    # blind audit AB (was '... data race on local[224] ... with no barrier between the two ...
    # Hint: ... a __syncthreads() after each step', one being there): the barrier moved into the loop
    ("barrier_inside_the_counting_loop", variant(KERNEL, (COUNT + SECOND_BARRIER, "    {\n" + COUNT + "    " + SECOND_BARRIER + "    }\n")),
     ["the __syncthreads() at line ", "is inside the loop of line ", "thread 96 of block 1, out of the loop, reads local[224]",
      "Hint: close the loop first, then one __syncthreads() after it"]),
    # blind audit AF (was '... waits at a __syncthreads() ... at histogram_rgb_1.cu:20 ... keep barriers out of an if', the
    # barrier after the counting, no if): the first barrier inside the clearing loop, never entered by threads 768 to 1023
    ("barrier_inside_the_clearing_loop", variant(KERNEL, (CLEAR + FIRST_BARRIER, CLEAR.replace(")\n", ") {\n") + "    " + FIRST_BARRIER + "    }\n")),
     ["is inside the loop of line ", "go round a different number of times", "in block 0, threads 0 to 767 wait at it, still in the "
      "loop, while thread 768 waits, out of the loop, at the __syncthreads() at line ", "threads 768 to 1023 have no bin",
      "Hint: close the loop first, then one __syncthreads() after it"]),
    # blind audit AG (was 'PASS: the 768 bins match NumPy's ...'): the second barrier moved to the top of the adding loop
    ("barrier_inside_the_adding_loop", variant(KERNEL, (SECOND_BARRIER + "\n", ""), (ADD, ADD.replace(")\n", ") {\n    " + SECOND_BARRIER, 1)), ("local[b]);\n", "local[b]);\n    }\n")),
     ["is inside the loop of line ", "threads 0 to 767 make 1 pass and threads 768 to 1023 none",
      "Hint: take the __syncthreads() out of the loop"]),
    ("clears_one_bin_a_thread", variant(KERNEL, (CLEAR, "    if (threadIdx.x < CHANNELS * LEVELS)\n"
                             "        local[threadIdx.x] = 0;\n")),
     ["did not all start at 0", "b < 768; b += blockDim.x"]),
    # blind audit AI (was 'bins[200] counts 2,147,390,341 ...: the block's bins did not all start at 0 ... Hint: shared memory is not cleared for you ...'): the bins cleared as if a block had 256 threads
    ("clears_as_if_256_threads", variant(KERNEL, (CLEAR, "".join(f"    local[threadIdx.x{o}] = 0;\n" for o in ("", " + LEVELS", " + 2 * LEVELS")))),
     ["your clear covers local[threadIdx.x], local[threadIdx.x + 256] and local[threadIdx.x + 512]", "all 768 bins only with 256 threads a block", "with block = (128, 1, 1), bins 128 to 255 of each channel", "Hint: step by the block's size", "b += blockDim.x) local[b] = 0;"]),
    # blind audit AJ (was 'bins 256 to 767 (green's and blue's) count more ... Hint: shared memory is not cleared for you: ... for (int b = threadIdx.x; b < 768; b += blockDim.x)', the loop it has): the loop's body clears local[threadIdx.x], not local[b]
    ("clear_loop_stores_at_the_thread", variant(KERNEL, (CLEAR, CLEAR.replace("local[b]", "local[threadIdx.x]"))), ["the clearing loop runs b over the 768 bins, but each pass set local[threadIdx.x] = 0, the same bin", "thread 0 of block 0 cleared local[0] 3 times", "only bins 0 to 255 were set to 0 (with block = (256, 1, 1))", "Hint: clear the loop's bin, local[b] = 0"]),
    ("clears_past_the_bins", variant(KERNEL, (CLEAR, "    local[threadIdx.x] = 0;\n")), ["did not all start at 0"]),
    # blind audit ACB-histogram_rgb-1, the grey clearing loop (was '... more than the image's 100,069 bytes', the guard counted in)
    ("clears_red_s_bins_only", variant(KERNEL, (CLEAR, CLEAR.replace("CHANNELS * LEVELS", "LEVELS"))),
     ["bins 256 to 767 (green's and blue's) count more than the image's 100,005 bytes", "only red's 256 did"]),
    ("every_thread_adds_every_bin", variant(KERNEL, (ADD, "    for (int b = 0; b < CHANNELS * LEVELS; b++)\n        if (local[b] > 0)\n")),
     ["every bin was added 256 times", "once a block"]),
    # blind audit AH (was 'every bin was added 8 times ... Hint: ... let thread t add bins t, ...'): a block-stride counting loop
    ("every_block_counts_every_byte", variant(KERNEL, (BYTE_LOOP, "    for (int j = threadIdx.x; j < CHANNELS * n; j += blockDim.x)\n" + COUNT)),
     ["every block counted all 100,005 bytes", "starts at j = threadIdx.x and steps by blockDim.x", "Hint: make it a grid-stride loop"]),
    # blind audit THA-histogram_rgb-1: the adding loop stepping by gridDim.x (was '757 bins count
    # more than they should: they did not all start at 0 ... Hint: shared memory is not cleared
    # for you ...', the clearing right); the counting loop's stride gridDim.x is
    # stride_grid_only
    ("adding_loop_steps_by_the_grid", variant(KERNEL, (ADD, ADD.replace("b += blockDim.x", "b += gridDim.x"))),
     ["the loop that adds the block's bins into bins steps b by gridDim.x (8), not blockDim.x (256)",
      "bin 767 was added 32 times by each block", "its threads 7, 15, ..., 255",
      "Hint: each thread adds its own bins, blockDim.x apart: "
      "for (int b = threadIdx.x; b < 768; b += blockDim.x)"]),
    # blind audit TGA-histogram_rgb-1 (was '10 of the 5,001 bytes were not counted, and the
    # simulator's race check finds no race: ... the counting loop skips some or stops early.
    # Hint: count every byte once: for (int j = ...', a loop that was right): the adding loop's
    # test local[b] > 1 skips the bins a block counted once
    ("adds_only_bins_above_1",
     variant(KERNEL, (ADD, ADD.replace("local[b] > 0", "local[b] > 1"))),
     ["10 of the 5,001 bytes were not counted: the 10 bins that the block counted once",
      "bins[22] (channel 0, value 22) counts 0, expected 1",
      "the adding loop's test local[b] > 1 skips a bin that holds 1",
      "Hint: add every bin that holds a count: if (local[b] > 0)"]),
    # blind audit R16, atomicInc taken as an add of 1 (was '96,936 of the 100,005 bytes were not counted: counts
    # were lost ... Hint: ... a __syncthreads() after each step; and count with atomicAdd'); a limit of 3 wraps at 4
    ("atomic_inc_as_an_add",
     variant(KERNEL, (COUNT, COUNT.replace("atomicAdd", "atomicInc"))),
     ["each block's bins counted 0, 1, 0, 1, ...: bins holds each block's counts modulo 2",
      "atomicInc(&local[k], 1u), which is no add of 1",
      "Hint: count with atomicAdd, which adds its second argument: "
      "atomicAdd(&local[(j % 3) * 256 + rgb[j]], 1u)"]),
    ("atomic_inc_to_3",
     variant(KERNEL, (COUNT, COUNT.replace("atomicAdd", "atomicInc").replace("1u", "3u"))),
     ["each block's bins counted 0, 1, 2, 3, 0, ...: bins holds each block's counts modulo 4",
      "atomicInc(&local[k], 3u)"]),
    ("no_channel_offset", variant(KERNEL, (COUNT, "        atomicAdd(&local[rgb[j]], 1u);\n")),
     ["counted in the red bins", "(j % 3) * 256"]),
    ("no_grid_stride_loop",
     variant(KERNEL, (BYTE_LOOP, "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "    if (j < CHANNELS * n)\n" + COUNT)),
     ["only the first 2,048 bytes", "grid-stride loop"]),
    ("reads_past_the_end", variant(KERNEL, ("j < CHANNELS * n;", "j <= CHANNELS * n + 2;")),
     ["bytes past the end", "j < 3 * n"]),
    # each bin added into the next one's place: no byte past the end is counted, though bin 255
    # of the first two channels counts the 254s
    ("added_one_bin_over",
     variant(KERNEL, ("atomicAdd(&bins[b], local[b]);", "atomicAdd(&bins[b + 1], local[b]);")),
     ["of the 768 bins are wrong", "bin (j % 3) * 256 + rgb[j]"]),
    ("nothing_added", variant(KERNEL, ("        if (local[b] > 0)\n            atomicAdd(&bins[b], local[b]);\n", "        ;\n")),
     ["nothing reached bins", "atomicAdd(&bins[b], local[b])"]),
    # issue 28: each named as itself, not with the barrier's or the loops' hint
    ("counts_pixels_not_bytes", variant(KERNEL, ("j < CHANNELS * n;", "j < n;")),
     ["only the first 33,335 of the 100,005 bytes", "3 * n"]),
    ("private_bins_256",
     variant(KERNEL, ("__shared__ unsigned int local[CHANNELS * LEVELS];",
                      "__shared__ unsigned int local[LEVELS];")),
     ["past the size it was declared with", "local needs 768 bins"]),
    ("clear_loop_steps_by_1",
     variant(KERNEL, ("b += blockDim.x)\n        local[b] = 0", "b++)\n        local[b] = 0")),
     ["data race on local[", "each thread clears its own bins"]),
    ("planar_channel",
     variant(KERNEL, ("(j % CHANNELS) * LEVELS + rgb[j]]", "(j / n) * LEVELS + rgb[j]]")),
     ["the bins are what channel j / n gives", "bin (j % 3) * 256 + rgb[j]"]),
    ("bins_value_major",
     variant(KERNEL, ("(j % CHANNELS) * LEVELS + rgb[j]]", "rgb[j] * CHANNELS + (j % CHANNELS)]")),
     ["the bins are what bin v * 3 + c gives", "bin (j % 3) * 256 + rgb[j]"]),
    # blind audit TA-histogram_rgb-1, the clearing loop's bound copied (was '99,237 of the 100,005
    # bytes were not counted: counts were lost ... Hint: ... a __syncthreads() after each step;
    # and count with atomicAdd', both right in this kernel)
    ("counting_stops_at_the_bins",
     variant(KERNEL, ("j < CHANNELS * n;", "j < CHANNELS * LEVELS;")),
     ["only the first 768 of the 100,005 bytes were counted",
      "768, the number of bins, not at the image's 3 * n bytes", "j < CHANNELS * n"]),
    # the lost counts' last resort named barriers and atomics the race check had not found
    ("counting_loop_steps_twice_the_grid",
     variant(KERNEL, ("j += blockDim.x * gridDim.x)", "j += 2 * blockDim.x * gridDim.x)")),
     ["49,152 of the 100,005 bytes were not counted, and the simulator's race check finds no race",
      "j += blockDim.x * gridDim.x"]),
    ("last_byte_left_out", variant(KERNEL, ("j < CHANNELS * n;", "j < CHANNELS * n - 1;")),
     ["the last 1 of the 100,005 bytes were not counted", "j < 3 * n"]),
    ("bytes_read_as_signed_char",
     variant(KERNEL, ("LEVELS + rgb[j]], 1u);", "LEVELS + (char)rgb[j]], 1u);")),
     ["(index -", "a byte over 127 read as a char"]),
    # audit B: bytes counted several times, not bins left uncleared
    ("stride_block_only", variant(KERNEL, ("j += blockDim.x * gridDim.x)", "j += blockDim.x)")),
     ["counted by several blocks", "j += blockDim.x * gridDim.x"]),
    ("stride_grid_only",
     variant(KERNEL, ("j += blockDim.x * gridDim.x)", "j += gridDim.x)")),
     ["counted by several threads", "j += blockDim.x * gridDim.x"]),
    ("one_bin_a_thread_at_end",
     variant(KERNEL, (ADD + "            atomicAdd(&bins[b], local[b]);",
                      "    int b = threadIdx.x;\n"
                      "    if (b < CHANNELS * LEVELS && local[b] > 0)\n"
                      "        atomicAdd(&bins[b], local[b]);")),
     ["only bins below blockDim.x", "b += blockDim.x"]),
    # audit G29: the adding loop bounded by one channel's levels: with 256 threads a block, the
    # same bins as one bin a thread (the simulator's launch of 128 a block tells them apart)
    ("adding_loop_to_one_channel",
     variant(KERNEL, (ADD, ADD.replace("b < CHANNELS * LEVELS", "b < LEVELS"))),
     ["only bins 0 to 255, the red ones", "stopped at 256", "b < 768; b += blockDim.x"]),
    # audit B: the counting is atomic, the blocks' adding to the global bins is not
    ("global_add_not_atomic",
     variant(KERNEL, ("atomicAdd(&bins[b], local[b]);", "bins[b] += local[b];")),
     ["data race on bins[", "the blocks add their bin", "atomicAdd(&bins[b], local[b])"]),
    # blind audit P15: the level read at the pixel's number (was '742 of the 768 bins are wrong,
    # the first bins[0] ...' with the bin's formula for hint)
    ("level_of_byte_j_over_3", variant(KERNEL, ("LEVELS + rgb[j]], 1u);", "LEVELS + rgb[j / CHANNELS]], 1u);")),
     ["each byte was counted at the level of byte j / 3, rgb[j / 3]", "rgb[j]"]),
    ("pixel_thread_no_x3", variant(KERNEL, (BYTE_LOOP, PIXEL_LOOP.replace("rgb[3 * p + c]", "rgb[p + c]"))),
     ["reads pixel p's channels from bytes p, p + 1, p + 2", "rgb[3 * p + c]"]),
    # blind audit AL (was '495 of the 768 bins are wrong, the first bins[257] ...', the byte loop's bin for hint): rgb[3 * p] for every channel c
    ("pixel_thread_red_byte_for_every_channel", variant(KERNEL, (BYTE_LOOP, PIXEL_LOOP.replace("rgb[3 * p + c]", "rgb[3 * p]"))),
     ["bins 256 to 511 (green) and 512 to 767 (blue) are copies of bins 0 to 255 (red)", "Hint: channel c of pixel p is byte 3 * p + c"]),
    # blind audit AK (was '... (index 57) ... local needs 768 bins ... declare local[768]', which it had): local[3][256] counted at local[rgb[j]][j % 3]
    ("bins_2d_indices_swapped", variant(KERNEL, ("local[CHANNELS * LEVELS];", "local[CHANNELS][LEVELS];"), ("        local[b] = 0;", "        local[b / LEVELS][b % LEVELS] = 0;"), (COUNT, "        atomicAdd(&local[rgb[j]][j % CHANNELS], 1u);\n"), ("if (local[b] > 0)\n            atomicAdd(&bins[b], local[b]);", "if (local[b / LEVELS][b % LEVELS] > 0)\n            atomicAdd(&bins[b], local[b / LEVELS][b % LEVELS]);")),
     ["rgb[0] = 57, as the row of local, declared unsigned int [3][256]", "the byte's value as the row and the channel as the column", "Hint: the channel is the row, the byte's value the column: atomicAdd(&local[j % CHANNELS][rgb[j]], 1u)"]),
    # blind audit AE (was '... (index 817) ... declare local[768]', so it was): c <= CHANNELS
    ("pixel_thread_channel_loop_to_3",
     variant(KERNEL, (BYTE_LOOP, PIXEL_LOOP.replace("c < CHANNELS", "c <= CHANNELS"))),
     ["local[817] = local[3 * 256 + 49], channel c = 3", "the channel loop ran on to c = 3",
      "Hint: a pixel has 3 channels, c = 0, 1, 2: for (int c = 0; c < 3; c++)"]),
    # audit 2: each block adds 1 to a bin it counted into, not its count
    ("adds_one_not_its_count",
     variant(KERNEL, ("atomicAdd(&bins[b], local[b]);", "atomicAdd(&bins[b], 1u);")),
     ["counts the blocks that counted a byte into it", "a block added 1 to bins[b], not its "
      "count local[b]", "atomicAdd(&bins[b], local[b])"]),
    # audit 3: each block exchanges its count into the global bin
    ("exchanges_its_count",
     variant(KERNEL, ("atomicAdd(&bins[b], local[b]);", "atomicExch(&bins[b], local[b]);")),
     ["each bin holds one block's count, not the sum", "atomicAdd(&bins[b], local[b])"]),
    # audit 3b: the grid-stride loop without the block's offset; channels 255 bins apart
    ("count_loop_without_the_block_offset",
     variant(KERNEL, ("for (int j = blockIdx.x * blockDim.x + threadIdx.x;", "for (int j = threadIdx.x;")),
     ["every block counted the same bytes", "j = blockIdx.x * blockDim.x + threadIdx.x"]),
    # blind audit Z30: the channel's offset not scaled by the levels (was '765 of the 768 bins
    # are wrong ... Hint: byte j is channel j % 3 with value rgb[j]: ...')
    ("channel_offset_unscaled",
     variant(KERNEL, (COUNT, COUNT.replace("(j % CHANNELS) * LEVELS + rgb[j]", "j % CHANNELS + rgb[j]"))),
     ["channel c's offset was not scaled by the 256 levels", "bin (j % 3) * 256 + rgb[j]"]),
    ("channels_255_bins_apart",
     variant(KERNEL, (COUNT, COUNT.replace("* LEVELS", "* 255"))),
     ["bin c * 255 + v", "bin (j % 3) * 256 + rgb[j]"]),
    # audit A (2026-12): the byte's value added, not 1 (was 'the first bins[0] ... Hint: byte j is
    # channel j % 3 ...'); the adding loop from the thread's place in the grid (was 'counts were
    # lost ... a __syncthreads() after each step'); the thread's channel, not the byte's
    ("adds_the_value_not_1",
     variant(KERNEL, (COUNT, COUNT.replace("1u);", "(unsigned int)rgb[j]);"))),
     ["the sum of its bytes' values, not how many", "add 1 to the byte's bin"]),
    ("adding_loop_from_the_grid_index",
     variant(KERNEL, (ADD, ADD.replace("int b = threadIdx.x;",
                                       "int b = blockIdx.x * blockDim.x + threadIdx.x;"))),
     ["block i added only its bins from i * blockDim.x on",
      "for (int b = threadIdx.x; b < 768; b += blockDim.x)"]),
    ("channel_of_the_thread",
     variant(KERNEL, (COUNT, COUNT.replace("(j % CHANNELS)", "(threadIdx.x % CHANNELS)"))),
     ["the channel of its thread, threadIdx.x % 3, not its own", "byte j is channel j % 3"]),
    ("channel_of_the_grid_index",
     variant(KERNEL, ("        atomicAdd(&local[(j % CHANNELS)",
                      "        atomicAdd(&local[((blockIdx.x * blockDim.x + threadIdx.x) % CHANNELS)")),
     ["the channel of its thread's place in the grid", "byte j is channel j % 3"]),
    # audit E (E36): was '... a write-after-write hazard ... Hint: ... a __syncthreads() after
    # each step', which cannot order blocks
    ("every_block_zeroes_the_global_bins",
     variant(KERNEL, ("        local[b] = 0;\n", "    {\n        local[b] = 0;\n        bins[b] = 0;\n    }\n")),
     ["write-after-write", "blocks store into the global bins[", "no __syncthreads() orders blocks",
      "bins are 0 before the launch", "only add to bins"]),
    # audit I (I15): the stub's guard kept as a return at the top, so the threads past 3 * n skip
    # the clearing (was 'each bin holds one block's count ... atomicExch, or a store'); and kept
    # after the clearing, so they skip the adding
    ("returns_before_clearing",
     variant(KERNEL, ("    __shared__ unsigned int local[CHANNELS * LEVELS];\n",
                      "    __shared__ unsigned int local[CHANNELS * LEVELS];\n"
                      "    if (blockIdx.x * blockDim.x + threadIdx.x >= CHANNELS * n)\n"
                      "        return;\n")),
     ["returned before the loop that clears the block's bins", "never set to 0",
      "init check: thread (0, 0, 0) of block (1, 0, 0) counted into local[",
      "before any thread returns", "guard on the counting only"]),
    ("returns_before_adding",
     variant(KERNEL, (FIRST_BARRIER, FIRST_BARRIER +
                      "    if (blockIdx.x * blockDim.x + threadIdx.x >= CHANNELS * n)\n"
                      "        return;\n")),
     ["returned before the loop that adds the block's bins", "never added",
      "every thread adds its bins", "guard on the counting only"]),
    # blind audit J15: the bins cleared by block 0 alone (was 'bins[672] counts 2,147,254,429,
    # more than the image's 100,069 bytes: the block's bins did not all start at 0' and the
    # clearing loop for hint)
    ("only_block_0_clears",
     variant(KERNEL, (CLEAR, "    if (blockIdx.x == 0)\n" + CLEAR.replace("\n    ", "\n        ")
                      .replace("    for", "        for", 1))),
     ["only block 0 set its shared bins to 0: block ", "with none of its 768 bins cleared",
      "Each block has its own shared memory",
      "every block clears its own 768 bins, whatever its blockIdx.x"]),
    # blind audit N15: each block adds into a slice of bins of its own (was 'the kernel crashed
    # ... a write of bins ... Hint: local has 768 bins and rgb 3 * n bytes: every loop over the
    # bins runs while b < 768 ...', loops that are right)
    ("bins_a_slice_a_block",
     variant(KERNEL, ("atomicAdd(&bins[b], local[b]);",
                      "atomicAdd(&bins[blockIdx.x * CHANNELS * LEVELS + b], local[b]);")),
     ["block 1 added its bin 256 into bins[1024], 1 * 768 + 256",
      "as if each block had 768 of its own in bins",
      "every block adds into the same 768 bins: atomicAdd(&bins[b], local[b])"]),
    # blind audit TNA-histogram_rgb-1: the adding loop steps by the grid's threads (was 'only bins
    # below blockDim.x (256) were added to bins: each thread added one bin, b = threadIdx.x',
    # as if there were no loop)
    # blind audit TAAA-histogram_rgb-1: local[b] added into bins[threadIdx.x] (was 'every byte was
    # counted in the red bins ...', as with 256 threads a block; the launch of 128 tells them apart)
    ("added_into_the_thread_s_bin", variant(KERNEL, ("&bins[b], local[b]", "&bins[threadIdx.x], local[b]")),
     ["each thread added its bins b = threadIdx.x, threadIdx.x + 256, threadIdx.x + 512 all into "
      "bins[threadIdx.x]", "bins 256 to 767 stayed 0", "(with 128 threads a block, bins 128 to 767 stayed 0)",
      "Hint: add each shared bin into the global bin of the same number: atomicAdd(&bins[b], local[b])"]),
    ("adding_steps_by_the_grid_s_threads", variant(KERNEL, (ADD, ADD.replace("b += blockDim.x)", "b += blockDim.x * gridDim.x)"))),
     ["the loop that adds the block's bins into bins steps b by blockDim.x * gridDim.x (2048",
      "b += blockDim.x)"]),
]

# Right, but not the solution's way: each must pass
RIGHT = {
    "a_pixel_a_thread": variant(KERNEL, (BYTE_LOOP, PIXEL_LOOP)),
    "adds_every_bin_even_zero": variant(KERNEL, (ADD, ADD.replace("local[b] > 0", "true"))),
}


# The simulator only: on a GPU, writing past a shared array is an illegal address (the checker
# says so, but the CUDA context is then unusable for every test after it in the process); and the
# bins a block never cleared hold what shared memory held before, which in a fresh context is
# often 0 (on the H200 the mistake was caught in one run of the suite and passed in the next).
# The simulator fills new shared memory with a pattern, so the mistake shows every time.
SIMULATOR_ONLY = {
    **dict.fromkeys(("barrier_inside_the_clearing_loop", "barrier_inside_the_adding_loop"), "a barrier that only some threads of a block reach: a GPU may hang or pass"),
    "clears_past_the_bins": "an illegal address on a GPU breaks the context for the tests after it",
    "local_without_shared": "each thread's own 768 bins, never cleared: on the H100 (2026-12-05) an unspecified launch failure, which breaks the context for the tests after it",
    **dict.fromkeys(("byte_read_at_3j", "pixel_loop_to_3n"), "reads up to 9n bytes of a 3n-byte image: an illegal address or garbage on a GPU"),
    **dict.fromkeys(("clears_one_bin_a_thread", "clear_loop_stores_at_the_thread", "clears_red_s_bins_only", "clears_as_if_256_threads", "only_block_0_clears"), "on a GPU, bins never cleared are often 0 anyway"),
    "pixel_thread_channel_loop_to_3": "a write past shared memory: unseen on a GPU, or a fault",
    "bins_2d_indices_swapped": "an index far past a shared array's end may be an illegal address on a GPU, which breaks the context",
    "private_bins_256": "an access past a shared array's end may be an illegal address on a GPU, which breaks the context",
    "bytes_read_as_signed_char": "an access before a shared array's start may be an illegal address on a GPU",
    "every_block_zeroes_the_global_bins": "blocks racing: a GPU's counts depend on the order they ran",
    "bins_a_slice_a_block": "writes up to 24 KB past bins: on a GPU into another allocation, or an illegal address that breaks the context (test_a_slice_a_block_seen_on_a_gpu_is_named)"}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("histogram_rgb",
                                  {"solution": KERNEL, **RIGHT, **{w[0]: w[1] for w in WRONG}})


def run_checker(pair, capsys):
    """Run the checker on a compiled kernel: (verdict, printed text)."""
    verdict = checker.check_histogram_rgb_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_inline_solution_passes(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.passed is True, out
    assert out.startswith("PASS:"), out


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.passed is True, out


def test_stub_fails_and_says_why(capsys):
    assert not checker.check_histogram_rgb()   # default path: the stub learners start from
    out = capsys.readouterr().out
    assert out.startswith("NOT YET:"), out
    assert "data race on bins[" in out or "only the first 2,048 bytes" in out, out


@pytest.mark.parametrize("name, source, expected", simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, expected)


def test_a_changed_parameter_type_is_named(capsys):
    path = stable_file("histogram_rgb_int_bins.cu", variant(KERNEL, ("unsigned int *bins", "int *bins"),
                       ("atomicAdd(&bins[b], local[b])", "atomicAdd(&bins[b], (int)local[b])")))
    verdict = checker.check_histogram_rgb(path)
    assert not verdict, capsys.readouterr().out
    assert "parameter 2 of histogram_rgb, bins, is declared 'int*'" in verdict.problem


def test_reference_counts_each_channel():
    rgb = np.array([1, 2, 3, 1, 5, 3], np.uint8)
    bins = checker.reference(rgb)
    assert bins[1] == 2 and bins[256 + 2] == 1 and bins[256 + 5] == 1 and bins[512 + 3] == 2
    assert bins.sum() == 6


def test_a_slice_a_block_seen_on_a_gpu_is_named():
    """On a GPU the writes past bins do not fault: bins holds block 0's counts alone, and the
    checker's guard after it block 1's first ones (blocks 2 and on write past the guard)."""
    case = checker.CASES[0]
    rgb = checker._launch(case).model
    counts = checker._block_counts(rgb, case)
    past = checker.BINS + np.flatnonzero(counts[1][:checker.GUARD])
    problem, hint = next(checker._slices_a_block(counts[0].astype(np.int64), past, rgb, case))
    assert "bins holds block 0's counts alone, and block 1's were added past its end" in problem
    assert hint == "every block adds into the same 768 bins: atomicAdd(&bins[b], local[b])"
    right = checker.reference(rgb[:3 * case["n"]]).astype(np.int64)
    assert not list(checker._slices_a_block(right, past[:0], rgb, case))
