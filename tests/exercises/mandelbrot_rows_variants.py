"""Known-wrong row-per-block Mandelbrot kernels for tests/exercises/test_mandelbrot_rows.py whose
loop along the row is bounded, stepped or laid out wrongly: name: (the replacements in the
solution, a piece of the verdict's problem), as its WRONG dict holds; and the pieces of their
hints."""

from kernel_sources import solution

LOOP = "for (int x = threadIdx.x; x < width; x += blockDim.x) {"
KERNEL = solution("mandelbrot_rows.cu")

LOOP_BOUNDS = {
    # blind audit L17: the bound rounded down to whole passes of the block (was '671 of 12383
    # pixels were never drawn (the first at x = 192, y = 0)')
    "bound_of_whole_passes": ([("x < width;", "x < width / blockDim.x * blockDim.x;")],
                              "x = 192 to 202 in every row: the last pass along the row"),
    # blind audit AU (was '671 of 12383 pixels were never drawn, x = 192 to 202 ...: the loop's
    # bound was rounded down to whole passes of the block', no rounding in it): the loop runs
    # while __syncthreads_and(x < width), so the block leaves when its first thread runs out
    "loop_while_every_thread_has_a_pixel": ([("x < width;", "__syncthreads_and(x < width);")],
                                            "__syncthreads_and(x < width), is true only while "
                                            "every thread of the block has a pixel, so the whole "
                                            "block left the loop"),
    # blind audit AI (was '671 of 12383 pixels were never drawn, x = 192 to 202 ...: the loop's
    # bound was rounded down to whole passes of the block'): a run of width / blockDim.x
    # neighbouring pixels a thread, rounded down, where the threads step by blockDim.x
    "runs_of_neighbouring_pixels": ([(LOOP, "int per = width / blockDim.x;\n    for (int x = "
                                            "threadIdx.x * per; x < (threadIdx.x + 1) * per; "
                                            "x++) {")],
                                    "x = 192 to 202 in every row: each thread drew a run of "
                                    "width / blockDim.x = 3 neighbouring pixels"),
    # blind audit N17: the loop from the lane, threadIdx.x % 32: warps past the first redraw warp
    # 0's pixels (was '5856 of 12383 pixels were never drawn (the first at x = 32, y = 0)')
    "loop_from_the_lane": ([("int x = threadIdx.x;", "int x = threadIdx.x % 32;")],
                           "x = 32 to 63, 96 to 127, ... in every row: each pass along the row "
                           "drew only its first 32 pixels: x started at the thread's lane"),
    # the same pixels drawn, but the other warps draw nothing: no race, so no lane named
    "first_warp_alone": ([("int y = blockIdx.x;", "int y = blockIdx.x;\n    if (threadIdx.x >= 32)\n"
                                                  "        return;")],
                         "drew only its first 32 pixels, warp 0's: the block's other warps drew "
                         "none of their own"),
    # blind audit Z33 (was '8662 of 12383 pixels were never drawn (the first at x = 61, y = 0)
    # ... Hint: for (int x = ...'): the loop along the row bounded by the height
    "bound_of_the_height": ([("x < width;", "x < height;")],
                            "the loop along the row stopped at x < height = 61"),
    # blind audit TGA-mandelbrot_rows-1 (was 'only the first 64 pixels of each row were drawn:
    # each thread drew one pixel', as if there were no loop): the loop bounded by blockDim.x
    "bound_of_the_block": ([("x < width;", "x < blockDim.x;")],
                           "only the first 64 pixels of each row were drawn, one a thread: x "
                           "stopped below blockDim.x = 64, not width = 203"),
    # blind audit AO (was 'iters was written past its end: some thread's x reached width ...
    # Hint: stop the loop while x < width', the test the first pixel has): two pixels a pass,
    # the second, x + blockDim.x, never tested against width
    "second_pixel_of_a_pass_unguarded": ([(LOOP, "for (int x0 = threadIdx.x; x0 < width; x0 += 2 * "
                                                 "blockDim.x)\n    for (int u = 0; u < 2; u++) {\n"
                                                 "        int x = x0 + u * blockDim.x;")],
                                         "the second pixel of each pass, x + blockDim.x, was drawn "
                                         "without a test against width"),
}
LOOP_BOUND_HINTS = {
    "bound_of_whole_passes": "loop while x < width",
    "loop_while_every_thread_has_a_pixel": "loop while x < width, the thread's own test, with no "
                                           "barrier in the loop's condition",
    "runs_of_neighbouring_pixels": "neighbouring threads draw neighbouring pixels",
    "loop_from_the_lane": "start at the thread's place in the block",
    "bound_of_the_height": "x < width",
    "bound_of_the_block": "bound x by the row's width, not the block's threads: for (int x = "
                          "threadIdx.x; x < width; x += blockDim.x)",
    "second_pixel_of_a_pass_unguarded": "test every pixel of a pass against width, not only the "
                                        "first",
}
LOOP_STEPS = {
    # blind audit I17: right where a block is one warp; with 64 threads each pixel from 32 on
    # is drawn twice, the same value (was PASS: the race-checked launch had blocks of 32)
    "steps_of_a_warp": ([("x += blockDim.x", "x += warpSize")],
                        "every thread stepped x by 32, a warp's size, not by blockDim.x = 64: "
                        "thread t drew x = t, t + 32, t + 64, ..., so threads t and t + 32 of a "
                        "block drew the same pixels"),
    # blind audit AS (was 'two threads drew the same pixel, iters[32] ...: every thread did the
    # whole loop, or the threads' pixels overlap', the step of 32 not named): x += 32
    "steps_of_32": ([("x += blockDim.x", "x += 32")],
                    "every thread stepped x by 32, a warp's size, not by blockDim.x = 64"),
    # each pixel drawn by several threads, the same value: right, but for the race check
    "steps_of_one": ([("x += blockDim.x", "x++")],
                     "every thread stepped x by 1, not by blockDim.x = 64: thread t drew x = t, "
                     "t + 1, t + 2, ..., so threads t and t + 1 of a block drew the same pixels"),
}
LOOP_STEP_HINTS = dict.fromkeys(LOOP_STEPS, "step x by blockDim.x, the block's threads: for (int "
                                            "x = threadIdx.x; x < width; x += blockDim.x)")
