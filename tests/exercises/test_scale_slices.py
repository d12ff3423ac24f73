"""The scale_slices checker (helpers.exercises.scale_slices), notebook 02's 3-D exercise: the
solution passes, the stub as shipped does not, each usual mistake gets its own verdict, and kernels
right in another way pass. The solution and every variant are compiled as one module (and, on
PyCUDA, once more on the simulator, whose race check the checker uses)."""

import numpy as np
import pytest

from kernel_sources import compile_variant_pairs, simulator_only, solution, variant

from helpers.exercises import scale_slices as checker

KERNEL = solution("scale_slices.cu")
Z = "int z = blockIdx.z * blockDim.z + threadIdx.z;"
GUARD = "if (x >= nx || y >= ny || z >= nz)"
INDEX = "int i = (z * ny + y) * nx + x;"

# name: (the replacements in the solution, how the verdict's problem starts, and any more words
# that the verdict must contain)
WRONG = {
    "z_always_0": ([(Z, "int z = 0;")], "only slice z = 0 was written"),
    # blind audit TMB-scale_slices-1: z = blockIdx.z, one slice a block (was '182 of 455
    # elements were never written ... Hint: element (x, y, z) is at (z * ny + y) * nx + x', the
    # flat index, which is right)
    "z_of_the_block_alone": ([(Z, "int z = blockIdx.z;")],
                             "only slices z = 0, 1, 2 were written: z = blockIdx.z"),
    "z_of_the_thread": ([(Z, "int z = threadIdx.z;")], "only the first block's slices (z < 2)"),
    "z_steps_by_block_x": ([(Z, "int z = blockIdx.z * blockDim.x + threadIdx.z;")],
                           "only the first block's slices (z < 2) were written: z does not step"),
    # blind audit W9 (was '195 of 455 elements were never written' and the index hint)
    "y_steps_by_block_x": ([("int y = blockIdx.y * blockDim.y", "int y = blockIdx.y * blockDim.x")],
                           "only the rows y = 0, 1, 2, 3 of each slice were written: y steps by "
                           "blockDim.x = 8 from one block to the next, where blockDim.y = 4"),
    # blind audit TJB-scale_slices-1: y stepping by blockDim.z, which reaches every row but the
    # last (was 'the last row, y = ny - 1 = 6, was never written, and every other was: the guard
    # returned the threads with y = ny - 1 too (y >= ny - 1)', the guard being right)
    "y_steps_by_block_z": ([("int y = blockIdx.y * blockDim.y", "int y = blockIdx.y * blockDim.z")],
                           "only the rows y = 0, 1, 2, 3, 4, 5 of each slice were written (a volume "
                           "of nx, ny = 11, 11 in blocks of (2, 4, 8) got only the rows y = 0, 1, "
                           "2, 3, 8, 9, 10): y steps by blockDim.z = 2 from one block to the next, "
                           "where blockDim.y = 4"),
    "z_steps_by_block_y": ([(Z, "int z = blockIdx.z * blockDim.y + threadIdx.z;")],
                           "only slices z = 0, 1, 4 were written: z steps by blockDim.y"),
    # blind audit F25 (was '91 of 455 elements were never written' and the index hint)
    "z_steps_by_grid_z": ([(Z, "int z = blockIdx.z * gridDim.z + threadIdx.z;")],
                          "only slices z = 0, 1, 3, 4 were written: z steps by gridDim.z"),
    # blind audit S9 (was '891 of 2079 elements were never written' and the index hint)
    "z_block_and_thread_swapped": ([(Z, "int z = threadIdx.z * blockDim.z + blockIdx.z;")],
                                   "only slices z = 0, 1, 4, 5 were written: z = threadIdx.z * "
                                   "blockDim.z + blockIdx.z swaps the roles of block and thread"),
    # blind audit AG (was '182 of 455 elements were never written ... Hint: element (x, y, z)
    # is at (z * ny + y) * nx + x', the index being right): z's + written as *
    "z_times_the_thread": ([(Z, "int z = blockIdx.z * blockDim.z * threadIdx.z;")],
                           "only slices z = 0, 2, 4 were written: z = blockIdx.z * blockDim.z * "
                           "threadIdx.z multiplies", "Hint: z = blockIdx.z * blockDim.z + "
                           "threadIdx.z"),
    "z_from_thread_x": ([(Z, "int z = blockIdx.z * blockDim.z + threadIdx.x;")],
                        "z takes threadIdx.x where threadIdx.z belongs"),
    "z_from_thread_y": ([(Z, "int z = blockIdx.z * blockDim.z + threadIdx.y;")],
                        "z takes threadIdx.y where threadIdx.z belongs"),
    # blind audit TIB-scale_slices-1: y's line with threadIdx.z (was '325 of 455 elements were
    # never written ... Hint: element (x, y, z) is at (z * ny + y) * nx + x: ...', the index)
    "y_from_thread_z": ([("int y = blockIdx.y * blockDim.y + threadIdx.y;",
                          "int y = blockIdx.y * blockDim.y + threadIdx.z;")],
                        "y takes threadIdx.z where threadIdx.y belongs: threadIdx.z runs from 0 to "
                        "1 (blockDim.z = 2), so only the rows y = 0, 1, 4, 5 of each slice were "
                        "written, of the blocks' 4 rows each"),
    # blind audit TWB-scale_slices-1: y's line with blockIdx.x (was '220 of 455 elements were
    # never written ... Hint: element (x, y, z) is at (z * ny + y) * nx + x: ...', the index)
    "y_from_block_x": ([("int y = blockIdx.y * blockDim.y + threadIdx.y;",
                         "int y = blockIdx.x * blockDim.y + threadIdx.y;")],
                       "y takes blockIdx.x where blockIdx.y belongs: the blocks with blockIdx.x = "
                       "0 took the rows y = 0 to 3 alone and those with blockIdx.x = 1 the rows "
                       "y = 4 to 6, whatever their blockIdx.y, so 220 of 455 elements were never "
                       "written", "Hint: y = blockIdx.y * blockDim.y + threadIdx.y: each "
                       "coordinate's formula takes its own letter throughout"),
    # x from blockIdx.y writes the same elements as y from blockIdx.x: the trace tells them apart
    "x_from_block_y": ([("int x = blockIdx.x * blockDim.x + threadIdx.x;",
                         "int x = blockIdx.y * blockDim.x + threadIdx.x;")],
                       "x takes blockIdx.y where blockIdx.x belongs: the blocks with blockIdx.y = "
                       "0 took the elements x = 0 to 7 alone and those with blockIdx.y = 1 the "
                       "elements x = 8 to 12"),
    # blind audit Q18 (was '91 of 455 elements were never written' and the index hint)
    "z_guard_one_short": ([(GUARD, "if (x >= nx || y >= ny || z >= nz - 1)")],
                          "the last slice, z = nz - 1 = 4, was never written, and every other "
                          "was: the guard returned the threads with z = nz - 1 too"),
    # blind audit TDB-scale_slices-1 (was 'the last slice, z = nz - 1 = 4, was never written, and
    # every other was: the guard returned the threads with z = nz - 1 too', the guard being right)
    "z_without_the_block_depth": ([(Z, "int z = blockIdx.z + threadIdx.z;")],
                                  "only slices z = 0 to 3 were written: z = blockIdx.z + "
                                  "threadIdx.z steps by 1 from one block to the next"),
    # blind audit TGB-scale_slices-1 (was 'only slice z = 0 was written: every thread's z is 0'
    # and z's formula for a hint, z being right)
    "index_without_z": ([(INDEX, "int i = y * nx + x;")],
                        "only slice z = 0 was written, though z is right: the thread at x, y, z = "
                        "0, 0, 1 read scale[1] and stored into out[0], element (0, 0) of slice 0: "
                        "the index y * nx + x leaves out z's term"),
    # blind audit AC (was '364 of 455 elements are wrong ...: out[91] ... loaded vol[0] and
    # scale[1] ... Hint: each slice z is multiplied by its own factor', the factor right): vol
    # read at the stub's y * nx + x, the slice's offset added to the store's index alone
    "vol_read_in_slice_0": ([("out[i] = vol[i] * scale[z];",
                              "out[i] = vol[y * nx + x] * scale[z];")],
                            "out[91], element (0, 0, 1), holds vol[0] * scale[1]: vol[0] is "
                            "element (0, 0) of slice 0",
                            "vol is read at y * nx + x, without the slice's offset z * ny * nx",
                            "Hint: read vol at the same index as out"),
    # blind audit TLB-scale_slices-1: the row's factor, scale[y] (was '390 of 455 elements are
    # wrong ...: out[13] ... loaded vol[13] and scale[1]', scale's index not named); and the hint
    "scale_at_y": ([("vol[i] * scale[z]", "vol[i] * scale[y]")],
                   "scale was read at y, where z belongs",
                   "read scale at the element's own index, scale[z]: out[i] = vol[i] * scale[z]"),
    "x_guard_one_short": ([(GUARD, "if (x >= nx - 1 || y >= ny || z >= nz)")],
                          "the last column, x = nx - 1 = 12, was never written"),
    "no_guard_on_z": ([(GUARD, "if (x >= nx || y >= ny)")], "out was written past its end"),
    # blind audit AK (was 'out was written past its end (out[455]): threads outside the volume
    # wrote ... Hint: the grid sticks out in z too', z being the one side tested): the guard
    # if (z >= nz) return; in place of x's and y's tests, which are gone
    "guard_on_z_alone": ([(GUARD, "if (z >= nz)")],
                         "out was written past its end (out[455]): the guard tests z alone, not x "
                         "or y: the threads with x >= nx (x = 13 to 15) or y >= ny (y = 7) went "
                         "on and stored", "Hint: keep the tests of x and y beside z's"),
    # blind audit TB-scale_slices-1 (was 'out was written past its end (out[455]): threads outside
    # the volume wrote ... Hint: the grid sticks out in z too: ...', as if the z guard were missing)
    "z_guard_lets_nz_through": ([(GUARD, "if (x >= nx || y >= ny || z > nz)")],
                                "the threads with z = nz = 5 wrote slice 5, just past the end of "
                                "out (out[455] to out[545]), and no thread past it did: z's guard "
                                "lets z = nz through (z > nz)"),
    # blind audit AH (was 'out was written past its end (out[455]): threads outside the volume
    # wrote ... Hint: the grid sticks out in z too: ...'): threadIdx.z >= nz for z's guard
    "z_guard_on_thread_z": ([(GUARD, "if (x >= nx || y >= ny || threadIdx.z >= nz)")],
                            "out was written past its end (out[455]): z's guard compares "
                            "threadIdx.z"),
    # blind audit U9 (was 'out was written past its end (out[455]): threads outside the volume
    # wrote ... Hint: the grid sticks out in z too: ...', as if the z guard were missing)
    "z_compared_with_nx": ([(GUARD, "if (x >= nx || y >= ny || z >= nx)")],
                           "z's guard compared z with nx (z >= nx), where nz, the number of slices, "
                           "belongs: threads with z from nz = 5 on wrote whole slices past the end"),
    # blind audit TFB-scale_slices-1 (was '210 of 455 elements were never written' and the
    # index hint, the index being right)
    "x_compared_with_ny": ([(GUARD, "if (x >= ny || y >= ny || z >= nz)")],
                           "x's guard compared x with ny (x >= ny), where nx, the length of a "
                           "row, belongs: the elements x = 7 to 12 of every row were never "
                           "written"),
    "y_compared_with_nz": ([(GUARD, "if (x >= nx || y >= nz || z >= nz)")],
                           "y's guard compared y with nz (y >= nz), where ny, the number of rows "
                           "in a slice, belongs: the rows y = 5 to 6 of every slice"),
    "z_compared_with_ny": ([(GUARD, "if (x >= nx || y >= ny || z >= ny)")],
                           "z's guard compared z with ny (z >= ny)"),
    # blind audit AL (was 'out was written past its end (out[455]): threads outside the volume
    # wrote ... Hint: the grid sticks out in z too', as if z were not tested): z's test compares
    # z with the threads launched in z, which no thread reaches, not with nz
    "z_compared_with_the_launch": ([(GUARD, "if (x >= nx || y >= ny || z >= gridDim.z * "
                                           "blockDim.z)")],
                                   "out was written past its end (out[455]): z's test in the "
                                   "guard, z >= gridDim.z * blockDim.z at line ",
                                   "compares z with the threads launched in z, 6, not with the "
                                   "volume's depth, nz = 5", "Hint: compare z with the volume's "
                                   "depth, nz"),
    # blind audit H18 (was 'out was written past its end (out[455]), and 52 of its elements
    # were never written: the index sends them past the end')
    "slice_height_from_the_launch": ([(INDEX, "int i = (z * (gridDim.y * blockDim.y) + y) * nx + x;")],
                                     "slice z starts at z * (gridDim.y * blockDim.y) rows"),
    "row_length_from_the_launch": ([(INDEX, "int i = (z * ny + y) * (gridDim.x * blockDim.x) + x;")],
                                   "rows are gridDim.x * blockDim.x = 16 elements apart"),
    "slice_of_rows": ([(INDEX, "int i = z * ny + y * nx + x;")], "slice z starts at z * ny"),
    "rows_ny_apart": ([(INDEX, "int i = (z * nx + y) * ny + x;")],
                      "rows are ny elements apart in the index"),
    "rows_ny_apart_written_out": ([(INDEX, "int i = z * nx * ny + y * ny + x;")],
                                  "rows are ny elements apart in the index"),
    # blind audit THB-scale_slices-1 (was '204 of 455 elements were never written' and the
    # index hint, the row length ny not named)
    "rows_ny_apart_in_the_row_term": ([(INDEX, "int i = (z * ny + y) * ny + x;")],
                                      "rows are ny elements apart in the index, (z * ny + y) * ny "
                                      "+ x, but a row holds nx elements"),
    # blind audit AB (was 'out was written past its end (out[507]), and 182 of its elements
    # were never written: the index sends them past the end'): nx where ny belongs
    "slices_of_nx_rows": ([(INDEX, "int i = (z * nx + y) * nx + x;")],
                          "slice z starts at z * nx * nx = z * 169 elements, not z * ny * nx = "
                          "z * 91: the index (z * nx + y) * nx + x takes nx, the length of a row, "
                          "where ny, the number of rows in a slice, belongs"),
    "slices_of_nz_rows": ([(INDEX, "int i = (z * nz + y) * nx + x;")],
                          "slice z starts at z * nz * nx"),
    # blind audit O9 (was '224 of 455 elements were never written' and the index hint)
    "slice_of_ny_nz": ([(INDEX, "int i = z * ny * nz + y * nx + x;")],
                       "slice z starts at z * ny * nz, but a slice holds ny rows of nx elements, "
                       "ny * nx"),
    # blind audit M9 (was '272 of 455 elements were never written' and the index hint)
    "rows_nz_apart": ([(INDEX, "int i = (z * ny + y) * nz + x;")],
                      "rows are nz elements apart in the index, (z * ny + y) * nz + x, but a row "
                      "holds nx elements"),
    # blind audit Q17 (was 'out was written past its end (out[468]), and 182 of its elements were
    # never written: the index sends them past the end' and the index hint)
    "parentheses_misplaced": ([(INDEX, "int i = z * (ny + y) * nx + x;")],
                              "the index's parentheses are misplaced, z * (ny + y) * nx + x"),
    "scaled_by_the_block": ([("scale[z]", "scale[blockIdx.z]")],
                            "each slice was scaled by scale[blockIdx.z]"),
    "scaled_by_the_thread": ([("scale[z]", "scale[threadIdx.z]")],
                             "each slice was scaled by scale[threadIdx.z]"),
    "x_slowest": ([(INDEX, "int i = (x * ny + y) * nz + z;")], "the index makes x the slowest"),
    "stores_into_the_next": ([("out[i] =", "out[i + 1] =")], "out[0] was never written and the"
                             " element just past the end of out was: the store's index is one"),
    "x_and_y_swapped_in_the_index": ([(INDEX, "int i = (z * ny + x) * nx + y;")],
                                     "out was written past its end (out[455]), and"),
    "guard_joined_with_and": ([(GUARD, "if (x >= nx && y >= ny && z >= nz)")],
                              "out was written past its end (out[455]): the guard returned only "
                              "the threads outside the volume in x and in y and in z at once"),
    # blind audit AJ (was 'out was written past its end (out[455]): threads outside the volume
    # wrote ... Hint: the grid sticks out in z too', z being tested): the stub's 'and z' joined
    # with &&, which binds before ||, so a thread with z >= nz and y < ny is not stopped
    "guard_and_binds_first": ([(GUARD, "if (x >= nx || y >= ny && z >= nz)")],
                              "out was written past its end (out[455]): the guard if (x >= nx || "
                              "y >= ny && z >= nz) return; joins its tests with || and &&, and && "
                              "binds before ||", "a thread with z >= nz but y < ny is not stopped",
                              "join all three tests with ||, if (x >= nx || y >= ny || z >= nz)"),
    # blind audit AJ (was "y's guard compared y with nx (y >= nx)", which the learner never
    # wrote): x >= nx && y >= ny joined with && before || z >= nz, so a thread with x >= nx but
    # y < ny (or y >= ny but x < nx) is not stopped and writes into the next row or slice
    "guard_and_binds_first_in_x_and_y": ([(GUARD, "if (x >= nx && y >= ny || z >= nz)")],
                                         "out was written past its end (out[455]): the guard if "
                                         "(x >= nx && y >= ny || z >= nz) return; joins its tests "
                                         "with || and &&, and && binds before ||",
                                         "a thread with y >= ny but x < nx is not stopped, nor "
                                         "one with x >= nx but y < ny",
                                         "join all three tests with ||"),
    "z_line_copied_from_y": ([(Z, "int z = blockIdx.y * blockDim.y + threadIdx.y;")],
                             "only the elements whose z equals their y were written"),
    "guard_sides_swapped": ([(GUARD, "if (x >= ny || y >= nx || z >= nz)")],
                            "out was written past its end (out[455]): threads outside the volume"),
    "y_and_z_roles_swapped": ([(INDEX, "int i = (y * nz + z) * nx + x;")],
                              "the index swaps the roles of y and z"),
    # threads past nx or ny wrap into the next row or slice (from a blind audit)
    "guard_on_the_flat_index": ([(GUARD + "\n        return;\n" + "    " + INDEX + "\n",
                                  INDEX + "\n    if (i >= nx * ny * nz)\n        return;\n")],
                                "threads outside the volume wrote into it"),
    # blind audit AI (was 'PASS: every slice scaled by its own factor ...'): the factor's load
    # hoisted above the guard, so the threads with z >= nz read past scale's end
    "scale_read_above_the_guard": ([(Z, Z + "\n    float s = scale[z];"),
                                    ("vol[i] * scale[z]", "vol[i] * s")],
                                   "scale[z] is read at line ", "before the bounds guard if (x >= "
                                   "nx || y >= ny || z >= nz) at line ", "the threads with z >= nz",
                                   "read past the end of scale, as far as scale[5]",
                                   "Hint: the guard comes before any access to memory"),
    "not_scaled": ([("vol[i] * scale[z]", "vol[i]")], "out equals vol"),
    "scaled_by_row": ([("scale[z]", "scale[y % nz]")], "364 of 455 elements are wrong"),
    # every thread does the whole loop: right values, but for the race check
    "every_thread_loops": ([(INDEX + "\n    out[i] = vol[i] * scale[z];",
                             "for (int k = 0; k < nz; k++)\n"
                             "        for (int j = 0; j < ny * nx; j++)\n"
                             "            out[k * ny * nx + j] = vol[k * ny * nx + j] * scale[k];")],
                           "two threads wrote out[0]"),
    # a near miss (helpers.exercises.near)
    "scaled_twice": ([("out[i] = vol[i] * scale[z];", "out[i] = 2 * vol[i] * scale[z];")],
                     "every element of out is 2 times the right value"),
}
SIMULATOR_ONLY = {"guard_on_the_flat_index": "on a GPU the threads that wrap into the next row "
                                             "race with the ones whose elements they write",
                  "guard_joined_with_and": "on a GPU a thread past a row's or a slice's end "
                                           "races with the one whose element it writes",
                  "guard_and_binds_first": "on a GPU a thread past a slice's last row races "
                                           "with the one whose element it writes",
                  "guard_and_binds_first_in_x_and_y": "on a GPU a thread past a row's or "
                                                      "a slice's end races with the one whose "
                                                      "element it writes",
                  "guard_on_z_alone": "on a GPU the threads past a row's or a slice's end "
                                      "race with the ones whose elements they write",
                  "scale_read_above_the_guard": "on a GPU the threads with z >= nz read past "
                                                "scale's end, which is undefined",
                  "index_without_z": "on a GPU the threads of every z race to store into slice "
                                     "0, and which slice's factor lands last depends on timing"}
RIGHT = {
    "flat_index_written_out": [(INDEX, "int i = z * nx * ny + y * nx + x;")],
    "guard_around_the_store": [(GUARD + "\n        return;\n", ""),
                               ("    out[i] = ", "    if (x < nx && y < ny && z < nz)\n"
                                               "        out[i] = ")],
}


@pytest.fixture(scope="module")
def kernels():
    return compile_variant_pairs("scale_slices", {
        "solution": KERNEL, **{name: variant(KERNEL, *r) for name, (r, *_) in WRONG.items()},
        **{name: variant(KERNEL, *r) for name, r in RIGHT.items()}})


def test_the_solution_passes(kernels, capsys):
    verdict = checker.check_scale_slices_kernel(*kernels["solution"])
    assert verdict.passed is True and capsys.readouterr().out.startswith("PASS:")


def test_the_stub_as_shipped_is_not_yet_right(capsys):
    verdict = checker.check_scale_slices()
    assert verdict.passed is False
    assert verdict.problem.startswith("only slice z = 0 was written"), verdict
    assert "blockIdx.z * blockDim.z + threadIdx.z" in verdict.hint


@pytest.mark.parametrize("name", simulator_only(WRONG, SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(kernels, name, capsys):
    verdict = checker.check_scale_slices_kernel(*kernels[name])
    assert verdict.passed is False
    assert verdict.problem.startswith(WRONG[name][1]), verdict
    assert all(words in str(verdict) for words in WRONG[name][2:]), verdict
    assert capsys.readouterr().out.count("NOT YET:") == 1


@pytest.mark.parametrize("name", RIGHT)
def test_a_kernel_right_in_another_way_passes(kernels, name):
    assert checker.check_scale_slices_kernel(*kernels[name]).passed is True


def test_the_grader_s_volumes_stick_out_of_the_grid_in_every_dimension():
    for nx, ny, nz, block in checker.EXERCISE.draw(np.random.default_rng(11)):
        assert all(side % b for side, b in zip((nx, ny, nz), block))


def test_a_flat_guard_is_named_from_the_race_check_too(kernels):
    """On a GPU the wrapped threads may lose every race, leaving the cases right: the launch on
    the simulator, race-checked, names the guard from the racing thread outside the volume."""
    from helpers.exercises.kernel import Kernels

    simulated = kernels["guard_on_the_flat_index"][1]
    case = checker.CASES[-1]
    problem, hint = next(iter(checker.EXERCISE.observed(Kernels(simulated, simulated), case)))
    assert problem.startswith("threads outside the volume wrote into it: out[5] was written by "
                              "the thread at x, y, z = 5, 0, 0 (x >= nx)"), problem
    assert "x >= nx || y >= ny || z >= nz" in hint
