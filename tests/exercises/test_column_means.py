"""The first bug hunt's checker (helpers.exercises.column_means) of notebook 09: the stub as
shipped is the planted bug, named with what the bounds checks said; the fix and right kernels
written another way pass; other mistakes get their own verdicts. All variants are compiled as one
module (and, on PyCUDA, once more on the simulator, which looks for the planted bug)."""

import types

import pytest

from kernel_sources import assert_refused_and_named, compile_variant_pairs, solution, variant

from helpers.exercises import catalog
from helpers.exercises import column_means as checker
from helpers.exercises import unset
from helpers.exercises.verdict import passed
from helpers.sim.compile.warned import CompilerWarning

KERNEL = solution("column_means.cu")
READ = "m[r * cols + col];       // FIX: a row is cols floats long, not rows"

# name: (replacements, {field: words that the verdict's field must contain})
WRONG = {
    "the_planted_bug": ([(READ, "m[r * rows + col];")],
                        {"problem": "the planted bug is still there: on a 100 x 37 matrix the "
                                    "bounds checks stop the kernel: block (", "hint": "m[r * cols + col]"}),
    # blind audit TNA-column_means-1: float sum; never set to 0 (was 'every element of means is
    # the right value minus 1.695e+36: a constant is added ... Hint: compare the formula term by
    # term ...'): the simulator's compiler records sum read before anything is stored in it
    "sum_never_set_to_0": ([("float sum = 0.0f;", "float sum;")],
                           {"problem": "is read before anything is stored in it: it starts from "
                                       "whatever its register held",
                            "hint": "give sum a value where it is declared, before the loop adds "
                                    "to it: float sum = 0.0f;"}),
    # blind audit TRA-column_means-1: the running sum one __shared__ float for the block (was 'a
    # data race on sum[0] ... Hint: two threads store into the same element of the shared array
    # ...: check its indices and the loops' steps', away from the fix, a per-thread local)
    "sum_shared_by_the_block": ([("float sum = 0.0f;", "__shared__ float sum;\n    sum = 0.0f;")],
                                {"problem": "the running sum is one __shared__ float for the "
                                            "whole block: every thread of block 0",
                                 "hint": "keep each thread's sum in a local variable of its "
                                         "own: float sum = 0.0f; with no __shared__"}),
    # blind audit TEA-column_means-1: the row's length taken as the launch's width, gridDim.x *
    # blockDim.x (was 'the kernel failed on the simulator: ... a read of m[3712] ... Hint: column
    # 0's elements are m[r * cols + 0] ...: check the kernel's indices against those')
    "rows_the_launch_s_width_long": ([(READ, "m[r * (gridDim.x * blockDim.x) + col];")],
                                     {"problem": "m[3712] = m[29 * 128 + 0]: each step down a "
                                                 "column moved gridDim.x * blockDim.x = 128 floats, "
                                                 "the launch's width",
                                      "hint": "a row of m is cols floats long, whatever the "
                                              "launch: m[r * cols + col]"}),
    # blind audit TFA-column_means-1: gridDim for blockDim in the column (was 'a data race on
    # means[4] ... Hint: two threads store into the same element ... check its indices')
    "grid_dim_for_block_dim": ([("int col = blockIdx.x * blockDim.x + threadIdx.x;",
                                 "int col = blockIdx.x * gridDim.x + threadIdx.x;")],
                               {"problem": "col = blockIdx.x * gridDim.x + threadIdx.x starts "
                                           "block b's columns at b * 4 (gridDim.x",
                                "hint": "col = blockIdx.x * blockDim.x + threadIdx.x"}),
    # blind audit TPA-column_means-1: the column from the y thread index, 0 in a 1-D block
    # (was 'a data race on means[0] ... Hint: two threads store into the same element ... check
    # its indices', silent on threadIdx.y)
    "col_from_threadIdx_y": ([("int col = blockIdx.x * blockDim.x + threadIdx.x;",
                               "int col = blockIdx.x * blockDim.x + threadIdx.y;")],
                             {"problem": "every thread of a block took the block's first column, "
                                         "blockIdx.x * blockDim.x, as if its thread index were 0 "
                                         "(threadIdx.y is 0 in a block of (32, 1, 1)), so only "
                                         "columns 0, 32, 64, ... got a mean",
                              "hint": "col = blockIdx.x * blockDim.x + threadIdx.x"}),
    # blind audit TIA-column_means-1: the block left out of the column (was 'a data race on
    # means[0] ... Hint: two threads store into the same element ... check its indices')
    "column_without_the_block": ([("int col = blockIdx.x * blockDim.x + threadIdx.x;",
                                   "int col = threadIdx.x;")],
                                 {"problem": "means[0] was stored by thread (0, 0, 0) of block (0, "
                                             "0, 0) and by thread (0, 0, 0) of block (1, 0, 0): "
                                             "col = threadIdx.x leaves the block out, so every "
                                             "block computed block 0's columns 0 to 31",
                                  "hint": "col = blockIdx.x * blockDim.x + threadIdx.x"}),
    # blind audit AK (was 'a data race on means[1] ... Hint: two threads store into the same
    # element ... check its indices and the loops' steps'): blockDim.y for blockDim.x in the column
    "block_dim_y_for_block_dim_x": ([("int col = blockIdx.x * blockDim.x + threadIdx.x;",
                                      "int col = blockIdx.x * blockDim.y + threadIdx.x;")],
                                    {"problem": "means[1] was stored by thread (1, 0, 0) of block "
                                                "(0, 0, 0) and by thread (0, 0, 0) of block (1, 0, "
                                                "0): col = blockIdx.x * 1 + threadIdx.x, so the "
                                                "blocks start one column apart",
                                     "hint": "a block holds blockDim.x columns: col = blockIdx.x "
                                             "* blockDim.x + threadIdx.x"}),
    # blind audit TXA-column_means-1: the matrix's width for the block's in the column (was '5
    # of the 37 means were never written (the first is means[32]) ... Hint: every column needs
    # a thread: col = blockIdx.x * blockDim.x + threadIdx.x', silent on cols)
    "cols_for_block_dim": ([("int col = blockIdx.x * blockDim.x + threadIdx.x;",
                             "int col = blockIdx.x * cols + threadIdx.x;")],
                           {"problem": "means[0] to means[31] are right and means[32] to "
                                       "means[99] were never written: col = blockIdx.x * cols + "
                                       "threadIdx.x starts block b's columns at b * 100 (cols, "
                                       "the matrix's width)",
                            "hint": "(cols is the matrix's width, not the block's): col = "
                                    "blockIdx.x * blockDim.x + threadIdx.x"}),
    # blind audit G15, G16 (were 'means[0] = ..., NumPy's is ...' and the printf hint)
    "rows_a_block_long": ([(READ, "m[r * blockDim.x + col];")],
                          {"problem": "stepped down its column by blockDim.x = 32 floats",
                           "hint": "m[r * cols + col]"}),
    # blind audit R2-8: the row's length taken as the last column's index (was 'means[0] =
    # -0.0221556, NumPy's is -0.0600658 ... Hint: printf, from thread 0, the index ...')
    "rows_cols_minus_1_long": ([(READ, "m[r * (cols - 1) + col];")],
                               {"problem": "stepped down its column by 36 floats (cols - 1, the "
                                           "last column's index), m[r * 36 + col]",
                                "hint": "a step down a column moves one whole row, cols floats"}),
    "flat_loop_from_0": ([("    for (int r = 0; r < rows; r++)\n        sum += " + READ,
                           "    for (int k = 0; k < rows * cols; k += cols)\n        sum += m[k];")],
                         {"problem": "every mean is column 0's", "hint": "start at the thread's column"}),
    "a_stretch_not_a_column": ([(READ, "m[col * rows + r];")],
                               {"problem": "m[col * rows + r]", "hint": "m[r * cols + col]"}),
    "divides_by_cols": ([("sum / rows", "sum / cols")],
                        {"problem": "divided by cols", "hint": "divide by rows"}),
    # blind audit P8: NumPy's ddof habit (was 'every element of means is 1.01 times the right
    # value: a factor is off ... Hint: ... an int divided by an int drops the fraction ...')
    "divides_by_rows_minus_1": ([("sum / rows", "sum / (rows - 1)")],
                                {"problem": "divided by rows - 1 = 99", "hint": "divide by rows"}),
    "last_row_left_out": ([("r < rows;", "r < rows - 1;")],
                          {"problem": "last row of m is left out", "hint": "r < rows"}),
    # blind audit AUB (was 'the last row of m is left out of every mean ... Hint: ... loop while
    # r < rows', which would read past m): the row loop unrolled by 4 with no tail
    "unrolled_by_4_no_tail": ([("    for (int r = 0; r < rows; r++)\n        sum += " + READ,
                                "    for (int r = 0; r + 3 < rows; r += 4)\n        sum += m[r * cols + col] + "
                                "m[(r + 1) * cols + col] + m[(r + 2) * cols + col] + m[(r + 3) * cols + col];")],
                              {"problem": "the row loop takes 4 rows a trip (r + 3 < rows, r += 4) and "
                                          "has no tail: the last rows % 4 rows",
                               "hint": "for (; r < rows; r++) sum += m[r * cols + col]"}),
    # blind audit TGA-column_means-1: the loop from r = 1, row 0 left out (was 'means[0] =
    # -0.0641967, NumPy's is -0.0600658 ... Hint: printf, from thread 0, the index ...')
    "first_row_left_out": ([("int r = 0;", "int r = 1;")],
                           {"problem": "the first row of m, row 0, is left out of every mean",
                            "hint": "for (int r = 0; r < rows; r++)"}),
    # blind audit TKA-column_means-1: the row loop from r = col, the grid-stride habit (was
    # 'means[1] = 0.0384504, NumPy's is 0.0472279 ... Hint: printf, from thread 0, the index ...')
    "rows_from_the_column": ([("int r = 0;", "int r = col;")],
                             {"problem": "means[1] = 0.0384504 is the sum of rows 1 to 99 of "
                                         "column 1 divided by rows = 100: each column's mean "
                                         "left out rows 0 to col - 1: the row loop started at "
                                         "r = col",
                              "hint": "for (int r = 0; r < rows; r++)"}),
    # blind audit TQA-column_means-1: the row loop stepped by the block's size, the grid-stride
    # habit (was 'means[0] = 0.0122438, NumPy's is -0.0600658 ... Hint: printf, from thread 0, ...')
    "rows_stepped_by_the_block": ([("r < rows; r++)", "r < rows; r += blockDim.x)")],
                                  {"problem": "each mean is the sum of rows 0, 32, 64, 96 of its "
                                              "column alone, divided by rows = 100: the row loop "
                                              "stepped by blockDim.x = 32, r += blockDim.x",
                                   "hint": "for (int r = 0; r < rows; r++)"}),
    "rows_stepped_by_the_grid": ([("r < rows; r++)", "r < rows; r += gridDim.x * blockDim.x)")],
                                 {"problem": "each mean is the sum of rows 0, 64 of its column "
                                             "alone, divided by rows = 100: the row loop stepped "
                                             "by gridDim.x * blockDim.x = 64",
                                  "hint": "for (int r = 0; r < rows; r++)"}),
    "one_row_too_many": ([("r < rows;", "r <= rows;")],
                         {"problem": "past the end of its 3700", "hint": "r < rows"}),
    # blind audit AH (was '... a read of m[3700] ... Hint: ... loop while r < rows', a loop it has
    # not): a flat index down the column, i <= rows * cols, column 0 reaching m[rows * cols]
    "flat_index_one_too_far": ([("for (int r = 0; r < rows; r++)", "for (int i = col; i <= rows * cols; i += cols)"),
                                (READ, "m[i];")],
                               {"problem": "only column 0's thread read past m's end",
                                "hint": "i < rows * cols"}),
    # blind audit Z15: rows counted from 1 (was 'the kernel failed ... a read of m[3700] ...
    # Hint: the rows are 0 to rows - 1: loop while r < rows'); Z16: the block's column (was
    # 'means[1] = -0.0600658, NumPy's is 0.0472279 ... Hint: printf, from thread 0, ...')
    "rows_one_late": ([(READ, "m[(r + 1) * cols + col];")],
                      {"problem": "a read of m[3700] at ", "hint": "each thread read its column one "
                                                                 "row late, rows 1 to rows"}),
    "column_of_the_block": ([(READ, "m[r * cols + blockIdx.x];")],
                            {"problem": "each thread averaged its block's column",
                             "hint": "col = blockIdx.x * blockDim.x + threadIdx.x"}),
    "reads_the_next_column": ([(READ, "m[r * cols + col + 1];")],
                              {"problem": "a read of m[3700] at ",
                               "hint": "column 99's elements are m[r * cols + 99]"}),
    "guard_against_rows": ([("col >= cols", "col >= rows")],
                           {"problem": "past the end", "hint": "if (col >= cols) return;"}),
    # blind audit TDA-column_means-1: the guard one column short (was '1 of the 37 means were
    # never written (the first is means[36]) ... Hint: every column needs a thread: col = ...')
    "guard_cols_minus_1": ([("col >= cols", "col >= cols - 1")],
                           {"problem": "means[36], the last column's, was never written: the "
                                       "guard col >= cols - 1",
                            "hint": "if (col >= cols) return;"}),
    # audit E: NumPy's tuple index (C's comma operator: m[col]); divided by rows twice
    "tuple_index": ([(READ, "m[r, col];")], {"problem": "each mean is its column's first element, "
                                                        "m[col]", "hint": "m[r * cols + col]"}),
    "divided_twice": ([(READ, "m[r * cols + col] / rows;")],
                      {"problem": "divided by rows twice", "hint": "divide once"}),
    "not_divided": ([("sum / rows", "sum")], {"problem": "not divided by rows", "hint": "sum / rows"}),
    # blind audit AP (was '... the sum is kept in an int ..., or divided by an integer division
    # (1 / rows is 0)' for both): a launch of elements with whole parts tells the two apart
    "int_sum": ([("float sum = 0.0f;", "int sum = 0;")],
                {"problem": "every mean is 0: the sum is kept in an int, which cuts every float "
                            "added to a whole number", "hint": "float sum = 0.0f"}),
    "int_sum_float_division": ([("float sum = 0.0f;", "int sum = 0;"), ("sum / rows", "(float)sum / rows")],
                               {"problem": "every mean is 0: the sum is kept in an int", "hint": "float sum = 0.0f"}),
    "integer_reciprocal": ([("sum / rows", "sum * (1 / rows)")],
                           {"problem": "the sum was divided with an integer division, 1 / rows is 0", "hint": "means[col] = sum / rows"}),
    "replaced_not_added": ([("sum += ", "sum = ")], {"problem": "replaced the sum", "hint": "sum +="}),
    "guard_off_by_one": ([("col >= cols", "col > cols")],
                         {"problem": "past the end", "hint": "if (col >= cols) return;"}),
    "no_guard": ([("    if (col >= cols)\n        return;\n", "")],
                 {"problem": "past the end", "hint": "if (col >= cols) return;"}),
    # audit B: each named as itself, not as means never written or by a printf hint
    "accumulates_in_means": ([("    float sum = 0.0f;\n", ""),
                              ("        sum += " + READ, "        means[col] += m[r * cols + col];"),
                              ("means[col] = sum / rows;", "means[col] /= rows;")],
                             {"problem": "added to before anything set it",
                              "hint": "float sum = 0.0f"}),
    "row_and_column_swapped": ([(READ, "m[col * cols + r];")],
                               {"problem": "m[col * cols + r]", "hint": "m[r * cols + col]"}),
    "loop_bound_cols": ([("r < rows;", "r < cols;")],
                        {"problem": "r < cols", "hint": "r < rows"}),
    # blind audit AE (was 'means[0] = 0.0556943, NumPy's is -0.0600658 ... Hint: printf, from
    # thread 0, the index ...', the index right): rows swapped for cols in the loop and the divisor
    "loop_and_divisor_cols": ([("r < rows;", "r < cols;"), ("sum / rows", "sum / cols")],
                              {"problem": "each mean is the mean of its column's first cols = 37 "
                                          "elements, not of its rows = 100",
                               "hint": "for (int r = 0; r < rows; r++), then sum / rows"}),
    # audit 3: the block left out of the column; the index in bytes; col outside the brackets
    "column_threadidx_x": ([(READ, "m[r * cols + threadIdx.x];")],
                           {"problem": "averaged block 0's columns",
                            "hint": "col = blockIdx.x * blockDim.x + threadIdx.x"}),
    "index_in_bytes": ([(READ, "m[(r * cols + col) * sizeof(float)];")],
                       {"problem": "a read of m[4000]",
                        "hint": "an index counts floats, not bytes"}),
    "col_outside_the_brackets": ([(READ, "m[r * cols] + col;")],
                                 {"problem": "column 0's mean plus col",
                                  "hint": "col goes inside the brackets: m[r * cols + col]"}),
    # audit B (2026-12): the planted bug over a flat index that stops at m's end (was 'means[0] =
    # -0.0370334, NumPy's is -0.0600658' with the printf hint)
    "flat_index_stepping_by_rows": ([("    for (int r = 0; r < rows; r++)\n        sum += " + READ,
                                      "    for (int i = col; i < rows * cols; i += rows)\n"
                                      "        sum += m[i];")],
                                    {"problem": "stepped through m by rows floats",
                                     "hint": "step by cols, i += cols"}),
    # blind audit TA-column_means-1: the overrun silenced by running r < cols, m[r * rows + col],
    # the same reads (was '... stepped through m by rows floats, ... to m's end ... Hint: ...
    # from i = col step by cols, i += cols, while i < rows * cols', silent on r < cols)
    "loop_over_cols_stepping_by_rows": ([("    for (int r = 0; r < rows; r++)\n        sum += " + READ,
                                          "    for (int r = 0; r < cols; r++)\n"
                                          "        sum += m[r * rows + col];")],
                                        {"problem": "reading cols = 37 elements, rows = 100 "
                                                    "floats apart, m[col], m[col + 100], ..., "
                                                    "m[col + 3600]",
                                         "hint": "for (int r = 0; r < rows; r++) sum += "
                                                 "m[r * cols + col]"}),
    # blind audit J8: the overrun stopped with min(rows, cols) (was 'means[0] = 0.0556943, NumPy's
    # is -0.10009' with the printf hint)
    "stride_min_of_rows_and_cols": ([(READ, "m[r * min(rows, cols) + col];")],
                                    {"problem": "on this wide matrix each thread stepped down its "
                                                "column by rows = 37 floats, m[r * 37 + col], though "
                                                "the tall matrix before it came out right",
                                     "hint": "step by cols on every shape: element (r, col) is "
                                             "m[r * cols + col]"}),
    # blind audit L8: the planted bug's reads past m's end clamped into m (was 'means[0] =
    # -0.275476, NumPy's is -0.0600658' with the printf hint)
    "index_clamped_into_m": ([(READ, "m[min(r * rows + col, rows * cols - 1)];")],
                             {"problem": "each thread still stepped down its column by rows "
                                         "floats, m[r * rows + col], and the reads past m's end "
                                         "were clamped onto its last element",
                              "hint": "element (r, col) is m[r * cols + col], always inside m, "
                                      "with no clamp"}),
    # blind audit TMA-column_means-1: the mean stored at the thread's place in its block (was
    # 'the simulator's race check found a data race ... Hint: two threads store into the same
    # element of the array: ... check its indices', silent on which index)
    "stored_at_threadIdx_x": ([("means[col] = sum / rows;", "means[threadIdx.x] = sum / rows;")],
                              {"problem": "means[threadIdx.x] = sum / rows stores by the thread's "
                                          "place in its block",
                               "hint": "store the mean at the column's own place: means[col] = "
                                       "sum / rows"}),
}
# Right, but not the solution's way: each must pass
RIGHT = {
    "a_pointer_that_steps_a_row": [(
        "    for (int r = 0; r < rows; r++)\n        sum += " + READ + "\n",
        "    const float *p = m + col;\n    for (int r = 0; r < rows; r++, p += cols)\n"
        "        sum += *p;\n")],
    "a_sum_in_double": [("float sum = 0.0f;", "double sum = 0.0;"),
                        ("means[col] = sum / rows;", "means[col] = (float)(sum / rows);")],
    "unrolled_by_4_with_a_tail": [("    for (int r = 0; r < rows; r++)\n        sum += " + READ,
                                   "    int r = 0;\n    for (; r + 3 < rows; r += 4)\n        sum += "
                                   "m[r * cols + col] + m[(r + 1) * cols + col] + m[(r + 2) * cols + col]"
                                   " + m[(r + 3) * cols + col];\n    for (; r < rows; r++)\n"
                                   "        sum += m[r * cols + col];")],
    "the_mean_kept_as_it_goes": [("sum += " + READ, "sum += (m[r * cols + col] - sum) / (r + 1);"),
                                 ("means[col] = sum / rows;", "means[col] = sum;")],
}


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{n: variant(KERNEL, *r) for n, (r, _) in WRONG.items()},
               **{n: variant(KERNEL, *r) for n, r in RIGHT.items()}}
    return compile_variant_pairs("column_means", sources)


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_column_means_kernel(*kernels["solution"])
    assert verdict.passed is True
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_another_way_passes(kernels, name):
    assert checker.check_column_means_kernel(*kernels[name]).passed is True


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_mistake_gets_its_own_verdict(kernels, name):
    verdict = checker.check_column_means_kernel(*kernels[name])
    assert verdict.passed is False
    for field, words in WRONG[name][1].items():
        assert words in getattr(verdict, field), verdict


@pytest.mark.parametrize("name, other", [("int_sum", "integer division"),
                                         ("int_sum_float_division", "integer division"),
                                         ("integer_reciprocal", "kept in an int")])
def test_every_mean_0_names_the_one_cause_it_has(kernels, name, other):
    verdict = checker.check_column_means_kernel(*kernels[name])
    assert other not in verdict.problem, verdict


def test_a_sum_read_unset_whose_means_came_out_right_by_luck_is_not_yet():
    """On a GPU the sum's register may hold 0 (the H100 did in a test run): every mean right, the
    compiler's record of the read still turns the PASS into a NOT YET in the exercise's words."""
    read = CompilerWarning("uninitialised", "sum", "column_means.cu", 51, 49, None, False, ("k",))
    verdict = unset.checked(types.SimpleNamespace(compiler_warnings=(read,)), passed("all right"), checker.EXERCISE.unset)
    assert verdict.passed is False
    for field, words in WRONG["sum_never_set_to_0"][1].items():
        assert words in getattr(verdict, field), verdict
    assert "came out right by luck" in verdict.problem


def test_the_stub_as_shipped_is_the_planted_bug():
    verdict = checker.check_column_means()
    assert verdict.passed is False
    assert verdict.problem.startswith("the planted bug is still there")
    shipped = catalog.as_shipped(catalog.find("column_means"))  # the planted bug, and no other
    planted = variant(KERNEL, *WRONG["the_planted_bug"][0])
    assert shipped[shipped.index("__global__"):] == planted[planted.index("__global__"):]


# Mistakes the compiler refuses, each named from the simulator's record of g++'s first error
# (on a GPU, the same file compiled on the simulator): blind audit E22, NumPy's 2-D index on the
# flat pointer (was 'does not compile. Hint: read the compiler's first error ...')
DOES_NOT_COMPILE = {
    "two_indices_on_a_flat_pointer": ([(READ, "m[r][col];")],
                                      {"problem": "line 15 indexes m twice, m[r][col], but m is a "
                                                  "const float *, a flat array",
                                       "hint": "element (r, col) is m[r * cols + col]"}),
}


@pytest.mark.parametrize("name", sorted(DOES_NOT_COMPILE))
def test_a_mistake_the_compiler_refuses_is_named(name, capsys):
    verdict = assert_refused_and_named(checker.check_column_means, "column_means", name, *DOES_NOT_COMPILE[name])
    assert verdict.error, verdict  # the compiler's own first line, for a grader's feedback
