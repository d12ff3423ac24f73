"""The sepia exercise (notebook 04): the solution passes, the stub and known-wrong kernels fail,
each with the hint that names its mistake (the wrong kernels are variants of the shipped
solution, all compiled as one module). The grayscale kernels of cuda_src/grayscale.cu are tested
in tests/kernels/test_grayscale_kernels.py."""

import numpy as np
import pytest

from kernel_sources import (assert_refused_and_named, compile_variant_pairs, simulator_only, solution,
                            stable_file, variant)
from sepia_variants import C_WAYS

from helpers.exercises.sepia import check_sepia, check_sepia_kernel

KERNEL = solution("sepia.cu")
GUARD = "    if (x >= width || y >= height)\n        return;\n"
INDEX_X = "blockIdx.x * blockDim.x + threadIdx.x"
INDEX_Y = "blockIdx.y * blockDim.y + threadIdx.y"
WRITE_R = "    out[3 * i]     = (unsigned char)fminf(r2 + 0.5f, 255.0f);   // round, and clamp to 255\n"
WRITE_G = "    out[3 * i + 1] = (unsigned char)fminf(g2 + 0.5f, 255.0f);\n"
WRITE_B = "    out[3 * i + 2] = (unsigned char)fminf(b2 + 0.5f, 255.0f);\n"
READ = "float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];"
FLOAT_SUMS = KERNEL[KERNEL.index(READ):KERNEL.index(WRITE_B) + len(WRITE_B)]
# the sums in integer weights ({w}: the nine, row by row), {h} added to round, then {s} to scale
FIXED_SUMS = ("int R = rgb[3 * i], G = rgb[3 * i + 1], B = rgb[3 * i + 2];\n"
              "    int r2 = ({w[0]} * R + {w[1]} * G + {w[2]} * B + {h}){s};\n"
              "    int g2 = ({w[3]} * R + {w[4]} * G + {w[5]} * B + {h}){s};\n"
              "    int b2 = ({w[6]} * R + {w[7]} * G + {w[8]} * B + {h}){s};\n"
              "    out[3 * i] = (unsigned char)min(r2, 255);\n"
              "    out[3 * i + 1] = (unsigned char)min(g2, 255);\n"
              "    out[3 * i + 2] = (unsigned char)min(b2, 255);\n")


def each_channel(old, new):
    """The replacement (old, new) in all three channels' lines: {c} stands for r, g, b."""
    return [(old.format(c=c), new.format(c=c)) for c in "rgb"]


# name: (replacements in the solution, a piece of the expected verdict)
WRONG = {
    **C_WAYS,
    "no_bounds_guard": ([(GUARD, "")], "Hint: no bounds guard"),
    # blind audit Q21 (was 'threads outside the image wrote past the end of out ... Hint: no
    # bounds guard, or only half of one: ...', though the guard was there, on threadIdx)
    "guard_on_the_thread_s_place": ([("x >= width || y >= height",
                                      "threadIdx.x >= width || threadIdx.y >= height")],
                                    "though there is a guard: it tests threadIdx.x and "
                                    "threadIdx.y, the thread's place in its block"),
    # blind audit Y21 (was 'the green output is 0.137 r + 0.954 g + 0.234 b, where the matrix has
    # ... Hint: each output channel comes from the input's r, g and b: ...', the layout restated)
    "channels_overwritten_in_place": (
        [("float r2 = 0.393f", "r = 0.393f"), ("float g2 = 0.349f", "g = 0.349f"),
         ("float b2 = 0.272f", "b = 0.272f"), *each_channel("fminf({c}2 + 0.5f", "fminf({c} + 0.5f")],
        "the channels were overwritten in place: r took its sepia value (r = 0.393f * r + ...) "
        "before g and b were computed from it"),
    "blue_first_overwritten_in_place": (
        [("    float r2 = 0.393f * r + 0.769f * g + 0.189f * b;\n", ""),
         ("    float b2 = 0.272f * r + 0.534f * g + 0.131f * b;\n",
          "    b = 0.272f * r + 0.534f * g + 0.131f * b;\n    g = 0.349f * r + 0.686f * g + 0.168f * b;\n"
          "    r = 0.393f * r + 0.769f * g + 0.189f * b;\n"),
         ("    float g2 = 0.349f * r + 0.686f * g + 0.168f * b;\n", ""),
         *each_channel("fminf({c}2 + 0.5f", "fminf({c} + 0.5f")],
        "b took its sepia value (b = 0.272f * r + ...) before g and r were computed from it, and "
        "g before r"),
    # blind audit K11 (was 'nothing was written: out still holds the poison ... Hint: each thread
    # should store its three results in out[3*i], ...', the stores that were right)
    "not_on_the_left_of_the_guard": ([("x >= width || y >= height", "!x < width || !y < height")],
                                     "reads !x < width as (!x) < width"),
    "guard_off_by_one": ([("x >= width || y >= height", "x > width || y > height")],
                         "the bounds guard is off by one"),
    "only_block_0": ([(INDEX_X, "threadIdx.x"), (INDEX_Y, "threadIdx.y")],
                     "only block 0's pixels were written"),
    "blockIdx_y_missing": ([(INDEX_Y, "threadIdx.y")], "Hint: blockIdx.y is missing from y"),
    # blind audit R17's mistake here (was 'N of M pixels were never written ... Hint: every
    # pixel needs a thread ...'): y from blockIdx.x, only the grid's diagonal blocks drawn
    "y_from_block_x": ([(INDEX_Y, "blockIdx.x * blockDim.y + threadIdx.y")],
                       "those of the blocks on the grid's diagonal (x / blockDim.x == y / "
                       "blockDim.y): x and y took the same block index"),
    # blind audit TNB-sepia-1: gridDim.y where blockDim.y belongs in the row's line (was '795 of
    # 1961 pixels were never written (the first is x = 0, y = 22) ... Hint: every pixel needs a
    # thread: x = ..., y = ...; and the guard ...', every index and guard line); the pieces a tuple
    "row_steps_by_grid_y": ([(INDEX_Y, "blockIdx.y * gridDim.y + threadIdx.y")],
                            ("only rows y = 0 to 21 were written, those y = blockIdx.y * gridDim.y "
                             "+ threadIdx.y reaches: the row's line steps from one block to the "
                             "next by gridDim.y = 3, the grid's number of blocks down, where the "
                             "block's height blockDim.y = 16 belongs",
                             "Hint: y = blockIdx.y * blockDim.y + threadIdx.y")),
    "x_y_swapped": ([("int x = " + INDEX_X, "int x = " + INDEX_Y),
                     ("int y = " + INDEX_Y, "int y = " + INDEX_X)], "Hint: x and y are swapped"),
    "row_length_is_height": ([("int i = y * width + x;", "int i = y * height + x;")],
                             "pixels were never written"),
    "last_row_skipped": ([("y >= height", "y >= height - 1")], "pixels were never written"),
    "no_clamp": (each_channel("fminf({c}2 + 0.5f, 255.0f)", "({c}2 + 0.5f)"),
                 "Hint: clamp before converting"),
    # blind audit AJ (was '... all where the sum goes past 255 ... Hint: clamp before
    # converting ...', the clamp there): clamped at 256.0f, and 256 becomes 0 as unsigned char
    "clamped_at_256": (each_channel("fminf({c}2 + 0.5f, 255.0f)", "fminf({c}2 + 0.5f, 256.0f)"),
                       ("291 values are 0 where the sum goes past 255",
                        "the clamp lets 256 through (a ceiling of 256.0f where 255.0f belongs)",
                        "256 becomes 0",
                        "Hint: clamp to 255, the largest unsigned char: (unsigned char)fminf(r2 "
                        "+ 0.5f, 255.0f)")),
    # blind audit TAAB-sepia-1: clamped at 1.0f, as if the channels ran 0 to 1 (was 'the red
    # output is 0.002 r + 0.002 g + 0.002 b, where the matrix has 0.393 r + ... Hint: each output
    # channel comes from the input's r, g and b: ...', the weights blamed, which are right)
    "clamped_at_1": (each_channel("fminf({c}2 + 0.5f, 255.0f)", "fminf({c}2 + 0.5f, 1.0f)"),
                     ("no value of out is above 1", "clamped at 1 where 255 belongs",
                      "Hint: the channels are bytes, 0 to 255", "fminf(r2 + 0.5f, 255.0f)")),
    "truncates_instead_of_rounding": (each_channel("fminf({c}2 + 0.5f, 255.0f)", "fminf({c}2, 255.0f)"),
                                      "the kernel truncates instead of rounding"),
    # blind audit AH (was 'values are one below NumPy's ... the kernel truncates instead of
    # rounding (no + 0.5f, or the fraction already lost before it) ... Hint: ... an integer
    # division ...'): the + 0.5f added after the cast, in all three channels
    "half_added_outside_the_cast": (each_channel("fminf({c}2 + 0.5f, 255.0f)", "fminf({c}2, 255.0f) + 0.5f"),
                                    ("the + 0.5f is outside the cast: out[3 * i] = (unsigned char)"
                                     "fminf(r2, 255.0f) + 0.5f; converts r2 to unsigned char first",
                                     "Hint: move the + 0.5f inside the cast",
                                     "(unsigned char)fminf(r2 + 0.5f, 255.0f)")),
    "input_read_as_bgr": ([(READ, "float b = rgb[3 * i], g = rgb[3 * i + 1], r = rgb[3 * i + 2];")],
                          "reads the input bytes as BGR"),
    "outputs_swapped": ([("fminf(r2 + 0.5f", "fminf(TMP"), ("fminf(b2 + 0.5f", "fminf(r2 + 0.5f"),
                         ("fminf(TMP", "fminf(b2 + 0.5f")], "Hint: channels mixed up"),
    # blind audit THB-sepia-1: the green and blue rows of the matrix swapped (was 'the result is
    # what a kernel gives that stores R', G', B' at bytes 3*i + 0, 3*i + 2, 3*i + 1', the stores
    # blamed, which are right); the bytes are those of swapped stores: both are named
    "green_and_blue_rows_swapped": ([("float g2 = 0.349f * r + 0.686f * g + 0.168f * b;",
                                      "float g2 = 0.272f * r + 0.534f * g + 0.131f * b;"),
                                     ("float b2 = 0.272f * r + 0.534f * g + 0.131f * b;",
                                      "float b2 = 0.349f * r + 0.686f * g + 0.168f * b;")],
                                    "the green bytes hold the blue sums, the blue bytes hold the "
                                    "green sums, the input read right (x = 0, y = 0: green 111, "
                                    "NumPy's 143, blue 143, NumPy's 111): either the stores are "
                                    "swapped (out[3*i + 1] from b2, out[3*i + 2] from g2), or the "
                                    "matrix's rows are (g2 computed with the blue weights 0.272, "
                                    "0.534, 0.131, b2 computed with the green weights 0.349, "
                                    "0.686, 0.168)"),
    "matrix_transposed": ([("0.393f * r + 0.769f * g + 0.189f * b", "0.393f * r + 0.349f * g + 0.272f * b"),
                           ("0.349f * r + 0.686f * g + 0.168f * b", "0.769f * r + 0.686f * g + 0.534f * b"),
                           ("0.272f * r + 0.534f * g + 0.131f * b", "0.189f * r + 0.168f * g + 0.131f * b")],
                          "the matrix's columns used as its rows"),
    "blue_never_written": ([(WRITE_B, "    (void)b2;\n")],
                           "only some of their three bytes written (blue missing"),
    "blue_into_the_next_pixel": ([("out[3 * i + 2] =", "out[3 * i + 3] =")],
                                 "some pixels have only some of their three bytes written (blue"),
    "pixel_index_used_as_byte_index": (
        [(WRITE_R + WRITE_G + WRITE_B,
          "    out[i] = (unsigned char)fminf(r2 + 0.5f, 255.0f);\n    (void)g2; (void)b2;\n")],
        "only some of their three bytes written"),
    # as the OpenCL port's blind audit TGC-sepia_opencl-1 (was "some pixels have only some of
    # their three bytes written ..."): the three stores at the pixel's index (their values race
    # on a GPU; which bytes were written does not)
    "three_stores_at_the_pixel_index": (
        [(WRITE_R + WRITE_G + WRITE_B, (WRITE_R + WRITE_G + WRITE_B).replace("out[3 * i]     ", "out[i]")
          .replace("out[3 * i + ", "out[i + "))],
        "the stores use the pixel's index i as the byte's: out[i], out[i + 1], out[i + 2]"),
    "nothing_written": ([(WRITE_R + WRITE_G + WRITE_B, "    (void)r2; (void)g2; (void)b2;\n")],
                        "nothing was written"),
    "wrong_weight": ([("0.769f * g", "0.669f * g")], "the red output is 0.393 r + 0.669 g + 0.189 b"),
    # blind audit TB-sepia-1 (was 'the green output is 0.393 r + 0.769 g + 0.189 b, where the
    # matrix has 0.349 r + 0.686 g + 0.168 b ... Hint: each output channel comes from the input's
    # r, g and b: ...', the layout restated, though the learner's g2 line is right)
    "green_stored_from_the_red_sum": ([(WRITE_G, WRITE_G.replace("fminf(g2", "fminf(r2"))],
                                      "the green bytes hold the red results, the other channels "
                                      "right (x = 0, y = 0: green 160, its red value, where its "
                                      "green value is 143): the green byte was stored from the red "
                                      "sum (r2 where g2 belongs)"),
    "green_from_the_red_result": ([("0.349f * r + 0.686f * g", "0.349f * r2 + 0.686f * g")],
                                  "the green output is 0.137 r + 0.954 g + 0.234 b"),
    # blind audit TEB-sepia-1 (was 'the kernel crashed: ... a read of rgb at sepia.cu:16, 4 bytes
    # past the end ... Hint: a thread went outside the image: ...', the guard blamed, though the
    # thread's pixel was inside): i taken for the byte offset, then 3 * i again at the reads
    "index_scaled_by_3_twice": ([("int i = y * width + x;", "int i = 3 * (y * width + x);")],
                                "the index was multiplied by 3 twice"),
    "read_at_the_pixel_index": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                                  "float r = rgb[i], g = rgb[i + 1], b = rgb[i + 2];")],
                                "pixel i was read from bytes i, i + 1 and i + 2"),
    "red_sum_in_an_unsigned_char": ([("float r2 =", "unsigned char r2 =")],
                                    "the red sum was kept in an unsigned char"),
    "read_at_3y_width_plus_x": ([(READ, "int j = 3 * y * width + x;\n    "
                                        "float r = rgb[j], g = rgb[j + 1], b = rgb[j + 2];")],
                                "x was not multiplied by 3"),
    "read_one_byte_on": ([(READ, "float r = rgb[3 * i + 1], g = rgb[3 * i + 2], b = rgb[3 * i + 3];")],
                         "one byte on"),
    "read_as_planar": ([(READ, "float r = rgb[i], g = rgb[i + width * height], "
                               "b = rgb[i + 2 * width * height];")], "the input was read as planar"),
    # (unsigned char) of a float past 255: 255 on a GPU, wrapped around on the simulator
    "fmaxf_for_fminf": (each_channel("fminf({c}2 + 0.5f", "fmaxf({c}2 + 0.5f"),
                        "fmaxf keeps the larger"),
    "integer_weights_over_1000": ([(READ, READ.replace("float", "int")),
                                   ("0.393f * r + 0.769f * g + 0.189f * b", "(393 * r + 769 * g + 189 * b) / 1000"),
                                   ("0.349f * r + 0.686f * g + 0.168f * b", "(349 * r + 686 * g + 168 * b) / 1000"),
                                   ("0.272f * r + 0.534f * g + 0.131f * b", "(272 * r + 534 * g + 131 * b) / 1000")],
                                  "an integer division"),
    "stores_one_byte_on": ([("out[3 * i + 2] =", "out[3 * i + 3] ="), ("out[3 * i + 1] =", "out[3 * i + 2] ="),
                            ("out[3 * i]     =", "out[3 * i + 1] =")],
                           "out[0] was never written and the byte just past the end of out was"),
    # blind audit H22 (was blamed on && alone): on a 53 x 37 image, 48 rows of threads, the
    # guard y >= width lets through the very stores past the end that && does; the race check
    # on the simulator tells them apart (&& writes pixels inside twice)
    "guard_compares_y_with_width": ([("y >= height", "y >= width")],
                                    "the guard compares y with width: threads below the image"),
    "guard_with_and": ([("x >= width || y >= height", "x >= width && y >= height")],
                       "(&&): those outside in one of them wrote past the end of out, and (the race "
                       "check on the simulator shows) into the next row's first pixels"),
    # one channel rounded or clamped another way (the mutation audit's fallbacks)
    "green_sum_in_an_int": ([("float g2 =", "int g2 =")],
                            "the green values are one below NumPy's where the sum's fraction is "
                            ".5 or more, the other channels right"),
    "red_rounded_with_minus_half": ([("fminf(r2 + 0.5f", "fminf(r2 - 0.5f")],
                                    "the red sum was rounded with - 0.5f"),
    "blue_clamped_with_fmaxf": ([("fminf(b2 + 0.5f", "fmaxf(b2 + 0.5f")],
                                "every blue value below 255 turned into 255, the other channels"),
    "rounded_with_ceilf": (each_channel("fminf({c}2 + 0.5f, 255.0f)", "fminf(ceilf({c}2), 255.0f)"),
                           "ceilf rounds every fraction up"),
    # blind audit W11: the channels read into a (signed) char (was 'the kernel crashed: a
    # float-to-integer conversion ... Hint: a thread went outside the image ...'); the simulator
    # stops at a negative sum's conversion, a GPU saturates it to 0 (the model signed_tone)
    "channels_in_a_char": ([(READ, READ.replace("float r", "char r"))],
                           "the channels were read into a char, which holds -128 to 127"),
    # every thread converts every pixel, the same values: right, but for the race check
    "every_thread_does_the_whole_loop": ([("    int i = y * width + x;\n",
                                           "    for (int i = 0; i < width * height; i++) {\n"),
                                          (WRITE_B + "}", WRITE_B + "    }\n}")],
                                         "two threads wrote out[0]"),
    # blind audit AP (was '... a data race on g2[0] (shared memory) ... Hint: two threads store
    # into the same element of the shared array: each element must be loaded by one thread'):
    # the pixel's sums declared __shared__, one of each for the whole block
    "sums_declared_shared": ([("    float r2 =", "    __shared__ float r2, g2, b2;\n    r2 ="),
                              ("    float g2 =", "    g2 ="), ("    float b2 =", "    b2 =")],
                             ("is declared __shared__: one", "for the whole block, not one for each "
                              "thread", "Hint: declare", "without __shared__, a plain local each "
                              "thread keeps in its own register")),
    # the OpenCL port's blind audit TFC-sepia_opencl-1, here too (the models are shared): blue
    # read from the green byte, so the weights fitted put b's weight on g
    "blue_read_from_the_green_byte": ([("b = rgb[3 * i + 2];", "b = rgb[3 * i + 1];")],
                                      "b was read from the green byte, 3*i + 1, where blue is "
                                      "byte 3*i + 2"),
    # blind audit AB (was 'PASS: every pixel matches NumPy's sepia ...', the reads past rgb hidden
    # by the room after it): the guard moved down to just before the stores, so the threads
    # outside the image read their pixel's bytes, past the end of rgb, before it sends them away
    "guard_after_the_reads": ([(GUARD, ""), (WRITE_R, GUARD + WRITE_R)],
                              ("the kernel reads rgb[3 * i] (line", "before its bounds guard, if "
                               "(x >= width || y >= height) (line", "the threads outside the 53 x "
                               "37 image (the grid has 64 x 48 threads) read before they return, "
                               "past the end of rgb, as far as rgb[7664] (rgb holds 5883 bytes",
                               "Hint: the guard must come before any access to memory")),
    # blind audit AO (was '1578 of 5883 values are wrong (the first is x = 0, y = 0, blue: got 112,
    # expected 111) ... Hint: pixel i's red, green and blue are at 3*i, ...', the weights not
    # named): for speed, integer weights in 1/256ths, (101 * R + 197 * G + 48 * B + 128) >> 8
    "weights_in_256ths": ([(FLOAT_SUMS, FIXED_SUMS.format(h=128, s=" >> 8", w=(
        101, 197, 48, 89, 176, 43, 70, 137, 34)))],
                          ("values are one off", "the weights are integers in 1/256ths, "
                           "101, 197 and 48 for red", "101 / 256 = 0.3945, not 0.393",
                           "Hint: keep the matrix's float weights")),
}


# blind audit AO: integer weights in 1/1000ths, which weights_in_256ths's hint names, are the
# matrix's own, and right
IN_1000THS = FIXED_SUMS.format(h=500, s=" / 1000", w=(393, 769, 189, 349, 686, 168, 272, 534, 131))


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("sepia", {"solution": KERNEL,
                                           "in_1000ths": variant(KERNEL, (FLOAT_SUMS, IN_1000THS)),
                                           **{name: variant(KERNEL, *r) for name, (r, _) in WRONG.items()}})


def test_stub_fails(capsys):
    assert not check_sepia("exercises/sepia.cu")
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ")
    assert "only block 0's pixels were written" in out


@pytest.mark.parametrize("name", ["solution", "in_1000ths"])
def test_inline_right_kernel_passes(name, kernels, capsys):
    assert check_sepia_kernel(*kernels[name]).passed is True
    assert capsys.readouterr().out.startswith("PASS: ")


SIMULATOR_ONLY = {"index_scaled_by_3_twice": "writes up to twice the image's bytes past out: on a "
                  "GPU other arrays' memory (its output model is tested below, on a made-up "
                  "output)",
                  "dangling_else_in_the_clamp": "stores a byte never set: on a GPU it may be right"}


@pytest.mark.parametrize("name", simulator_only(WRONG, SIMULATOR_ONLY))
def test_wrong_kernel_fails_with_its_hint(name, kernels, capsys):
    expected = WRONG[name][1]
    assert check_sepia_kernel(*kernels[name]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    for piece in expected if isinstance(expected, tuple) else (expected,):
        assert piece in out, out


def test_rows_swapped_get_each_row_s_weights_as_the_hint(kernels):
    verdict = check_sepia_kernel(*kernels["green_and_blue_rows_swapped"])
    assert "g2 = 0.349f * r + 0.686f * g + 0.168f * b, b2 = 0.272f * r + 0.534f * g + 0.131f * b" \
        in verdict.hint, verdict


def test_a_changed_parameter_type_is_named_on_both_backends(capsys):
    path = stable_file("sepia_float_width.cu", variant(KERNEL, ("int width", "float width")))
    verdict = check_sepia(path)
    assert not verdict, capsys.readouterr().out
    assert "parameter 3 of sepia, width, is declared 'float'" in verdict.problem
    assert "the checker passes 'int'" in verdict.problem


SEPIA_ROWS = ("    float r2 = 0.393f * r + 0.769f * g + 0.189f * b;\n"
              "    float g2 = 0.349f * r + 0.686f * g + 0.168f * b;\n"
              "    float b2 = 0.272f * r + 0.534f * g + 0.131f * b;\n")
SIGNATURE = "__global__ void sepia("
# name: (replacements in the solution, {verdict field: words}): what nvcc refuses and g++ takes
DOES_NOT_COMPILE = {
    # the matrix as a const array outside the kernel, read in a loop over the channels: const
    # leaves an array in the host's memory (nvcc folds SEPIA[0] in an initializer, not SEPIA[3 * k])
    "matrix_in_a_const_array": (
        [(SIGNATURE, "const float SEPIA[9] = {0.393f, 0.769f, 0.189f, 0.349f, 0.686f, 0.168f, "
                     "0.272f, 0.534f, 0.131f};\n\n" + SIGNATURE),
         (SEPIA_ROWS + WRITE_R + WRITE_G + WRITE_B,
          "    for (int k = 0; k < 3; k++)\n        out[3 * i + k] = (unsigned char)fminf(SEPIA[3 * k] "
          "* r + SEPIA[3 * k + 1] * g + SEPIA[3 * k + 2] * b + 0.5f, 255.0f);\n")],
        {"problem": "line 21: sepia reads SEPIA, a variable declared outside any function without "
                    "__device__ or __constant__", "hint": "declare it __constant__"}),
    # a row of the matrix as a struct whose member function lacks __device__
    "row_with_a_host_member_function": (
        [(SIGNATURE, "struct Row {\n    float wr, wg, wb;\n    float dot(float r, float g, float b) "
                     "const { return wr * r + wg * g + wb * b; }\n};\n\n" + SIGNATURE),
         (SEPIA_ROWS, "    Row rows[3] = {{0.393f, 0.769f, 0.189f}, {0.349f, 0.686f, 0.168f}, "
                      "{0.272f, 0.534f, 0.131f}};\n    float r2 = rows[0].dot(r, g, b);\n"
                      "    float g2 = rows[1].dot(r, g, b);\n    float b2 = rows[2].dot(r, g, b);\n")],
        {"problem": "line 24 calls dot, a member function of Row declared without __device__"}),
    # the pixel as a struct built by a constructor without __device__ (line 21)
    "pixel_with_a_host_constructor": (
        [(SIGNATURE, "struct Pixel {\n    float r, g, b;\n    Pixel(float r, float g, float b) "
                     ": r(r), g(g), b(b) {}\n};\n\n" + SIGNATURE),
         ("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
          "Pixel p(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);\n    float r = p.r, g = p.g, b = p.b;")],
        {"hint": "declare the constructor __device__ Pixel(...)"}),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    assert_refused_and_named(check_sepia, "sepia", name, *DOES_NOT_COMPILE[name])


def test_a_byte_never_written_is_named_before_runs_that_differ():
    """On the H200, blue stored into the next pixel's red (out[3 * i + 3]) also races with that
    pixel's own red store, so the two runs differ too; the verdict names the cause, the blue
    bytes never written, which the simulator's single order shows alone."""
    from helpers.exercises.common import Result
    from helpers.exercises.sepia import CASES, WILD_HINT, WORDS, written_mistakes

    unwritten = np.zeros((2, 3, 3), bool)
    unwritten[..., 2] = True
    out = Result(got=np.zeros((2, 3, 3), np.uint8), past=np.zeros(0, int), unwritten=unwritten,
                 differs=True)
    problem, _ = next(written_mistakes(out, CASES[0], WORDS, WILD_HINT, WILD_HINT))
    assert problem.startswith("some pixels have only some of their three bytes written (blue")


def test_channels_in_a_char_are_named_from_a_gpus_output():
    """On a GPU the negative sums convert to 0: the output matches ``signed_tone``."""
    from helpers.exercises import sepia
    rgb = np.random.default_rng(3).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    problem, hint = next(sepia._signed(rgb, sepia.signed_tone(rgb)))
    assert "read into a char, which holds -128 to 127" in problem
    assert "float r = rgb[3 * i]" in hint


def test_index_scaled_by_3_twice_is_named_from_a_gpus_output():
    """On a GPU the reads and stores of i = 3 * (y * width + x) at 3 * i past the end need not
    stop the kernel: the thread of pixel k stores pixel 3k, right, the other pixels are never
    written, and bytes past the end of out are."""
    from helpers.exercises import sepia
    from helpers.exercises.common import Result
    from helpers.exercises.sepia_models import reference

    rgb = np.random.default_rng(4).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    got = np.full(rgb.size, 0xEF, np.uint8)
    got.reshape(-1, 3)[::3] = reference(rgb).reshape(-1, 3)[::3]
    unwritten = np.ones((35, 3), bool)
    unwritten[::3] = False
    out = Result(got=got.reshape(rgb.shape), past=np.arange(105, 200),
                 unwritten=unwritten.reshape(rgb.shape))
    problem, hint = next(sepia._tripled(rgb, out))
    assert "only every third pixel (0, 3, 6, ...) was written" in problem
    assert "the index was multiplied by 3 twice" in problem
    assert hint.startswith("multiply by 3 once: i = y * width + x")
