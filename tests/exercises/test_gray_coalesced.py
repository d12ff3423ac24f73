"""The flat-grid grey exercise of notebook 04 (helpers.exercises.gray_coalesced): the solution is
FAST, the stub fails, each usual mistake (spare threads unguarded, a guard off by one either way,
thread t's x or y from the wrong side) fails with its own hint, kernels right in other ways pass,
and a right kernel whose warps walk down the columns passes but is not FAST: by its trace on the
simulator, by events against a copy on a GPU (``gpu_timing``). All are compiled as one module."""

import re

import numpy as np
import pytest

from kernel_sources import (assert_mistake_named, compile_variant_pairs, simulator_only, solution,
                            variant)

from helpers.backend import BACKEND
from helpers.exercises import gray_coalesced as checker
from helpers.exercises.kernel import Kernels

pytestmark = pytest.mark.gpu_timing  # on a GPU every right kernel is timed (tests/conftest.py)

KERNEL = solution("gray_coalesced.cu")
GUARD = "    if (t >= width * height)\n        return;\n"
X, Y = "int x = t % width;", "int y = t / width;"

# name: (replacements in the solution, words the NOT YET line must contain)
WRONG = {
    # blind audit TJA-gray_coalesced-1 (was '... gray[0] was stored by thread (0, 0, 0) ...,
    # which loaded rgb[2], rgb[1] and rgb[0] ... Hint: keep the stub's last two lines ...'):
    # bt601_gray's weights of red and green swapped
    "red_and_green_weights_swapped": ([("0.299f * r + 0.587f * g", "0.587f * r + 0.299f * g")],
                                      ["each the grey of its pixel with the weights of red and "
                                       "green swapped: red got 0.587 and green 0.299",
                                       "0.299f * r + 0.587f * g + 0.114f * b"]),
    # blind audit TWA-gray_coalesced-1 (was '309 of 315 grey values are wrong ... which loaded
    # rgb[3], rgb[2] and rgb[1] ... Hint: keep the stub's last two lines ...'): the read without
    # the 3 bytes a pixel, rgb[i], rgb[i + 1], rgb[i + 2]
    # blind audit AC (was '308 of 315 grey values are wrong ... which loaded rgb[630], rgb[315]
    # and rgb[0] ... Hint: keep the stub's last two lines'): the channels read as three planes
    "channels_read_as_planes": ([("bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])",
                                  "bt601_gray(rgb[i], rgb[width * height + i], "
                                  "rgb[2 * width * height + i])")],
                                ["each the grey of bytes i, n + i and 2 * n + i of rgb",
                                 "as three planes of width * height bytes",
                                 "Hint: rgb is interleaved, a pixel's 3 bytes together: "
                                 "bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])"]),
    "pixel_read_without_its_3_bytes": ([("bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])",
                                         "bt601_gray(rgb[i], rgb[i + 1], rgb[i + 2])")],
                                       ["each the grey of bytes i, i + 1 and i + 2 of rgb",
                                        "a pixel is 3 bytes", "the 3 * is missing",
                                        "pixel 1 read rgb[1], rgb[2], rgb[3], where its bytes are "
                                        "rgb[3], rgb[4], rgb[5]",
                                        "Hint: pixel i starts at byte 3 * i: bt601_gray(rgb[3 * "
                                        "i], rgb[3 * i + 1], rgb[3 * i + 2])"]),
    # blind audit TVA-gray_coalesced-1 (was '237 of 315 grey values are wrong (the first at x = 0,
    # y = 0): gray[0] was stored by thread (0, 0, 0) ... Hint: keep the stub's last two lines
    # ...'): bt601_gray's blue weight mistyped, 0.144f * b
    "blue_weight_mistyped": ([("0.114f * b", "0.144f * b")],
                             ["237 of 315 grey values are wrong, each the grey of its pixel with "
                              "blue weighed 0.144 where 0.114 belongs: bt601_gray's blue weight",
                              "(pixel 0: rgb = (128, 222, 142), grey 189, expected 185)",
                              "Hint: bt601_gray weighs red 0.299, green 0.587 and blue 0.114: "
                              "0.299f * r + 0.587f * g + 0.114f * b"]),
    # blind audit TKA-gray_coalesced-1 (was 'FAST: every pixel's grey value is NumPy's ...', the
    # one-below values within the GPU's tolerance): bt601_gray without its + 0.5f, truncating
    "gray_truncated_not_rounded": ([(" + 0.114f * b + 0.5f)", " + 0.114f * b)")],
                                   ["grey values were truncated, not rounded (",
                                    "pixels one below): bt601_gray's + 0.5f is missing",
                                    "Hint: round to the nearest grey level: return (unsigned "
                                    "char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);"]),
    # blind audit TSA-gray_coalesced-1: the same truncation, the + 0.5f there but outside the
    # cast (was '... bt601_gray's + 0.5f is missing ...', the learner's line having it)
    "half_added_outside_the_cast": ([(" + 0.114f * b + 0.5f)", " + 0.114f * b) + 0.5f")],
                                    ["grey values were truncated, not rounded (",
                                     "the + 0.5f is outside the cast: return (unsigned char)(0.299f "
                                     "* r + 0.587f * g + 0.114f * b) + 0.5f; truncates the sum",
                                     "Hint: move the + 0.5f inside the cast's parentheses"]),
    # blind audit AW (was 'FAST: every pixel's grey value is NumPy's ...', the one-above values
    # within the GPU's tolerance): + 0.5f and then a conversion that rounds too, __float2uint_rn
    "rounded_twice": ([("(unsigned char)(0.299f", "(unsigned char)__float2uint_rn(0.299f")],
                      ["grey values were rounded up, not to the nearest (", "pixels one above",
                       "where the weighted sum's fraction is below .5", "Hint: round once:"]),
    # blind audit AW, the auditor's probe (was FAST): a level added to every grey value
    "a_level_added": ([(" + 0.114f * b + 0.5f)", " + 0.114f * b + 1.5f)")],
                      ["grey values are a level off NumPy's (", "where the weighted sum lies far "
                       "from the .5 at which rounding steps", "Hint: compute the grey value as "
                       "bt601_gray does"]),
    # blind audit TOA-gray_coalesced-1 (was '... which loaded rgb[2], rgb[1] and rgb[0] ...
    # Hint: keep the stub's last two lines ...'): bt601_gray as the plain average of the bytes
    # blind audit TPA-gray_coalesced-1: a bracket slip, green read as rgb[3 * i] + 1 (was '310 of
    # 315 grey values are wrong ... which loaded rgb[2] and rgb[0] ... Hint: keep the stub's last
    # two lines ...', the learner left to find the slip)
    "green_as_red_plus_1": ([("rgb[3 * i + 1]", "rgb[3 * i] + 1")],
                            ["each the grey of its pixel with green taken as rgb[3 * i] + 1",
                             "the + 1 goes inside the brackets: rgb[3 * i + 1]"]),
    # blind audit TTA-gray_coalesced-1: blue read from green's byte (was '289 of 315 grey values
    # are wrong ... which loaded rgb[1] and rgb[0] ... Hint: keep the stub's last two lines ...')
    "blue_given_greens_byte": ([("rgb[3 * i + 1], rgb[3 * i + 2])", "rgb[3 * i + 1], rgb[3 * i + 1])")],
                               ["in each, blue was given green's byte, rgb[3 * i + 1], where rgb[3 * i "
                                "+ 2] belongs", "blue's byte never counted",
                                "bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])"]),
    # blind audit TXA-gray_coalesced-1: blue read at rgb[3 * i + 3], the next pixel's red (was
    # '273 of 315 grey values are wrong ... Hint: keep the stub's last two lines ...')
    "blue_from_the_next_pixel": ([("rgb[3 * i + 2])", "rgb[3 * i + 3])")],
                                 ["in each, blue was read from rgb[3 * i + 3], the next pixel's "
                                  "red, where rgb[3 * i + 2] belongs", "rgb[3 * i + 2])"]),
    "plain_average": ([("return (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);",
                        "return (unsigned char)((r + g + b) / 3);")],
                      ["each the plain average (r + g + b) / 3 of its pixel",
                       "0.299f * r + 0.587f * g + 0.114f * b + 0.5f"]),
    "no_guard": ([(GUARD, "")], ["wrote past the end of gray", "return first thing"]),
    # blind audit AB (was 'threads past the last pixel wrote past the end of gray ... Hint: the
    # grid is rounded up to whole blocks: return first thing when t >= width * height', as if
    # there were no guard): the guard counts rgb's bytes, t >= 3 * width * height
    "guard_of_rgb_s_bytes": ([("t >= width * height", "t >= 3 * width * height")],
                             ["threads t = 315 to 511 passed the bounds guard and wrote past the "
                              "end of gray", "every thread t < 3 * width * height = 945 through: "
                              "it counts rgb's bytes", "Hint: a thread a pixel: if (t >= width * "
                              "height) return;, without the 3"]),
    # blind audit AF (was 'threads past the last pixel wrote past the end of gray ... Hint: the
    # grid is rounded up to whole blocks: return first thing when t >= width * height', as if
    # there were no guard): the guard tests the block's first pixel, not the thread's t
    "guard_of_the_block": ([("if (t >= width * height)", "if (blockIdx.x * blockDim.x >= width * height)")],
                           ["threads t = 315 to 511, the last block's spare threads, passed the "
                            "bounds guard", "the guard tests the block's first pixel, blockIdx.x "
                            "* blockDim.x", "Hint: test the thread's own pixel: if (t >= width "
                            "* height) return;"]),
    # blind audit I14 (was '... some pixels got two threads and others none', x/y hint)
    "flat_index_against_each_side": ([("t >= width * height", "t >= width || t >= height")],
                                     ["the guard compared the flat index t with width and with "
                                      "height", "return when t >= width * height"]),
    # blind audit AJ (was 'threads past the last pixel wrote past the end of gray ... Hint:
    # ... return first thing when t >= width * height'): the guard t == width * height
    "guard_equal_not_at_least": ([("t >= width * height", "t == width * height")],
                                 ["threads t = 316 to 511 wrote past the end of gray",
                                  "where thread t = 315 returned: the guard t == width * height "
                                  "returns only the thread at t = 315",
                                  "Hint: every spare thread must return: if (t >= width * "
                                  "height) return; (>=, not ==)"]),
    "guard_off_by_one": ([("t >= width * height", "t > width * height")],
                         ["gray[n] was written", "off by one"]),
    "stores_into_the_next": ([("gray[i] =", "gray[i + 1] =")],
                             ["one too far", "the guard is right", "gray[i]"]),
    "writes_nothing": ([("    gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);\n",
                         "")], ["nothing was written", "gray[i]"]),
    "last_pixel_skipped": ([("t >= width * height", "t >= width * height - 1")],
                           ["the last pixel was never written", "off by one"]),
    "guard_on_height_only": ([("t >= width * height", "t / width >= height - 1")],
                             ["the last row of the image (y = height - 1) was never written",
                              "returns too early", "t >= width * height"]),
    "x_modulo_height": ([(X, "int x = t % height;")],
                        ["thread t took x = t % height and y = t / width", "x = t % width"]),
    # blind audit AK (was '259 of 315 pixels were never written ...'): x = t & (width - 1)
    "x_by_a_bit_mask": ([(X, "int x = t & (width - 1);")], ["is t % width only where width is "
                        "a power of two: with width = 45, t & 44 keeps", "Hint: x = t % width"]),
    "y_modulo_height": ([(Y, "int y = t % height;")],
                        ["thread t took x = t % width and y = t % height", "y = t / width"]),
    "x_from_thread_idx": ([(X, "int x = threadIdx.x;")],
                          ["threads with a pixel (t < width * height) wrote past the end",
                           "x = threadIdx.x is the thread's place in its block",
                           "Hint: x = t % width, y = t / width"]),
    # blind audit R14, the row rounded to the nearest (was 'threads past the last pixel wrote
    # past the end of gray ... Hint: ... return first thing when t >= width * height', a guard
    # that is there)
    "y_rounded": ([(Y, "int y = roundf((float)t / width);")],
                  ["threads with a pixel (t < width * height) wrote past the end",
                   "y = t / width was rounded to the nearest row",
                   "Hint: y = t / width in integer division"]),
    # blind audit T14, the row rounded up like the grid (was the same guard hint)
    "y_rounded_up": ([(Y, "int y = (t + width - 1) / width;")],
                     ["threads with a pixel (t < width * height) wrote past the end",
                      "y = t / width was rounded up", "Hint: y = t / width in integer division"]),
    # blind audit V14: y = t / height, the stub's divisor kept (was 'the kernel crashed: ... a
    # read of rgb ... 58 bytes past the end ... Hint: the grid is rounded up to whole blocks: ...
    # another split of t can land outside the image'), named from the crash's fields
    "y_divided_by_height": ([(Y, "int y = t / height;")],
                            ["thread t = 126 (below width * height = 315: the guard let it "
                             "through) read rgb[2538]", "y = t / height: a row holds width pixels",
                             "Hint: the row is t / width, not t / height"]),
    # blind audit AI (was 'the kernel crashed: ... a read of rgb ... Hint: ... return first
    # thing when t >= width * height', the guard there): x = t % height, y = t / height
    "split_by_height": ([(X, "int x = t % height;"), (Y, "int y = t / height;")],
                        ["x = t % height and y = t / height split t by the height",
                         "Hint: split t by the row's length, width: x = t % width, y = t / width"]),
    # blind audit TA1: / and % swapped in the split (was 'the kernel crashed: ... thread (19, 0,
    # 0): a read of rgb ... Hint: the grid is rounded up to whole blocks: return first thing when
    # t >= width * height; and take x = t % width, ...'), named from the crash's fields
    "split_swapped": ([(X, "int x = t / width;"), (Y, "int y = t % width;")],
                      ["x = t / width and y = t % width: / and % are swapped",
                       "Hint: x = t % width (what is left over, the column), y = t / width"]),
    # blind audit AH (was '... x = t / width and y = t % width: / and % are swapped ...', the
    # split the learner wrote right): x and y swapped in the pixel's index, i = x * width + y
    "index_x_times_width": ([("int i = y * width + x;", "int i = x * width + y;")],
                            ["its split is right (x = t % width = 19, y = t / width = 0)",
                             "int i = x * width + y; multiplies the column x by the row's length",
                             "took pixel i = 19 * 45 + 0 = 855",
                             "Hint: pixel (x, y) of a row-major image is i = y * width + x"]),
    # blind audit AD (was '... wrote past the end of gray ..., and 135 pixels were never
    # written: their split of t into x and y sends pixels outside the image. Hint: ... x = t %
    # width, y = t / width ...', y being right): x = t - y, the * width forgotten
    "x_from_t_less_the_row": ([(Y, "int x = t - y;"), (X, "int y = t / width;")],
                              ["threads with a pixel (t < width * height) wrote past the end of "
                               "gray (as far as gray[578]): x = t - y takes y pixels off t",
                               "Hint: x is what is left of t after y whole rows of width pixels: "
                               "x = t - y * width, which is t % width"]),
    # audit E (E17): a block a row assumed, told from the pixels written on a case whose block is
    # longer than a row; blockIdx.x left out writes the same pixels on the first case, not there
    "a_block_a_row": ([(X, "int x = threadIdx.x;"), (Y, "int y = blockIdx.x;")],
                      ["thread t took x = threadIdx.x and y = blockIdx.x, one block a row",
                       "x = t % width, y = t / width"]),
    # blind audit AL (was 'thread t took x = threadIdx.x and y = blockIdx.x, one block a row, but
    # the grid is flat ...', code the learner never wrote): t split by the block's size, x = t %
    # blockDim.x, y = t / blockDim.x, where width belongs
    "split_by_the_block": ([(X, "int x = t % blockDim.x;"), (Y, "int y = t / blockDim.x;")],
                           ["thread t took x = t % blockDim.x and y = t / blockDim.x, splitting t "
                            "by the block's size, blockDim.x = 256, where the row's length, width "
                            "= 45, belongs", "Hint: split t by the row's length, not the "
                            "block's: x = t % width, y = t / width"]),
    # blind audit TLA-gray_coalesced-1: one block a row, as in mandelbrot_rows, in t itself (was
    # '14 of 315 pixels were never written ...: some pixels got two threads and others none.
    # Hint: take pixel t of the image read as one flat run of pixels: x = t % width, ...', the
    # split being right)
    "t_from_blocks_of_width": ([("int t = blockIdx.x * blockDim.x + threadIdx.x;",
                                 "int t = blockIdx.x * width + threadIdx.x;")],
                               ["t = blockIdx.x * width + threadIdx.x: block b's 256 threads took "
                                "pixels b * 45 to b * 45 + 255", "14 of 315 pixels were never "
                                "written (from x = 31, y = 6", "Hint: a block has blockDim.x "
                                "threads, not width: int t = blockIdx.x * blockDim.x + "
                                "threadIdx.x;"]),
    # blind audit TNA-gray_coalesced-1: gridDim.x for blockDim.x in t (was '57 of 315 pixels
    # were never written ...: some pixels got two threads and others none. Hint: take pixel t of
    # the image read as one flat run of pixels: x = t % width, ...', the split being right)
    "t_from_blocks_of_grid_dim": ([("int t = blockIdx.x * blockDim.x + threadIdx.x;",
                                    "int t = blockIdx.x * gridDim.x + threadIdx.x;")],
                                  ["t = blockIdx.x * gridDim.x + threadIdx.x: block b's 256 "
                                   "threads took pixels b * 2 to b * 2 + 255", "57 of 315 pixels "
                                   "were never written (from x = 33, y = 5", "gridDim.x = 2",
                                   "Hint: a block has blockDim.x threads, not gridDim.x: int t = "
                                   "blockIdx.x * blockDim.x + threadIdx.x;"]),
    "block_index_left_out": ([("int t = blockIdx.x * blockDim.x + threadIdx.x;", "int t = threadIdx.x;")],
                             ["59 of 315 pixels were never written"]),
    # blind audit TEA-gray_coalesced-1: the bytes passed as blue, green, red (was '291 of 315 grey
    # values are wrong ... Hint: keep the stub's last two lines ...', silent on the order)
    "channels_in_bgr_order": ([("bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])",
                                "bt601_gray(rgb[3 * i + 2], rgb[3 * i + 1], rgb[3 * i])")],
                              ["red and blue swapped", "rgb[3 * i + 2] as red",
                               "bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])"]),
    # blind audit TIA-gray_coalesced-1: the output indexed like the input, gray[3 * i] (was 'the
    # kernel crashed: ... a write of gray ... Hint: the grid is rounded up to whole blocks: return
    # first thing when t >= width * height; and take x = t % width, ...', both right)
    "gray_indexed_like_rgb": ([("gray[i] = bt601_gray", "gray[3 * i] = bt601_gray")],
                              ["grey pixel i was stored at gray[3 * i], where gray[i] belongs",
                               "only one pixel in 3 of gray was written (gray[0], gray[3], ...)",
                               "Hint: a grey pixel is one byte, unlike rgb's three: store pixel "
                               "i at gray[i]"]),
    # blind audit TMA-gray_coalesced-1: the row's length taken as the height (was '228 of 315
    # pixels were never written ...: some pixels got two threads and others none', silent on i)
    "pixel_index_by_height": ([("int i = y * width + x;", "int i = y * height + x;")],
                              ["the pixel index steps a row by height = 7 pixels",
                               "i = y * height + x", "228 of 315 pixels were never written",
                               "Hint: a row is width pixels long: i = y * width + x"]),
    # blind audit TAAA-gray_coalesced-1: bt601_gray's parameters declared char (was 'the kernel
    # crashed: a float-to-integer conversion ... (unsigned char) of the float -70.726 ... Clamp it
    # ... Hint: the grid is rounded up to whole blocks ...'); on a GPU the sums below 0 become 0
    "parameters_declared_char": ([("bt601_gray(unsigned int r, unsigned int g, unsigned int b)",
                                   "bt601_gray(char r, char g, char b)")],
                                 ["the channels reached bt601_gray's sum as char, which holds -128 "
                                  "to 127, so levels 128 to 255 turned into -128 to -1",
                                  "bt601_gray's parameters declared char (char r, char g, char b)",
                                  "Hint: declare bt601_gray's parameters unsigned, as the stub "
                                  "does: unsigned char bt601_gray(unsigned int r, unsigned int g, "
                                  "unsigned int b)"]),
    # every thread converts every pixel, the same values: right, but for the race check
    "every_thread_does_the_whole_loop": (
        [(KERNEL[KERNEL.index("    int x = t % width;"):KERNEL.rindex("}")],
          "    for (int i = 0; i < width * height; i++)\n"
          "        gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);\n")],
        ["two threads wrote the same pixel", "every thread did the whole loop",
         "no loop over all the pixels"]),
    # blind audit AE (was 'FAST: every pixel's grey value is NumPy's on 5 images ..., nothing
    # written past the end'): the pixel's three bytes loaded above the guard, so the spare threads
    # of the last block read rgb past its end
    "loads_above_the_guard": ([(GUARD, ""), ("    gray[i] = bt601_gray(rgb[3 * i], "
                                             "rgb[3 * i + 1], rgb[3 * i + 2]);",
                                             "    unsigned char r = rgb[3 * i], g = rgb[3 * i + 1], "
                                             "b = rgb[3 * i + 2];\n" + GUARD +
                                             "    gray[i] = bt601_gray(r, g, b);")],
                              ["the kernel reads rgb[3 * i] (line ", ") before its bounds guard, "
                               "if (t >= width * height) (line ", "past the end of rgb, as far as "
                               "rgb[1535] (rgb holds 945 bytes",
                               "Hint: the guard must come before any access to memory: move if "
                               "(t >= width * height) return; up, to right after t is computed"]),
}
SIMULATOR_ONLY = {"y_divided_by_height": "a read far past the image: a GPU may not notice it",
                  "split_by_height": "a read far past the image: a GPU may not notice it",
                  # x runs to height and y to width: on a wide image it reads megabytes past rgb,
                  # which may stop the whole process's context on a GPU
                  "split_swapped": "reads far past the image: a GPU may not notice it",
                  "index_x_times_width": "reads far past the image, as split_swapped does"}
# Right, not the solution's way: each must pass and be FAST
RIGHT = {
    "guard_on_x_and_y": [(GUARD, ""), (Y, Y + "\n    if (y >= height)\n        return;")],
    "grid_stride_loop": [(KERNEL[KERNEL.index(GUARD):KERNEL.rindex("}")],
                          "    for (; t < width * height; t += blockDim.x * gridDim.x)\n"
                          "        gray[t] = bt601_gray(rgb[3 * t], rgb[3 * t + 1], "
                          "rgb[3 * t + 2]);\n")],
}
# Right but slow: the warps walk down the columns (the stub's choice, guarded)
SLOW = {"down_the_columns": [(X, "int x = t / height;"), (Y, "int y = t % height;")],
        # blind audit AG (was '... not yet FAST: ... its threads' pixels are far apart. Hint:
        # take pixel t ...: x = t % width, y = t / width', the split the kernel has): the split
        # along the row, but the pixel's index written column by column
        "index_by_columns": [("int i = y * width + x;", "int i = x * height + y;")]}
HELPER = re.compile(r"\bbt601_gray\b")


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{name: variant(KERNEL, *r) for name, (r, _) in WRONG.items()},
               **{name: variant(KERNEL, *r) for name, r in {**RIGHT, **SLOW}.items()}}
    return compile_variant_pairs("gray_coalesced", {name: HELPER.sub(f"bt601_gray__{name}", text)
                                                    for name, text in sources.items()})


def run_checker(pair, capsys):
    verdict = checker.check_gray_coalesced_kernel(*pair)
    return verdict, capsys.readouterr().out


def test_the_solution_is_fast(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.level == "FAST", out
    if BACKEND == "simulator":
        assert "loads touch 3.0 sectors a request and its stores 1.0" in verdict.problem, out


def test_the_stub_fails_writing_past_the_end(capsys):
    verdict = checker.check_gray_coalesced()
    out = capsys.readouterr().out
    assert_mistake_named(verdict, out, "stub", ["wrote past the end of gray"])


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_a_known_mistake_fails_with_its_hint(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, WRONG[name][1])


def test_index_x_times_width_is_named_from_a_gpus_output(kernels):
    """On a GPU the reads past rgb need not stop the kernel: its stores past gray's end and the
    pixels never written, with its text, name the index x * width + y (``past_splits``)."""
    from helpers.exercises.gray_coalesced_order import past_splits
    (width, height, block), guard = checker.CASES[0][:3], 512
    t = np.arange(width * height)
    i = t % width * width + t // width
    past = i[(i >= t.size) & (i < t.size + guard)]
    problem, hint = next(past_splits((width, height, block), past, np.setdiff1d(t, i), guard,
                                     Kernels(*kernels["index_x_times_width"])))
    assert "(as far as gray[" in problem
    assert "int i = x * width + y; multiplies the column x" in problem
    assert hint.startswith("pixel (x, y) of a row-major image is i = y * width + x")


def test_y_divided_by_height_is_named_from_the_pixels_written(kernels, capsys, monkeypatch):
    """Where y = t / height reads and writes inside the spare room after the arrays (a 7 x 3
    image, as on a GPU, which need not crash), the pixels written past the end name it."""
    monkeypatch.setattr(checker.EXERCISE, "cases", [(7, 3, 64)])
    verdict, out = run_checker(kernels["y_divided_by_height"], capsys)
    assert_mistake_named(verdict, out, "y_divided_by_height",
                         ["threads with a pixel (t < width * height) wrote past the end of gray",
                          "y = t / height: a row holds width pixels",
                          "Hint: the row is t / width, not t / height"])


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_is_fast(name, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert verdict.level == "FAST", out


@pytest.mark.parametrize("name", sorted(SLOW))
def test_a_right_kernel_whose_warps_are_not_along_a_row_passes_but_is_not_fast(name, kernels,
                                                                               capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert (verdict.level, verdict.passed) == ("PASS", True), out
    assert "x = t % width, y = t / width" in verdict.hint, out
    if BACKEND == "simulator":
        assert "sectors a request" in verdict.slow, out
    else:
        assert "where FAST takes 20%" in verdict.slow, out


def test_an_index_written_column_by_column_is_named_in_the_note(kernels, capsys):
    verdict, out = run_checker(kernels["index_by_columns"], capsys)
    assert "pixel (x, y) of a row-major image is i = y * width + x" in verdict.hint, out
    if BACKEND == "simulator":
        assert "but i = x * height + y lays the image out column by column" in verdict.slow, out
