"""The OpenCL sepia exercise (notebook 12): the solution passes, the stub and known-wrong ports
fail, each with the hint that names its mistake. Runs on the platform helpers.ch12.opencl picks:
Oclgrind without a GPU, NVIDIA's OpenCL on one."""

import pytest

from kernel_sources import variant

from helpers.ch12 import opencl
from helpers.exercises.sepia_opencl import check_sepia_opencl, check_sepia_opencl_kernel

SOLUTION = (opencl.cl_src() / "solutions" / "sepia.cl").read_text()
INDEX = ("int x = get_global_id(0);   // column", "int y = get_global_id(1);   // row")
GUARD = "if (x >= width || y >= height)\n        return;"
WRITES = [f"convert_uchar_sat({c}2 + 0.5f)" for c in "rgb"]

# name: (replacements in the solution, a piece of the expected verdict, or a tuple of them)
WRONG = {
    # blind audit TDC-sepia_opencl-1 (was "5142 of 5883 values are wrong (the first: x = 0, y = 0,
    # red: got 11, expected 160 ...). Hint: pixel i's red, green and blue are at 3*i ..."): the
    # input declared as signed bytes
    "input_read_as_signed_char": ([("__global const uchar *rgb", "__global const char *rgb")],
                                  "were read as negative numbers: rgb is declared as char, which "
                                  "holds -128 to 127"),
    # blind audit AIC-sepia_opencl-2 (was '185 of 1961 pixels were never written ... Hint: every
    # pixel needs a work-item: x = get_global_id(0) ...', the body being right): the kernel's int
    # parameters declared height, width, as mirror_opencl's test names it
    "width_and_height_parameters_swapped": ([("__global uchar *out, int width, int height)",
                                              "__global uchar *out, int height, int width)")],
                                            ("the kernel declares its int parameters as int "
                                             "height, int width, where the host passes the "
                                             "image's width first: inside the kernel width = 37 "
                                             "and height = 53", "declare them in the host's "
                                             "order: __global uchar *out, int width, int height")),
    "channels_read_into_char": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                                  "char r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];")],
                                "the channels were read into a char, which holds -128 to 127"),
    "read_at_the_pixel_index": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                                  "float r = rgb[i], g = rgb[i + 1], b = rgb[i + 2];")],
                                "pixel i was read from bytes i, i + 1 and i + 2"),
    "rows_as_long_as_the_range": ([("int i = y * width + x;", "int i = y * get_global_size(0) + x;")],
                                  "a row was taken as the grid's 64 work-items across"),
    "x_and_y_swapped_in_the_index": ([("int i = y * width + x;", "int i = x * width + y;")],
                                     "x and y are swapped in the index"),
    "only_group_0": ([(INDEX[0], "int x = get_local_id(0);"),
                      (INDEX[1], "int y = get_local_id(1);")],
                     "only work-group 0's pixels were written"),
    "y_uses_the_local_id": ([(INDEX[1], "int y = get_local_id(1);")],
                            "Hint: y uses get_local_id"),
    "x_y_swapped": ([(INDEX[0], "int x = get_global_id(1);"),
                     (INDEX[1], "int y = get_global_id(0);")],
                    "Hint: x and y are swapped: x runs along a row"),
    "no_bounds_guard": ([(GUARD, "")], "Hint: no bounds guard"),
    "guard_off_by_one": ([("x >= width || y >= height", "x > width || y > height")],
                         "the bounds guard is off by one"),
    "guard_off_by_one_in_x": ([("x >= width || y >= height", "x > width || y >= height")],
                              "the guard on x is off by one (x > width where x >= width belongs)"),
    "guard_off_by_one_in_y": ([("x >= width || y >= height", "x >= width || y > height")],
                              "the guard on y is off by one (y > height where y >= height belongs)"),
    "row_length_is_height": ([("int i = y * width + x;", "int i = y * height + x;")],
                             "pixels were never written"),
    # blind audit TNC-sepia_opencl-1 (was "3611 of 5883 values are wrong (the first: x = 0, y = 0,
    # red: got 127, expected 160 ...). Hint: pixel i's red, green and blue are at 3*i ..."):
    # convert_char_sat, signed, where convert_uchar_sat belongs: every value clamped at 127
    "converted_to_signed_char": ([(w, w.replace("uchar", "char")) for w in WRITES],
                                 ("values stop at 127: the stores convert with convert_char_sat",
                                  "convert with convert_uchar_sat, out[3*i] = "
                                  "convert_uchar_sat(r2 + 0.5f)")),
    "truncates": ([(w, w.replace(" + 0.5f", "")) for w in WRITES],
                  "the kernel truncates instead of rounding"),
    # blind audit TXC-sepia_opencl-1 (was "939 values are one level low, where the sum's fraction
    # is .5 or more (x = 1, y = 0, blue: ...): the kernel truncates instead of rounding", as if
    # every channel did): only the blue store without the + 0.5f
    "blue_store_truncates": ([(WRITES[2], "convert_uchar_sat(b2)")],
                             ("only the blue values are one level low, where the sum's fraction "
                              "is .5 or more", "out[3 * i + 2] = convert_uchar_sat(b2) converts "
                              "without the + 0.5f", "Hint: add the + 0.5f there as in the other "
                              "stores: convert_uchar_sat(b2 + 0.5f)")),
    "input_read_as_bgr": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                            "float b = rgb[3 * i], g = rgb[3 * i + 1], r = rgb[3 * i + 2];")],
                          "reads the input bytes as BGR"),
    "matrix_transposed": ([("0.393f * r + 0.769f * g + 0.189f * b",
                            "0.393f * r + 0.349f * g + 0.272f * b"),
                           ("0.349f * r + 0.686f * g + 0.168f * b",
                            "0.769f * r + 0.686f * g + 0.534f * b"),
                           ("0.272f * r + 0.534f * g + 0.131f * b",
                            "0.189f * r + 0.168f * g + 0.131f * b")],
                          "the matrix's columns used as its rows"),
    "blue_never_written": ([("out[3 * i + 2] = convert_uchar_sat(b2 + 0.5f);", "")],
                           "only some of their three bytes written (blue missing"),
    # blind audit AC (was 'some pixels have only some of their three bytes written (blue missing
    # in places)'): the blue result stored at out[3 * i + 1], green's byte, over green's own
    "blue_stored_at_green": ([("out[3 * i + 2] = convert_uchar_sat(b2",
                               "out[3 * i + 1] = convert_uchar_sat(b2")],
                             ("no pixel's blue byte (out[3*i + 2]) was written, and every green "
                              "byte holds the blue value", "the blue store at line 25 "
                              "(out[3 * i + 1] = ...) writes green's byte", "Hint: store blue at out[3 * i + 2]")),
    # blind audit TGC-sepia_opencl-1 (was "some pixels have only some of their three bytes
    # written (red, green, blue missing in places) ..."): the pixel's index used as the byte's in
    # the three stores (they overlap the next pixel's: the values race on a GPU, the bytes
    # written, 0 to n + 1, do not)
    "stored_at_the_pixel_index": ([(f"out[3 * i{o}]{pad} = {w};", f"out[i{o}]{pad} = {w};")
                                   for o, pad, w in zip(("", " + 1", " + 2"), ("    ", "", ""),
                                                        WRITES)],
                                  ("the stores use the pixel's index i as the byte's: out[i], "
                                   "out[i + 1], out[i + 2]",
                                   "Hint: pixel i's bytes are 3*i, 3*i + 1 and 3*i + 2")),
    # blind audit THC-sepia_opencl-1 (was "Oclgrind reported 2000 accesses outside a buffer, ... at
    # line 18 ... Hint: x = get_global_id(0) (the column), ...", ids and guard right): the pixel's
    # index multiplied by 3 where the reads and stores multiply it by 3 again
    # blind audit TZC-sepia_opencl-1 (was "Oclgrind reported 2000 accesses outside a buffer, the
    # first by work-item (0, 27): invalid read of size 1 (global memory) at line 18 ... Hint: x =
    # get_global_id(0) ...; and ... start the kernel with if (x >= width || y >= height) return;",
    # the guard the kernel has): a row taken as 3 * width pixels in the pixel index, so row y of
    # work-items does image row 3 * y and the rows from y = 13 on run past the end (on a GPU too,
    # as the index scaled by 3 twice: stores past out that the guard zone shows or not, the rows
    # inside the image right)
    "row_step_of_3_width_in_the_pixel_index": ([("int i = y * width + x;",
                                                 "int i = y * 3 * width + x;")],
                                               ("only rows 0, 3, 6, ... of the image were "
                                                "written (13 of 37 rows), each right: the pixel "
                                                "index, i = y * 3 * width + x, steps 3 rows a row",
                                                "work-items from y = 13 on ran past the end of "
                                                "rgb and out",
                                                "Hint: the pixel index counts pixels, not bytes: "
                                                "i = y * width + x")),
    "index_scaled_by_3_twice": ([("int i = y * width + x;", "int i = 3 * (y * width + x);")],
                                ("the index was multiplied by 3 twice: i = 3 * (y * width + x) is "
                                 "already the pixel's first byte, and the reads and stores "
                                 "multiply it by 3 again (9 * the pixel)",
                                 "the work-items of the image's last two thirds",
                                 "Hint: multiply by 3 once: i = y * width + x")),
    # blind audit TIC-sepia_opencl-1 (was "2742 values are one level low, ...: the kernel
    # truncates instead of rounding. Hint: ... convert_uchar_sat(value + 0.5f) ...", which the
    # kernel has): the sums declared int, which drops their fractions before the + 0.5f
    "sums_declared_int": ([(f"float {c}2 =", f"int {c}2 =") for c in "rgb"],
                          ("r2, g2 and b2 are declared int, so each sum lost its fraction when it "
                           "was stored there (x = 0, y = 0, green: 142.66 became 142)",
                           "Hint: declare the sums float: float r2 = 0.393f * r")),
    # blind audit TPC-sepia_opencl-1 (was "2742 values are one level low, ...: the kernel
    # truncates instead of rounding. Hint: ... convert_uchar_sat(value + 0.5f) ...", as if no
    # + 0.5f were there): a misplaced parenthesis, the + 0.5f added after the conversion
    "half_added_after_the_conversion": (
        [(w, w.replace(" + 0.5f)", ") + 0.5f")) for w in WRITES],
        ("2742 values are one level low where the sum's fraction is .5 or more (x = 0, y = 0, "
         "green: got 142, expected 143, the exact sum is 142.66): the + 0.5f is outside "
         "convert_uchar_sat: out[3 * i] = convert_uchar_sat(r2) + 0.5f converts r2 first",
         "Hint: put the + 0.5f inside the call, on the float sum: convert_uchar_sat(r2 + 0.5f), "
         "and likewise g2 and b2")),
    "half_added_after_the_red_conversion": (
        [(WRITES[0], "convert_uchar_sat(r2) + 0.5f")],
        ("the red values are one level low where",
         "out[3 * i] = convert_uchar_sat(r2) + 0.5f converts r2 first",
         "Hint: put the + 0.5f inside the call, on the float sum: convert_uchar_sat(r2 + 0.5f)")),
    "red_sum_declared_int": ([("float r2 =", "int r2 =")],
                             ("the red values are one level low where the sum's fraction is .5 or "
                              "more: r2 is declared int", "Hint: declare the sum float: float r2 = "
                              "0.393f * r")),
    # blind audit AF (was 'nothing was written: out still holds the poison ... Hint: each
    # work-item should store its three results in out[3*i], ...', which the kernel did): the
    # buffer parameters declared out first, as memcpy's
    "buffers_declared_out_first": ([("__global const uchar *rgb, __global uchar *out",
                                     "__global uchar *out, __global const uchar *rgb")],
                                   ("the kernel declares its buffers out first (__global uchar "
                                    "*out, __global const uchar *rgb), where the host passes the "
                                    "input image first: out was the host's input buffer, and rgb "
                                    "its output buffer",
                                    "Hint: declare them in the host's order: __kernel void sepia("
                                    "__global const uchar *rgb, __global uchar *out, int width, "
                                    "int height)")),
    "nothing_written": ([(f"out[3 * i{o}]{pad} = {w};", "") for o, pad, w in
                         zip(("", " + 1", " + 2"), ("    ", "", ""), WRITES)],
                        "nothing was written"),
    # blind audit TRC-sepia_opencl-1 (was "the red output is 0.002 r + 0.004 g + 0.001 b, where
    # the matrix has 0.393 r + 0.769 g + 0.189 b ... Hint: each output channel comes from the
    # input's r, g and b: ...", the matrix being right): the channels read as 0..1 (/ 255.0f)
    "channels_read_as_fractions": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                                     "float r = rgb[3 * i] / 255.0f, g = rgb[3 * i + 1] / 255.0f, "
                                     "b = rgb[3 * i + 2] / 255.0f;")],
                                    ("every output byte is 0 or 1 (x = 0, y = 0, red: got 1, "
                                     "expected ", "255 times too small: the reads divide the "
                                     "channels by 255 (rgb[3 * i] / 255.0f",
                                     "Hint: read the bytes as they are, 0 to 255: float r = "
                                     "rgb[3*i]")),
    "wrong_weight": ([("0.769f * g", "0.669f * g")], "the red output is 0.393 r + 0.669 g + 0.189 b"),
    "wild_index": ([("int i = y * width + x;", "int i = y * width + x + 100000;")],
                   "outside"),
    # blind audit TFC-sepia_opencl-1 (was "the red output is 0.393 r + 0.958 g + 0.000 b, where
    # the matrix has 0.393 r + 0.769 g + 0.189 b ... Hint: each output channel comes from the
    # input's r, g and b: ...", weights that were right): green read twice, blue never
    "blue_read_from_the_green_byte": ([("b = rgb[3 * i + 2];", "b = rgb[3 * i + 1];")],
                                      ("b was read from the green byte, 3*i + 1, where blue is "
                                       "byte 3*i + 2",
                                       "Hint: read each channel from its own byte: "
                                       "b = rgb[3*i + 2]")),
    # blind audit TKC-sepia_opencl-1 (was "g was read from the red byte, 3*i, where green is byte
    # 3*i + 1 ... read as 138, 138, 195", the + 1 outside the brackets unsaid and the value wrong)
    "green_read_as_red_plus_one": ([("g = rgb[3 * i + 1]", "g = rgb[3 * i] + 1")],
                                   ("g = rgb[3*i] + 1 is the red byte plus one",
                                    "read as 138, 139, 195",
                                    "Hint: the + 1 belongs inside the brackets, on the byte's "
                                    "index: g = rgb[3*i + 1]")),
    "blue_read_as_green_plus_one": ([("b = rgb[3 * i + 2]", "b = rgb[3 * i + 1] + 1")],
                                    ("b = rgb[3*i + 1] + 1 is the green byte plus one",
                                     "Hint: the + 1 belongs inside the brackets, on the byte's "
                                     "index: b = rgb[3*i + 2]")),
    # blind audit TMC-sepia_opencl-1 (was "1924 of 1961 pixels were never written ... Hint: every
    # pixel needs a work-item: x = get_global_id(0) ..., y = get_global_id(1) ...", the generic
    # checklist): y took x's dimension
    "y_from_dimension_0": ([(INDEX[1], "int y = get_global_id(0);   // row")],
                           ("only the 37 pixels on the diagonal x == y were written: x and y "
                            "took the same global id",
                            "Hint: each takes its own dimension of the range: x = "
                            "get_global_id(0) (the column), y = get_global_id(1) (the row)")),
    # blind audit TWC-sepia_opencl-1 (was "some pixels have only some of their three bytes
    # written (red, green, blue missing in places). Hint: a pixel takes 3 bytes of out: write
    # out[3*i], ...", the reads' stride not named): 4 bytes a pixel, as if RGBA, in the reads and
    # the stores
    "four_bytes_a_pixel": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                             "float r = rgb[4 * i], g = rgb[4 * i + 1], b = rgb[4 * i + 2];")]
                           + [(f"out[3 * i{o}]{pad} =", f"out[4 * i{o}]{pad} =")
                              for o, pad in (("", "    "), (" + 1", ""), (" + 2", ""))],
                           ("the kernel steps 4 bytes a pixel (out[4 * i], out[4 * i + 1], "
                            "out[4 * i + 2]), where the image is packed RGB, 3 bytes a pixel",
                            "bytes 3, 7, 11, ... of out were never written",
                            "the reads step 4 too (rgb[4 * i], rgb[4 * i + 1], rgb[4 * i + 2])",
                            "Hint: pixel i's bytes are 3*i, 3*i + 1 and 3*i + 2 in rgb and in "
                            "out alike: read rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2] and "
                            "store out[3 * i], out[3 * i + 1], out[3 * i + 2]")),
    # blind audit AH (was 'the kernel steps 4 bytes a pixel (out[4 * i], ...) ...', code the
    # learner did not write): the buffers declared uchar3 *, a pixel read and stored at once
    "buffers_of_uchar3": ([("__global const uchar *rgb, __global uchar *out",
                            "__global const uchar3 *rgb, __global uchar3 *out"),
                           ("float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];",
                            "uchar3 p = rgb[i];\n    float r = p.x, g = p.y, b = p.z;"),
                           ("    out[3 * i]     = convert_uchar_sat(r2 + 0.5f);   // round, and clamp "
                            "to 255\n    out[3 * i + 1] = convert_uchar_sat(g2 + 0.5f);\n"
                            "    out[3 * i + 2] = convert_uchar_sat(b2 + 0.5f);",
                            "    out[i] = convert_uchar3_sat((float3)(r2, g2, b2) + 0.5f);")],
                          ("rgb and out are declared uchar3 *: in OpenCL a uchar3 takes 4 bytes",
                           "so rgb[i] and out[i] step 4 bytes a pixel",
                           "bytes 3, 7, 11, ... of out were never written",
                           "Hint: declare rgb and out as uchar *")),
    # blind audit AB (was 'PASS: every pixel matches NumPy's sepia ...', the reads past rgb
    # hidden by the room after it): the pixel read before the bounds guard
    "read_before_the_guard": ([(GUARD + "\n\n    int i = y * width + x;\n    float r = rgb[3 * i], "
                                "g = rgb[3 * i + 1], b = rgb[3 * i + 2];\n",
                                "int i = y * width + x;\n    float r = rgb[3 * i], g = rgb[3 * i "
                                "+ 1], b = rgb[3 * i + 2];\n    " + GUARD + "\n")],
                              ("the kernel reads rgb[3 * i] (line 15) before its bounds guard, "
                               "if (x >= width || y >= height) (line 16)", "read before they return, "
                               "past the end of rgb, as far as rgb[7664] (rgb holds 5883 bytes",
                               "Hint: the guard must come before any access to memory")),
    # blind audit TTC-sepia_opencl-1 (was "2734 of 5883 values are wrong (the first: x = 0, y = 0,
    # red: got 161, expected 160 ...). Hint: pixel i's red, green and blue are at 3*i ...", the
    # rounding not named): convert_uchar_sat_rte, which rounds, of the sum + 0.5f
    "rounded_twice_with_rte": ([(w, w.replace("_sat(", "_sat_rte(")) for w in WRITES],
                               ("values are one level high where the sum's fraction is below .5 "
                                "(the first: x = 0, y = 0, red: got 161, expected 160, the exact "
                                "sum is 160.30): convert_uchar_sat_rte(r2 + 0.5f) rounds twice",
                                "Hint: round once: convert_uchar_sat_rte(r2) (it rounds to the "
                                "nearest level itself), or convert_uchar_sat(r2 + 0.5f)")),
    # blind audit AP (was "5665 of 5883 values are wrong (the first: x = 0, y = 1, ...). Hint:
    # pixel i's red, green and blue are at 3*i ...", every layout rule restated): a half-done
    # edit, the read's offset y * width + 3 * x, the column multiplied by 3 and the row not
    "row_not_tripled_in_the_read_s_offset": ([("float r = rgb[3 * i], g = rgb[3 * i + 1], "
                                               "b = rgb[3 * i + 2];",
                                               "int p = y * width + 3 * x;\n    float r = rgb[p], "
                                               "g = rgb[p + 1], b = rgb[p + 2];")],
                                             ("row 0 is right, but the rows below it read the "
                                              "wrong bytes: the read's offset, p = y * width + 3 "
                                              "* x, multiplies the column by 3 but not the row",
                                              "Hint: a row of rgb is 3 * width bytes: read pixel "
                                              "i = y * width + x at rgb[3 * i], rgb[3 * i + 1], "
                                              "rgb[3 * i + 2]")),
}

NO_CLAMP = [(w, f"(uchar)({w.removeprefix('convert_uchar_sat(')}") for w in WRITES]


@pytest.fixture(scope="module")
def ctx():
    platform, _ = opencl.choose_platform()
    return opencl.context(platform)


def kernel(ctx, source):
    return opencl.cl.Kernel(opencl.cl.Program(ctx, source).build(), "sepia")


def test_stub_fails(capsys):
    assert check_sepia_opencl().passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ") and "only work-group 0's pixels were written" in out


@pytest.mark.parametrize("seed", [4, 5, 11])
def test_the_solution_passes_grader_s_cases_whose_range_covers_the_image_both_ways(seed):
    """A range at least as wide and as tall as the image's longer side (seed 4: 120 x 113 on
    (128, 120)) has a kernel with width and height swapped write every pixel right: the swapped
    sides cannot be told there, and a right kernel was once named for them (a grader's class run
    gave the reference solution NOT YET)."""
    assert check_sepia_opencl("solutions/sepia.cl", hidden=seed).passed is True


def test_solution_passes(capsys):
    assert check_sepia_opencl("solutions/sepia.cl").passed is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_port_fails_with_its_hint(ctx, name, capsys):
    replacements, expected = WRONG[name]
    verdict = check_sepia_opencl_kernel(kernel(ctx, variant(SOLUTION, *replacements)))
    assert verdict.passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    for piece in expected if isinstance(expected, tuple) else (expected,):
        assert piece in out, out
    assert "blockIdx" not in out and "threadIdx." not in out, out  # OpenCL's words, not CUDA's


def test_a_cast_without_clamp_fails_where_the_platform_wraps(ctx, capsys):
    # A float above 255 cast to uchar is undefined in OpenCL C: most platforms wrap (300 -> 44),
    # a platform that saturates gets the right answer by luck, and then the checker cannot tell.
    probe = kernel(ctx, variant(SOLUTION, *NO_CLAMP))
    passed = check_sepia_opencl_kernel(probe).passed
    out = capsys.readouterr().out
    if passed:
        pytest.skip(f"this platform saturates in a float-to-uchar cast: {out}")
    assert "Hint: clamp while converting" in out, out


def test_a_pointer_without_address_space_is_named(tmp_path, capsys):
    bad = tmp_path / "sepia.cl"
    bad.write_text(SOLUTION.replace("__global uchar *out", "uchar *out"))
    assert check_sepia_opencl(str(bad)).passed is False
    out = capsys.readouterr().out
    assert "does not build" in out and "'uchar *out' has no address space" in out, out


@pytest.mark.parametrize("replacements, expected", [
    ([(INDEX[0], "int x = blockIdx.x * blockDim.x + threadIdx.x;"),
      (INDEX[1], "int y = blockIdx.y * blockDim.y + threadIdx.y;")],
     ("it uses CUDA's threadIdx.x, threadIdx.y, blockIdx.x", "get_global_id(0)")),
    ([("__kernel void", "__global__ void")], ("it uses CUDA's __global__", "__global__ is __kernel")),
])
def test_cuda_s_words_in_opencl_c_are_named_with_opencl_s(ctx, tmp_path, capsys, replacements,
                                                          expected):
    bad = tmp_path / "my_sepia.cl"
    bad.write_text(variant(SOLUTION, *replacements))
    assert check_sepia_opencl(str(bad)).passed is False
    out = capsys.readouterr().out
    assert "NOT YET:" in out and "does not build" in out, out
    assert all(words in out for words in expected), out
    assert "input.cl" not in out, out    # Oclgrind's name for every source: the log names the file
    if opencl.is_oclgrind(ctx.devices[0].platform):
        assert f"\n{bad}:1" in out, out    # its line 10 or 12


# blind audit AJ (was '... does not build. Hint: read the compiler's first error ...'): CUDA's
# clamp ported literally, (uchar)fminf(r2 + 0.5f, 255.0f), a function OpenCL C does not have
def test_cuda_s_fminf_is_named_with_opencl_s_fmin(ctx, tmp_path, capsys):
    bad = tmp_path / "my_sepia.cl"
    bad.write_text(variant(SOLUTION, *[(f"convert_uchar_sat({c}2 + 0.5f)",
                                        f"(uchar)fminf({c}2 + 0.5f, 255.0f)") for c in "rgb"]))
    assert check_sepia_opencl(str(bad)).passed is False
    out = capsys.readouterr().out
    assert "does not build: it uses CUDA's fminf, which OpenCL C does not know" in out, out
    assert "Hint: in OpenCL C, fminf is fmin" in out, out


@pytest.mark.parametrize("text, expected", [
    ("\nthis is not OpenCL\n", "does not build"),
    (None, "has no kernel called sepia")])
def test_build_errors_are_reported_not_raised(tmp_path, capsys, text, expected):
    bad = tmp_path / "sepia.cl"
    bad.write_text(SOLUTION + text if text else SOLUTION.replace("void sepia(", "void sepio("))
    assert check_sepia_opencl(str(bad)).passed is False
    out = capsys.readouterr().out
    assert "NOT YET:" in out and expected in out, out


def test_a_missing_file_is_reported_not_raised(capsys):
    assert check_sepia_opencl("exercises/no_such_file.cl").passed is False
    assert "NOT YET: cannot find" in capsys.readouterr().out
