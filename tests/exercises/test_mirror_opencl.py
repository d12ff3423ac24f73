"""The OpenCL mirror exercise (notebook 12): the solution and two unusual right kernels pass, the
stub and the usual mistakes of a 2-D range fail, each with the verdict that names it. Runs on the
platform helpers.ch12.opencl picks: Oclgrind without a GPU, NVIDIA's OpenCL on one."""

import pytest

from kernel_sources import simulator_only, variant

from helpers.ch12 import opencl
from helpers.exercises import catalog, mirror_opencl
from helpers.exercises.mirror_opencl import EXERCISE, check_mirror_opencl

SOLUTION = (opencl.cl_src() / "solutions" / "mirror.cl").read_text()
X, Y = "int x = get_global_id(0);", "int y = get_global_id(1);"
GUARD = "if (x >= width || y >= height)\n        return;"
READ = "in[y * width + (width - 1 - x)]"

# name: (replacements in the solution, words the verdict's problem holds, words its hint holds)
WRONG = {
    # blind audit TZC-mirror_opencl-1: one index from dimension 0, split as in a 1D kernel (was
    # '1897 of 1961 pixels were never written ... Hint: every pixel needs a work-item: x =
    # get_global_id(0) ..., get_local_id is ...; and the guard x < width && y < height', a count
    # with the fix buried among advice that did not apply)
    "one_index_split_as_in_1d": ([(X + "   // the column\n    " + Y + "   // the row\n",
                                   "int i = get_global_id(0);\n    int x = i % width, y = i / "
                                   "width;\n")],
                                 "only the first 64 pixels in memory order were written (row 0 "
                                 "and x = 0 to 10 of row 1; 1897 of 1961 never written): the "
                                 "pixel was taken from get_global_id(0) alone, split as x = i % "
                                 "width, y = i / width",
                                 "on a 2D range each dimension gives one coordinate: x = "
                                 "get_global_id(0) (the column), y = get_global_id(1) (the row)"),
    # blind audit TQC-mirror_opencl-1: the kernel's int parameters declared height, width (was
    # '185 of 1961 pixels were never written ... Hint: every pixel needs a work-item: ... and the
    # guard x < width && y < height', the guard being right and the signature not named)
    "width_and_height_parameters_swapped": ([("__global float *out, int width, int height)",
                                              "__global float *out, int height, int width)")],
                                            "the kernel declares its int parameters as int height, "
                                            "int width, where the host passes the image's width "
                                            "first: inside the kernel width = 37 and height = 53",
                                            "declare them in the host's order: __global float *out, "
                                            "int width, int height"),
    # blind audit TTC-mirror_opencl-1: the buffer parameters declared out first, as memcpy's
    # (was 'nothing was written: out still holds the poison ... Hint: each work-item should store
    # its result in out[y * width + x]', which the kernel did)
    "buffers_declared_out_first": ([("__kernel void mirror(__global const float *in, __global "
                                     "float *out, int width, int height)", "__kernel void mirror("
                                     "__global float *out, __global const float *in, int width, "
                                     "int height)")],
                                   "the kernel declares its buffers out first (__global float "
                                   "*out, __global const float *in), where the host passes the "
                                   "input image first: out was the host's input",
                                   "declare them in the host's order: __kernel void mirror("
                                   "__global const float *in, __global float *out, int width, "
                                   "int height)"),
    # blind audit AF (was 'nothing was written: out still holds the poison ... Hint: each
    # work-item should store its result in out[y * width + x]', which the kernel did): the read
    # takes out, not in (a race on out: SIMULATOR_ONLY)
    "read_from_out": ([("= " + READ, "= out[y * width + (width - 1 - x)]")],
                      "out holds its own poison: each pixel was read from out, not from in "
                      "(out[y * width + x] = out[y * width + (width - 1 - x)], line 15)",
                      "read the input: out[y * width + x] = in[y * width + (width - 1 - x)]"),
    # blind audit AIC-mirror_opencl-1 (was '1961 of 1961 pixels are wrong (the first is x = 0,
    # y = 0: got 0, expected 0.91443) ... Hint: pixel (x, y) of the mirror is ...', the mirror the
    # kernel had right): the pixel read into an int temporary, cut to a whole number
    "pixel_through_an_int": ([("out[y * width + x] = " + READ + ";",
                               "int v = " + READ + ";\n    out[y * width + x] = v;")],
                             "every pixel came out cut to a whole number, toward zero",
                             "keep the pixel a float: float v = " + READ),
    "y_uses_the_local_id": ([(Y, "int y = get_local_id(1);")],
                            "only rows 0 to", "y uses get_local_id"),
    "x_and_y_local": ([(X, "int x = get_local_id(0);"), (Y, "int y = get_local_id(1);")],
                      "only work-group 0's pixels were written", "x and y use get_local_id"),
    "no_bounds_guard": ([(GUARD, "")], "wrote past the end of out", "no bounds guard"),
    # blind audit TXC-mirror_opencl-1 (was 'threads outside the image wrote past the end of out
    # ... Hint: no bounds guard, or only half of one', the whole guard being there, after the store)
    "guard_after_the_store": ([(GUARD + "\n\n    out[y * width + x] = " + READ + ";",
                                "out[y * width + x] = " + READ + ";\n    " + GUARD)],
                              "the bounds guard, if (x >= width || y >= height) return;, comes "
                              "after the store to out (line 12): the work-items outside the image "
                              "(53 x 37) store first and return only then",
                              "the guard must come before any access to memory: move it up"),
    # blind audit AD (was 'threads outside the image wrote past the end of out ... Hint: no
    # bounds guard, or only half of one'): the whole guard inverted, the work-items inside return
    "guard_inverted": ([("x >= width || y >= height", "x < width && y < height")],
                       "the bounds guard is inverted: the work-items inside the image returned",
                       "return the work-items that lie outside"),
    "guard_off_by_one": ([("x >= width || y >= height", "x > width || y > height")],
                         "the bounds guard is off by one", "(>=, not >)"),
    "guard_sides_swapped": ([("x >= width || y >= height", "x >= height || y >= width")],
                            "the guard compares x with height and y with width",
                            "x goes with width, y with height"),
    "guard_with_and": ([("x >= width || y >= height", "x >= width && y >= height")],
                       "the guard stops only the threads outside in both x and y (&&)",
                       "a thread outside in either must return (||)"),
    "guard_on_x_alone": ([("x >= width || y >= height", "x >= width")],
                         "work-items below the image (y >= height) wrote past the end",
                         "outside in x or in y must return"),
    "row_left_out_of_the_read": ([(READ, "in[width - 1 - x]")], "every row of out is row 0's mirror",
                                 "in[y * width + (width - 1 - x)]"),
    "a_copy": ([(READ, "in[y * width + x]")], "out is a copy of in", "width - 1 - x"),
    # blind audit TIC-mirror_opencl-1 (was "out is a copy of in: the columns were not mirrored
    # ... Hint: ... out[y * width + x] = in[y * width + (width - 1 - x)]", the read mirrored
    # already): the store's index mirrored too
    "store_mirrored_too": ([("out[y * width + x] = " + READ, f"out[y * width + (width - 1 - x)] = {READ}")],
                           "out is a copy of in: both the store and the read were mirrored "
                           "(out[y * width + (width - 1 - x)] = in[y * width + (width - 1 - x)])",
                           "mirror the read alone: out[y * width + x] = in[y * width + (width - 1 "
                           "- x)]"),
    "column_off_by_one": ([(READ, "in[y * width + (width - x)]")],
                          "one column too far right", "width - 1 - x"),
    "upside_down": ([(READ, "in[(height - 1 - y) * width + x]")],
                    "out is upside down", "keep the row y"),
    "half_a_turn": ([(READ, "in[(height - 1 - y) * width + (width - 1 - x)]")],
                    "turned half a turn", "mirror only the column"),
    # blind audit TRC-mirror_opencl-1 (was "1908 of 1961 pixels are wrong (the first is x = 0,
    # y = 1: ...) ... Hint: ... out[y * width + x] = in[y * width + (width - 1 - x)]"): the
    # read's row offset y * (width - 1)
    "row_offset_width_minus_one": ([(READ, "in[y * (width - 1) + (width - 1 - x)]")],
                                   "every row was read from y * (width - 1), not y * width: row "
                                   "y's reads start y pixels too far left (x = 0, y = 1 read "
                                   "in[104], where row 1's last pixel is in[105])",
                                   "row y starts at y * width: in[y * width + (width - 1 - x)]"),
    # blind audit AN (was "1908 of 1961 pixels are wrong (the first is x = 0, y = 1: ...) ...
    # Hint: ... out[y * width + x] = in[y * width + (width - 1 - x)]"): rows height apart
    "row_length_is_height": ([(READ, "in[y * height + (width - 1 - x)]")],
                             "every row was read from y * height = y * 37, not y * width = y * "
                             "53: rows of in were taken height = 37 pixels apart, where a row "
                             "holds width = 53; row y's reads start y * 16 pixels too far left "
                             "(x = 0, y = 1 read in[89], where row 1's last pixel is in[105])",
                             "row y starts at y * width: in[y * width + (width - 1 - x)] (a row "
                             "is width pixels long; height is how many rows there are)"),
    # blind audit TC-mirror_opencl-1 (was "37 of 1961 pixels were never written (the first is
    # x = 52, y = 0) ... Hint: every pixel needs a work-item: ..."): the last column left out
    "last_column_left_out": ([("x >= width || y >= height", "x >= width - 1 || y >= height")],
                             "the image's last column, x = width - 1 = 52, was never written: "
                             "the guard returns the work-items there too",
                             "return only past the image: if (x >= width || y >= height)"),
    # blind audit TYC-mirror_opencl-1: the mirror as a swap of column pairs, the left half's
    # work-items (x < width / 2) storing x and width - 1 - x (was '37 of 1961 pixels were never
    # written (the first is x = 26, y = 0) ... Hint: every pixel needs a work-item: ... and the
    # guard x < width && y < height', the width / 2 not named): the odd width's middle column
    "pairs_swapped_by_the_left_half": ([("if (x >= width || y >= height)",
                                         "if (x >= width / 2 || y >= height)"),
                                        ("out[y * width + x] = " + READ + ";\n",
                                         "out[y * width + x] = " + READ + ";\n    out[y * width + "
                                         "(width - 1 - x)] = in[y * width + x];\n")],
                                       "the middle column, x = 26, was never written (the rest of "
                                       "the image is right): the guard returns from x = width / 2 "
                                       "= 26 on, so the left half's work-items stored each column "
                                       "pair, x and width - 1 - x, but the width = 53 is odd, and "
                                       "its middle column, x = (width - 1) / 2 = 26, is its own "
                                       "mirror: it is in neither half",
                                       "give every pixel its work-item: if (x >= width || y >= "
                                       "height) return; out[y * width + x] = in[y * width + "
                                       "(width - 1 - x)]; (pairs need the guard x >= (width + 1) "
                                       "/ 2, which keeps the middle column)"),
    # blind audit TC-mirror_opencl-2 (was "out[r][c] holds the right value of out[r][c - 11]: an
    # index is off by 11 ..."): the range's width, get_global_size(0), for the image's
    "range_size_for_the_width": ([(READ, "in[y * width + (get_global_size(0) - 1 - x)]")],
                                 "every pixel came from column get_global_size(0) - 1 - x = 63 - "
                                 "x: the mirror was taken across the range's 64 work-items, not "
                                 "the image's width = 53",
                                 "the range is rounded up to whole work-groups"),
    # blind audit TDC-mirror_opencl-1 (was "1924 of 1961 pixels were never written (the first is
    # x = 1, y = 0) ... Hint: every pixel needs a work-item: ..."): y copied from x's line
    "y_from_dimension_0": ([(Y, "int y = get_global_id(0);")],
                           "only the 37 pixels on the diagonal x == y were written: x and y took "
                           "the same global id",
                           "y = get_global_id(1) (the row)"),
    # blind audit AB (was 'x and y took the same thread index (threadIdx.x in both, or
    # threadIdx.y in both) ... Hint: ... blockIdx.x * blockDim.x + threadIdx.x', CUDA's words for
    # an OpenCL kernel): y written CUDA-style with the local id of dimension 0
    "y_from_the_local_id_of_dimension_0": ([(Y, "int y = get_group_id(1) * get_local_size(1) + "
                                             "get_local_id(0);")],
                                           "only 126 of 1961 pixels were written, one diagonal "
                                           "line in each work-group: y = get_group_id(1) * "
                                           "get_local_size(1) + get_local_id(0) (line 11) takes "
                                           "get_local_id(0), the work-item's place along "
                                           "dimension 0, as x does",
                                           "y = get_group_id(1) * get_local_size(1) + "
                                           "get_local_id(1), or simply y = get_global_id(1)"),
    # blind audit AE (was '925 of 1961 pixels were never written (the first is x = 28, y = 0)
    # ... Hint: every pixel needs a work-item: ...', a symptom and every rule): x built CUDA-style
    # with the number of groups, get_num_groups(0) (gridDim), where get_local_size(0) belongs
    "x_steps_by_the_number_of_groups": ([(X, "int x = get_group_id(0) * get_num_groups(0) + "
                                          "get_local_id(0);")],
                                        "only columns 0 to 27 were written (right): x = "
                                        "get_group_id(0) * get_num_groups(0) + get_local_id(0) "
                                        "(line 10) starts work-group g's columns at g * 4",
                                        "x = get_group_id(0) * get_local_size(0) + get_local_id(0), "
                                        "or simply x = get_global_id(0)"),
    "x_from_dimension_1": ([(X, "int x = get_global_id(1);")],
                           "x and y took the same global id", "x = get_global_id(0) (the column)"),
    # blind audit TEC-mirror_opencl-1 (was "1802 of 1961 pixels were never written (the first is
    # x = 0, y = 3) ... Hint: every pixel needs a work-item: ..."): the row from the group's index
    "y_from_the_group_id": ([(Y, "int y = get_group_id(1);")],
                            "only rows 0 to 2 were written (right): y took the work-group's "
                            "index, get_group_id(1)", "y = get_global_id(1) (the row)"),
    "x_from_the_group_id": ([(X, "int x = get_group_id(0);")],
                            "only columns 0 to 3 were written (right): x took the work-group's "
                            "index, get_group_id(0)", "x = get_global_id(0) (the column)"),
    # blind audit TFC-mirror_opencl-1 (was "Oclgrind reported 16 accesses outside a buffer, ...
    # by work-item (37, 0) at line 15 ... Hint: x = get_global_id(0) (the column), ... start the
    # kernel with if (x >= width || y >= height) return;", both right): the height for the width
    "mirrored_across_the_height": ([(READ, "in[y * width + (height - 1 - x)]")],
                                   "every pixel came from column height - 1 - x of its row: the "
                                   "columns were mirrored across the height = 37, not the width "
                                   "= 53", "the mirror of column x is width - 1 - x"),
    # blind audit TGC-mirror_opencl-1 (was "the work-item with x == width in the last row wrote
    # one pixel past the end of out: the guard on x is off by one (x > width where x >= width
    # belongs) ...", the guard being x >= width): the scatter's store one column too far right
    "scatter_one_column_right": ([("out[y * width + x] = " + READ,
                                   "out[y * width + (width - x)] = in[y * width + x]")],
                                 "the store lands one column too far right: out[y * width + "
                                 "(width - x)]", "width - 1 - x"),
    # blind audit THC-mirror_opencl-1 (was "Oclgrind reported 53 accesses outside a buffer, ... by
    # work-item (0, 0) at line 15 ... Hint: x = get_global_id(0) (the column), ... start the
    # kernel with if (x >= width || y >= height) return;", both right): the row's end as y * width
    "read_from_the_row_above": ([(READ, "in[y * width - 1 - x]")],
                                "every pixel below row 0 came from the row above: in[y * width "
                                "- 1 - x] takes the row's end as y * width, where row y ends at "
                                "(y + 1) * width - 1 (row 0 read before the start of in;",
                                "in[y * width + (width - 1 - x)]"),
    # blind audit TMC-mirror_opencl-1 (was "threads outside the image wrote past the end of out
    # ... Hint: no bounds guard, or only half of one: ...", a full guard against the wrong
    # bounds): the guard compares with the range's size
    "guard_on_the_global_size": ([("x >= width || y >= height",
                                   "x >= get_global_size(0) || y >= get_global_size(1)")],
                                 "the guard compares x and y with get_global_size(0) and "
                                 "get_global_size(1), the range's size (64 x 48), rounded up to "
                                 "whole work-groups: no work-item lies past it, so none returned",
                                 "compare with the image's size: if (x >= width || y >= height) "
                                 "return;"),
    # blind audit TPC-mirror_opencl-1 (was "1961 of 1961 pixels are wrong (the first is x = 0,
    # y = 0: got 218, expected 0.91443) ... Hint: ... out[y * width + x] = in[y * width + (width
    # - 1 - x)]", the read the learner wrote): in declared uchar, copied from the sepia kernel
    "input_declared_uchar": ([("__global const float *in", "__global const uchar *in")],
                             "in is declared __global const uchar *in, but the image holds "
                             "floats: in[i] read byte i of the image, not pixel i (x = 0, y = 0 "
                             "read in[52], got 218",
                             "declare in as floats: __global const float *in"),
    "input_declared_int": ([("__global const float *in", "__global const int *in")],
                           "in is declared __global const int *in, but the image holds floats",
                           "declare in as floats: __global const float *in"),
}
RIGHT = {
    "guard_around_the_store": [(GUARD + "\n", ""), ("    out[y * width + x] =",
                                                    "    if (x < width && y < height)\n"
                                                    "        out[y * width + x] =")],
    "cuda_style_ids": [(X, "int x = get_group_id(0) * get_local_size(0) + get_local_id(0);"),
                       (Y, "int y = get_group_id(1) * get_local_size(1) + get_local_id(1);"),
                       (READ, "in[(y + 1) * width - 1 - x]")],
    # the swap of column pairs done right: the left half and, on an odd width, the middle column
    "pairs_swapped_with_the_middle_column": [("x >= width || y >= height",
                                              "x >= (width + 1) / 2 || y >= height"),
                                             ("out[y * width + x] = " + READ + ";\n",
                                              "out[y * width + x] = " + READ + ";\n    out[y * "
                                              "width + (width - 1 - x)] = in[y * width + x];\n")],
    "scatter": [("out[y * width + x] = " + READ,
                 "out[y * width + (width - 1 - x)] = in[y * width + x]")],
}


SIMULATOR_ONLY = {"read_from_out": "each work-item reads the pixel of out that another writes: "
                  "a race, whose outcome a GPU does not define"}


@pytest.fixture(scope="module")
def ctx():
    return EXERCISE.context()


def build(ctx, source):
    return opencl.cl.Kernel(opencl.cl.Program(ctx, source).build(), "mirror")


def test_stub_as_shipped_is_not_yet(capsys):
    verdict = check_mirror_opencl()
    assert verdict.passed is False and "were never written" in verdict.problem, verdict
    assert "get_global_id(1)" in verdict.hint, verdict
    assert catalog.as_shipped(catalog.find("mirror_opencl")) == (
        opencl.cl_src() / "exercises" / "mirror.cl").read_text()


def test_solution_passes(capsys):
    assert check_mirror_opencl("solutions/mirror.cl").passed is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_right_but_unusual_kernels_pass(ctx, name, capsys):
    verdict = mirror_opencl.check_mirror_opencl_kernel(build(ctx, variant(SOLUTION, *RIGHT[name])))
    assert verdict.passed is True, verdict


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_verdict(ctx, name, capsys):
    replacements, problem, hint = WRONG[name]
    verdict = mirror_opencl.check_mirror_opencl_kernel(build(ctx, variant(SOLUTION, *replacements)))
    assert verdict.passed is False
    assert problem in verdict.problem and hint in verdict.hint, verdict
    assert "blockIdx" not in str(verdict) and "threadIdx." not in str(verdict), verdict


def test_the_grader_s_cases_pass_the_solution(capsys):
    verdict = check_mirror_opencl("solutions/mirror.cl", hidden=7)
    assert verdict.passed and "2 cases of the grader's own" in verdict.problem, verdict


# blind audit AK (was '... does not build. Hint: read the compiler's first error ...'): the
# output declared const, copied from the input's declaration, so the store into it cannot build
def test_the_output_declared_const_is_named(tmp_path, capsys):
    bad = tmp_path / "mirror.cl"
    bad.write_text(SOLUTION.replace("__global float *out", "__global const float *out"))
    assert check_mirror_opencl(str(bad)).passed is False
    out = capsys.readouterr().out
    assert "line 15 stores into out (out[y * width + x] = ...), but out is declared __global " \
           "const float *out: const is for a buffer the kernel only reads" in out, out
    assert "Hint: declare the output without const: __global float *out" in out, out
