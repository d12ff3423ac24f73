"""The matrix_index exercise (notebook 02): the solution passes, the stub and known-wrong kernels
fail, each with the hint that names its mistake. The wrong kernels are variants of the shipped
solution, all compiled as one module."""

import pytest

from kernel_sources import compile_variant_pairs, solution, stable_file, variant
from matrix_index_variants import FORMULA_SLIPS

from helpers.backend import BACKEND
from helpers.exercises.matrix_index import check_matrix_index, check_matrix_index_kernel

KERNEL = solution("matrix_index.cu")
GUARD = "    if (row >= rows || col >= cols)                   // the grid sticks out past both edges\n        return;\n\n"
INDEX_X = "blockIdx.x * blockDim.x + threadIdx.x"
INDEX_Y = "blockIdx.y * blockDim.y + threadIdx.y"
SWAP = (("int col = " + INDEX_X, "int col = " + INDEX_Y), ("int row = " + INDEX_Y, "int row = " + INDEX_X))
TRANSPOSE = ("int i = row * cols + col;", "int i = col * rows + row;")
WHOLE = ("    int i = row * cols + col;                         // row-major: a row is cols elements long\n"
         "    out[i] = a[i] * col_scale[col] + row_offset[row];")
LOOP = ("    for (int r = 0; r < rows; r++)\n        for (int c = 0; c < cols; c++)\n"
        "            out[r * cols + c] = a[r * cols + c] * col_scale[c] + row_offset[r];")

# name: (replacements in the solution, a piece of the expected verdict)
WRONG = {
    "no_bounds_guard": ([(GUARD, "")], "no bounds guard"),
    # blind audit AG (was 'threads outside the matrix wrote past the end of out ... Hint: no
    # bounds guard, or only half of one', the whole guard being there): the guard after the store
    "guard_after_the_store": ([(GUARD, ""), ("row_offset[row];", "row_offset[row];\n\n"
                                             "    if (row >= rows || col >= cols)\n        return;")],
                              "the bounds guard if (row >= rows || col >= cols) return; at line ",
                              "comes after the store out[i] = a[i] * col_scale[col] + "
                              "row_offset[row]; at line ", "Hint: test row and col before the "
                              "store"),
    # blind audit S2-3: a guard on one side alone (was 'the guard compares row with cols ...' for
    # col alone, 'no bounds guard ...' for row alone)
    "guard_on_rows_only": ([("row >= rows || col >= cols", "row >= rows")],
                           "the guard tests only row", "stop col at cols as well"),
    "guard_on_cols_only": ([("row >= rows || col >= cols", "col >= cols")],
                           "the guard tests only col", "stop row at rows as well"),
    "guard_off_by_one": ([("row >= rows || col >= cols", "row > rows || col > cols")], "the bounds guard is off by one"),
    # blind audit TWB-matrix_index-1: cols - 1 taken for the edge (was '37 of 3367 elements were
    # never written (the first is col = 90, row = 0) ... Hint: every element needs a thread: col =
    # ..., row = ...; and the guard col < cols && row < rows ...', the guard's - 1 not named)
    "guard_one_short_in_col": ([("col >= cols)", "col >= cols - 1)")],
                               "the last column, col = 90, was never written (37 elements)",
                               "the guard stops col at cols - 1 = 90 where it should stop at "
                               "cols = 91", "Hint: columns run 0 to cols - 1"),
    "guard_off_by_one_in_col": ([("row >= rows || col >= cols", "row >= rows || col > cols")],
                                "the guard on col is off by one"),
    "col_scale_by_row": ([("col_scale[col]", "col_scale[row]")], "a * col_scale[row] + row_offset[row]"),
    "row_offset_by_col": ([("row_offset[row]", "row_offset[col]")], "a * col_scale[col] + row_offset[col]"),
    # blind audit TPB-matrix_index-1: a read at the column (was '3276 of 3367 elements are
    # wrong ... which loaded a[0] ...' and the whole formula, a[col] not named)
    "a_read_at_col": ([("out[i] = a[i] * col_scale[col]", "out[i] = a[col] * col_scale[col]")],
                      "a was read at a[col], the column, not at the element's index i = row * cols + col: "
                      "out[1][0] took a[0], not a[91]", "a[i] * col_scale[col]"),
    "rows_a_block_wide": ([("int i = row * cols + col;", "int i = row * blockDim.x + col;")], "the index row * blockDim.x + col"),
    # blind audit TOB-matrix_index-1: the store alone transposed (was '... the output is
    # transposed ... Hint: col = blockIdx.x * ..., row = ...', lines that are right)
    "store_transposed": ([("    out[i] = a[i]", "    out[col * rows + row] = a[i]")],
                         "stored at out[c * 37 + r]", "out[row * cols + col]"),
    "row_steps_by_the_block_width": ([("blockIdx.y * blockDim.y", "blockIdx.y * blockDim.x")],
                                     "row reaches stepping by the block's width"),
    "guard_sides_swapped": ([("row >= rows || col >= cols", "row >= cols || col >= rows")],
                            "the guard compares col with rows and row with cols"),
    # blind audit F8: its writes past the end are those of a guard joined with && (the threads
    # past the last column wrap into the next row), but every element of the matrix is right
    "guard_row_with_cols": ([("row >= rows || col >= cols", "row >= cols || col >= cols")],
                            "compares row with cols"),
    # blind audit H6 (was 'threads outside the matrix wrote past the end ... no bounds guard,
    # or only half of one')
    "guard_inverted": ([("row >= rows || col >= cols", "row < rows && col < cols")],
                       "the bounds guard is inverted: the threads inside the matrix returned"),
    # blind audit AC (was 'threads outside the matrix wrote past the end of out ... Hint: no
    # bounds guard, or only half of one', though a whole guard was there): the guard compares with
    # the threads launched, which no thread reaches
    "guard_against_the_launch": ([("row >= rows || col >= cols",
                                   "col >= gridDim.x * blockDim.x || row >= gridDim.y * blockDim.y")],
                                 "compares with the threads launched, gridDim.x * blockDim.x = 96 "
                                 "columns and gridDim.y * blockDim.y = 48 rows", "so it stops nothing",
                                 "Hint: compare with the matrix's sides"),
    # blind audit AH (was 'threads outside the matrix wrote past the end of out ... Hint: no
    # bounds guard, or only half of one', though a whole guard was there): the guard compares the
    # thread's place in its block, which no thread fails
    "guard_of_the_thread_s_place": ([("row >= rows || col >= cols",
                                      "threadIdx.y >= rows || threadIdx.x >= cols")],
                                    "compares threadIdx.y and threadIdx.x, a thread's place in "
                                    "its block (0 to 15 and 0 to 15 here), with rows and cols",
                                    "Hint: compare the thread's row and col"),
    "guard_with_and": ([("row >= rows || col >= cols", "row >= rows && col >= cols")],
                       "the guard stops only the threads outside in both col and row (&&)"),
    # blind audit AJ (was 'the guard stops only the threads outside in both col and row (&&), or
    # it compares row with cols ...', neither in the kernel): the return dropped for a store
    # guarded by if (row < rows || col < cols), inside in one of the two enough to store
    "store_guard_with_or": ([(GUARD, ""), ("    out[i] = a[i]", "    if (row < rows || col < cols)\n"
                                              "        out[i] = a[i]")],
                            "the store's condition if (row < rows || col < cols) at line ",
                            "lets a thread store where only one of the two is inside the matrix",
                            "Hint: store only where both are inside: if (row < rows && col < cols)"),
    # blind audit AW (was 'the guard stops only the threads outside in both col and row (&&) ...
    # Hint: a thread outside in either must return (||)', of a guard the kernel has not): the
    # same || in the positive form, over a braced body whose first statement is not the store
    "store_guard_with_or_braced": ([(GUARD, "    if ((row <= rows - 1) || (col <= cols - 1)) {\n"),
                                    ("    out[i] = a[i] * col_scale[col] + row_offset[row];\n",
                                     "    out[i] = a[i] * col_scale[col] + row_offset[row];\n    }\n")],
                                   "the store's condition if ((row <= rows - 1) || (col <= cols - "
                                   "1)) at line ", "lets a thread store where only one of the two",
                                   "Hint: store only where both are inside: if (row < rows && col < cols)"),
    "stores_into_the_next": ([("    out[i] =", "    out[i + 1] =")],
                             "the store's index is one too far, the guard is right"),
    "guard_on_flat_index": ([(GUARD, ""), ("    out[i] =", "    if (i >= rows * cols) return;\n    out[i] =")],
                            "wrapped around into the next row"),
    "only_block_0": ([(INDEX_X, "threadIdx.x"), (INDEX_Y, "threadIdx.y")], "only block 0's elements were right"),
    # blind audit W3 (was 'only rows 0 to 15 were right: every block did the work of the first
    # one ... Hint: blockIdx.y is missing from row: ...', though row was right)
    "row_offset_at_thread_y": ([("row_offset[row]", "row_offset[threadIdx.y]")],
                               "a * col_scale[col] + row_offset[threadIdx.y]",
                               "Hint: row_offset has one entry per row of the matrix: index it "
                               "with row, row_offset[row]"),
    # blind audit THB-matrix_index-1 (was '3276 of 3367 elements are wrong ... Hint: out[row *
    # cols + col] = a[row * cols + col] * col_scale[col] + row_offset[row]', the whole formula)
    "row_offset_at_block_y": ([("row_offset[row]", "row_offset[blockIdx.y]")],
                              "a * col_scale[col] + row_offset[blockIdx.y]: blockIdx.y is the block's row number",
                              "Hint: row_offset has one entry per row of the matrix: index it with the element's row, row_offset[row]"),
    "blockIdx_x_missing": ([(INDEX_X, "threadIdx.x")], "Hint: blockIdx.x is missing from col"),
    "x_y_swapped": (list(SWAP), "Hint: x and y are swapped"),
    "transposed_index": ([TRANSPOSE], "the transposed index col * rows + row"),
    "x_y_swapped_and_transposed": ([*SWAP, TRANSPOSE], "Hint: x and y are swapped"),
    "vectors_mixed_up": ([("col_scale[col] + row_offset[row]", "col_scale[row] + row_offset[col]")],
                         "index it with col"),
    "nothing_written": ([("out[i] = a[i] * col_scale[col] + row_offset[row];", "(void)i;")], "nothing was written"),
    # the twin of TWB-matrix_index-1 on row (was '91 of 3367 elements were never written ...')
    "last_row_skipped": ([("row >= rows ||", "row >= rows - 1 ||")],
                         "the last row, row = 36, was never written (91 elements)",
                         "the guard stops row at rows - 1 = 36 where it should stop at rows = 37", "Hint: rows run 0 to rows - 1"),
    "last_row_and_column_skipped": ([("row >= rows || col >= cols",
                                      "row >= rows - 1 || col >= cols - 1")],
                                    "the last column, col = 90, and the last row, row = 36, were "
                                    "never written", "Hint: columns run 0 to cols - 1 and rows 0 "
                                    "to rows - 1"),
    **FORMULA_SLIPS,
    "wrong_formula": ([("+ row_offset[row]", "- row_offset[row]")], "elements are wrong"),
    # blind audit I20 (was '2989 of 3367 elements were never written ... Hint: every element
    # needs a thread: ...'): the block's index added without its size, the blocks overlap
    "blockDim_missing": ([(INDEX_X, "blockIdx.x + threadIdx.x"), (INDEX_Y, "blockIdx.y + threadIdx.y")],
                         "the blocks overlap: col = blockIdx.x + threadIdx.x and row = blockIdx.y + "
                         "threadIdx.y add the block's index without the block's size, so block "
                         "(1, 0) starts at column 1, not 16, and block (0, 1) starts at row 1, not "
                         "16: several threads wrote the same elements, and 2989 of 3367 were never "
                         "written"),
    "blockDim_x_missing": ([(INDEX_X, "blockIdx.x + threadIdx.x")], "Hint: multiply the block's index "
                           "by the block's size: col = blockIdx.x * blockDim.x + threadIdx.x"),
    "sixteen_for_blockDim_x": ([(INDEX_X, "blockIdx.x * 16 + threadIdx.x")], "takes 16 for blockDim.x"),
    "sixteen_for_blockDim_y": ([(INDEX_Y, "blockIdx.y * 16 + threadIdx.y")], "takes 16 for blockDim.y"),
    # blind audit QQ Q5: a row's length taken as cols - 1 (was '36 of 3367 elements were never
    # written' with the col/row/guard hint); the elements two threads wrote (a race's outcome on a
    # GPU) are left out of the model's comparison
    "row_times_cols_minus_1": ([("int i = row * cols + col;", "int i = row * (cols - 1) + col;")],
                               "the index row * (cols - 1) + col", "a row holds cols elements"),
    # blind audit QQ Q6: row and col from a 1-D global id, y ignored (was '3271 of 3367 elements
    # were never written')
    "row_and_col_from_a_1d_id": ([("int col = blockIdx.x * blockDim.x + threadIdx.x;  // x: which column\n"
                                   "    int row = blockIdx.y * blockDim.y + threadIdx.y;  // y: which row",
                                   "int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    int row = t / cols, col = t % cols;")],
                                 "an index from x alone", "the grid is 2-D"),
    "row_times_rows": ([("int i = row * cols + col;", "int i = row * rows + col;")], "the index row * rows + col"),
    "col_steps_by_gridDim": ([(INDEX_X, "blockIdx.x * gridDim.x + threadIdx.x")],
                             "blockIdx.x * gridDim.x + threadIdx.x gives"),
    # blind audit AK (was '2355 of 3367 elements were never written ... Hint: every element
    # needs a thread: ...'): gridDim where blockDim belongs, in col and in row
    "col_and_row_step_by_gridDim": ([(INDEX_X, "blockIdx.x * gridDim.x + threadIdx.x"),
                                     (INDEX_Y, "blockIdx.y * gridDim.y + threadIdx.y")],
                                    "start gridDim.x = 6 columns and gridDim.y = 3 rows apart, not "
                                    "a block's 16 and 16, so columns 46 to 90 and rows 22 to 36"),
    "col_scale_by_thread": ([("col_scale[col]", "col_scale[threadIdx.x]")],
                            "a * col_scale[threadIdx.x] + row_offset[row]"),
    # blind audit M3 (was '2030 of 3150 elements were never written ... Hint: every element
    # needs a thread: ...'): threadIdx.x and threadIdx.y swapped, blockIdx kept
    "thread_indices_swapped": ([(INDEX_X, "blockIdx.x * blockDim.x + threadIdx.y"),
                                (INDEX_Y, "blockIdx.y * blockDim.y + threadIdx.x")],
                               "threadIdx.x and threadIdx.y are swapped, which is right only when "
                               "blockDim.x == blockDim.y"),
    # blind audit TKB-matrix_index-1: col from threadIdx.y (was 'the result is what row =
    # blockIdx.y * blockDim.y + threadIdx.x gives: row takes threadIdx.x, as col does', the
    # opposite slip, whose output on square blocks is the same: the kernel's text tells them apart)
    "col_from_thread_y": ([("int col = " + INDEX_X, "int col = blockIdx.x * blockDim.x + threadIdx.y")],
                          "col = blockIdx.x * blockDim.x + threadIdx.y gives: col takes "
                          "threadIdx.y, as row does", "Hint: col comes from x: col = blockIdx.x "
                          "* blockDim.x + threadIdx.x"),
    # the same slip where the text does not say which line (col set from another name): both named
    "col_from_thread_y_through_a_name": ([("int col = " + INDEX_X, "int c = blockIdx.x * blockDim.x + "
                                           "threadIdx.y, col = c")],
                                         "row = blockIdx.y * blockDim.y + threadIdx.x, or col = "
                                         "blockIdx.x * blockDim.x + threadIdx.y (on square blocks "
                                         "the two give the same output)"),
    # blind audit TXB-matrix_index-1: col from blockIdx.y (was '2775 of 3367 elements were never
    # written (the first is col = 16, row = 0) ... Hint: every element needs a thread: ...')
    "col_from_block_y": ([("int col = " + INDEX_X, "int col = blockIdx.y * blockDim.x + threadIdx.x")],
                         "col = blockIdx.y * blockDim.x + threadIdx.x gives: col takes blockIdx.y, "
                         "as row does, so each block wrote the tile of its blockIdx.y's rows and "
                         "columns: only the diagonal tiles, in columns 0 to 47 (blockIdx.y 0 to 2), "
                         "were written",
                         "Hint: col comes from x, its block too: col = blockIdx.x * blockDim.x + "
                         "threadIdx.x"),
    "row_from_block_x": ([("int row = " + INDEX_Y, "int row = blockIdx.x * blockDim.y + threadIdx.y")],
                         "row = blockIdx.x * blockDim.y + threadIdx.y gives: row takes blockIdx.x, "
                         "as col does", "in rows 0 to 36 (blockIdx.x 0 to 2)", "Hint: row comes from y, its block too: col = blockIdx.x * "
                         "blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y"),
    "row_from_thread_x": ([("int row = " + INDEX_Y, "int row = blockIdx.y * blockDim.y + threadIdx.x")],
                          "row = blockIdx.y * blockDim.y + threadIdx.x gives: row takes "
                          "threadIdx.x, as col does"),
    # blind audit TFB-matrix_index-1: the flat index for the column factor (was '3276 of 3367
    # elements are wrong ...' with a trace and the whole formula); its reads past col_scale stay
    # inside the junk after it
    "col_scale_by_flat_index": ([("col_scale[col]", "col_scale[i]")],
                                "a * col_scale[i] + row_offset[row]: col_scale was indexed with "
                                "i, the element's place in the matrix, where its column col "
                                "belongs", "index it with col, col_scale[col]"),
    # blind audit TJB-matrix_index-1: the column from i modulo the wrong side (was '3327 of 3367
    # elements are wrong ...' with a trace and the whole formula as the hint)
    "col_scale_by_flat_modulo_rows": ([("a[i] * col_scale[col]", "a[i] * col_scale[i % rows]")],
                                      "a * col_scale[i % rows] + row_offset[row]: with i = row * "
                                      "cols + col, i % rows is not the column",
                                      "index it with col, col_scale[col]"),
    "row_offset_by_flat_over_rows": ([("row_offset[row]", "row_offset[i / rows]")],
                                     "a * col_scale[col] + row_offset[i / rows]"),
    # blind audit AL (was 'PASS: out = a * col_scale + ...'): a[i] loaded above the guard, so the
    # threads outside read past a's end (into its junk, allocated: on a GPU too)
    "a_loaded_above_the_guard": ([(GUARD + WHOLE, WHOLE.split("\n")[0] + "\n    float v = a[i];\n\n"
                                   + GUARD + "    out[i] = v * col_scale[col] + row_offset[row];")],
                                 "the kernel reads a[i] (line ", ") before its bounds guard, if (row >= rows || col >= cols) (line ",
                                 "past the end of a, as far as a[4372] (a holds 3367 elements", "Hint: the guard must come before any access to memory"),
    # every thread writes every element, the same values: right, but for the race check
    "every_thread_does_the_whole_loop": ([(WHOLE, LOOP)], "every thread did the whole loop"),
    # clamped onto the edge where the guard belongs: right values, but for the race check
    "clamped_with_min": ([(GUARD, "    row = min(row, rows - 1);\n    col = min(col, cols - 1);\n\n")],
                         "the second, at row 0, col 7, lies outside the 5 x 7 matrix, and row and "
                         "col clamped with min()"),
    # a near miss (helpers.exercises.near), whose rounding differs from NumPy's where a + b cancels
    "twice_the_value": ([("out[i] = a[i] * col_scale[col] + row_offset[row];",
                          "out[i] = (a[i] * col_scale[col] + row_offset[row]) * 2;")],
                        "every element of out is 2 times the right value"),
}
# Right, written otherwise: each must pass.
RIGHT = {
    "grid_stride_loops": [(GUARD + WHOLE,
                           "    for (; row < rows; row += blockDim.y * gridDim.y)\n"
                           "        for (int c = col; c < cols; c += blockDim.x * gridDim.x)\n"
                           "            out[row * cols + c] = a[row * cols + c] * col_scale[c] + row_offset[row];")],
    "guard_around_the_store": [(GUARD, ""), ("    out[i] = a[i]", "    if (row < rows && col < cols)\n        out[i] = a[i]")],
}
# Simulator only: a launch whose arguments do not fit the kernel raises TypeError there (PyCUDA
# cannot tell), and a write far outside every array stops the kernel with LaunchError there (on
# a GPU it would leave the CUDA context unusable for the tests after it).
SIMULATOR_ONLY = {
    "fewer_parameters": "__global__ void scale_shift(const float *a, float *out, int rows, int cols) {}",
    # on a GPU its reads past the end of a may break the context
    "index_in_bytes": variant(KERNEL, ("int i = row * cols + col;",
                                       "int i = (row * cols + col) * sizeof(float);")),
    "wild": variant(KERNEL, ("    out[i] =", "    ((volatile float *)4096)[row * 16 + col] = 1.0f;\n    out[i] =")),
}
# blind audit S3: the guard sets i only inside the matrix, the threads outside keep i = 0 and
# store into out[0] (on a GPU, whose store lands last there is a race's outcome; their reads
# past col_scale and row_offset stay inside the junk after them)
OUTSIDE_INTO_0 = variant(KERNEL, (GUARD + "    int i = row * cols + col;",
                                  "    int i = 0;\n    if (row < rows && col < cols)\n"
                                  "        i = row * cols + col;"))


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{name: variant(KERNEL, *w[0]) for name, w in WRONG.items()},
               **{name: variant(KERNEL, *r) for name, r in RIGHT.items()},
               "outside_threads_store_into_0": OUTSIDE_INTO_0}
    if BACKEND == "simulator":
        sources.update(SIMULATOR_ONLY)
    return compile_variant_pairs("scale_shift", sources)


def test_stub_fails(capsys):
    assert not check_matrix_index("exercises/matrix_index.cu")
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ")
    assert "every thread wrote to the same place" in out


def test_inline_right_kernel_passes(kernels, capsys):
    assert check_matrix_index_kernel(*kernels["solution"]).passed is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_kernel_written_otherwise_passes(name, kernels, capsys):
    assert check_matrix_index_kernel(*kernels[name]).passed is True, capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_kernel_fails_with_its_hint(name, kernels, capsys):
    assert check_matrix_index_kernel(*kernels[name]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    assert all(expected in out for expected in WRONG[name][1:]), out


def test_missing_kernel_is_reported_not_raised(capsys):
    other = stable_file("other.cu", KERNEL.replace("scale_shift(", "scale_and_shift("))
    assert not check_matrix_index(other)
    assert "has no kernel called scale_shift" in capsys.readouterr().out


def test_a_changed_parameter_type_is_named_on_both_backends(capsys):
    path = stable_file("matrix_index_int_out.cu", variant(KERNEL, ("float *out", "int *out")))
    verdict = check_matrix_index(path)
    assert not verdict, capsys.readouterr().out
    assert "parameter 4 of scale_shift, out, is declared 'int*'" in verdict.problem
    assert "the checker passes 'float*'" in verdict.problem


@pytest.mark.skipif(BACKEND != "simulator", reason="PyCUDA does not check arguments against an "
                    "unprepared kernel's parameters")
def test_changed_signature_is_reported_not_raised(kernels, capsys):
    assert not check_matrix_index_kernel(*kernels["fewer_parameters"])
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the kernel could not be launched"), out
    assert "keep the kernel's signature" in out


@pytest.mark.skipif(BACKEND != "simulator",
                    reason="an illegal address on a GPU breaks the context for the tests after it")
def test_wild_write_is_reported_not_raised(kernels, capsys):
    assert not check_matrix_index_kernel(*kernels["wild"])
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the kernel crashed"), out
    assert "bounds guard" in out


@pytest.mark.skipif(BACKEND != "simulator", reason="its reads run far past the end of a, which on "
                    "a GPU may leave the CUDA context unusable")
def test_an_index_in_bytes_is_named(kernels, capsys):
    verdict = check_matrix_index_kernel(*kernels["index_in_bytes"])
    assert not verdict and verdict.problem.startswith("the kernel crashed"), verdict
    assert verdict.hint.startswith("the index counts bytes, times sizeof(float)"), verdict


@pytest.mark.skipif(BACKEND != "simulator", reason="the threads outside the matrix race on out[0] "
                    "with thread (0, 0): which store lands last is not determined on a GPU")
def test_threads_outside_that_store_into_out_0_are_named(kernels, capsys):
    # blind audit S3 (was '1 of 3367 elements are wrong ... out[0][0] ... was stored 1242 times
    # ... Hint: out[row * cols + col] = a[row * cols + col] * col_scale[col] + row_offset[row]')
    verdict = check_matrix_index_kernel(*kernels["outside_threads_store_into_0"])
    assert not verdict and "threads outside the matrix still stored, into out[0]" in \
        verdict.problem, verdict
    assert "a[0] * col_scale[95] + row_offset[47], what the thread at row 47, col 95 computes" \
        in verdict.problem, verdict
    assert verdict.hint.endswith("leave first, if (row >= rows || col >= cols) return;"), verdict


def test_a_read_past_col_scale_by_a_thread_outside_is_named(kernels, capsys, monkeypatch):
    """Where the first cases pass (on a GPU, thread (0, 0)'s store may land last in out[0]), the
    race check's launch (on the simulator, whatever the backend), with no room after the inputs,
    stops at the read past col_scale."""
    from helpers.exercises import matrix_index

    monkeypatch.setattr(matrix_index.EXERCISE, "cases", matrix_index.CASES[-1:])
    verdict = check_matrix_index_kernel(*kernels["outside_threads_store_into_0"])
    assert not verdict and "a read of col_scale[7]" in verdict.problem, verdict
    assert verdict.hint.startswith("the thread at row 0, col 7 lies outside the 5 x 7 matrix, "
                                   "yet went on to read col_scale[7]"), verdict
