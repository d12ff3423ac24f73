"""The OpenCL sum per work-group (notebook 12): the solution and three unusual right kernels
pass, the stub and the usual mistakes of a local-memory reduction fail, each with the verdict
that names it. On Oclgrind (no GPU) a missing barrier is a data race, which its race check
reports; on NVIDIA's OpenCL the same kernel gives wrong sums, or right ones by luck, and then the
checker cannot tell (those tests skip there)."""

import time
from contextlib import nullcontext

import numpy as np
import pytest

from group_sum_opencl_variants import BARRIER, BARRIERS, FOLD, LOAD, READ_IN_THE_CODE, STEP
from kernel_sources import variant

from helpers.ch12 import opencl
from helpers.exercises import catalog, common
from helpers.exercises.common import c_int_value
from helpers.exercises.group_sum_opencl import (EXERCISE, check_group_sum_opencl,
                                                check_group_sum_opencl_kernel)
from helpers.sim.settings import settings

SOLUTION = (opencl.cl_src() / "solutions" / "group_sum.cl").read_text()

# name: (replacements in the solution, words of the verdict's problem and of its hint, and what
# only Oclgrind names: "race" (a GPU gives wrong sums, or by luck right ones), "outside" (a read
# past the tile, which may leave a GPU's context unusable for the rest of the run: not run there)
# or "barrier" (a barrier only some work-items reach: undefined on a GPU, which may hang: not run)
# or "unset" (tile entries never set, which Oclgrind's check of uninitialized values names; a GPU
# leaves leftovers there: a wrong last sum, named as such, or by luck a right one), or "endless"
# (a kernel that never ends, which Oclgrind's launch, run in a process of its own, is stopped at
# the time limit; a GPU cannot be stopped: not run there)
WRONG = {
    **BARRIERS,
    **READ_IN_THE_CODE,
    "no_load_guard": ([("i < n ? x[i] : 0.0f", "x[i]")],
                      "counts values past the end of x", "loads 0", ""),
    "every_work_item_adds": ([("        if (t < stride)\n            tile", "        tile")],
                             "accesses outside a buffer", "t < stride", "outside"),
    "stored_at_the_global_id": ([("partial[get_group_id(0)]", "partial[get_global_id(0)]")],
                                "stored its sum at partial[g * 128]", "get_group_id(0)", ""),
    # blind audit AK (was 'values were written past the end of partial (8 sums) ... Hint: ...
    # partial[get_group_id(0)] (the group's number, not a work-item's)'): the number of groups
    "stored_at_the_number_of_groups": ([("partial[get_group_id(0)]", "partial[get_num_groups(0)]")],
                                       ["every work-group stored its sum at partial[8] "
                                        "(partial[get_num_groups(0)]): get_num_groups(0) is how "
                                        "many work-groups there are (8), the same for every "
                                        "group, one past the last slot", "partial[0] to "
                                        "partial[7] were never written"],
                                       "partial[get_group_id(0)] = tile[0]", ""),
    "stored_at_the_local_id": ([("partial[get_group_id(0)]", "partial[t]")],
                               "sums were never written", "get_group_id(0)", ""),
    "fold_runs_upward": ([("stride = GROUP / 2; stride > 0; stride /= 2",
                           "stride = 1; stride < GROUP; stride *= 2")],
                         "the fold runs upward", "start at stride = GROUP / 2", ""),
    "tile_at_the_global_id": ([("t = get_local_id(0);", "t = get_global_id(0);")],
                              "only work-group 0 stored its sum", "t = get_local_id(0)", "outside"),
    # blind audit TRC-group_sum_opencl-1 (was "the fold runs upward (stride 1, 2, 4, ...)", and it
    # halved from GROUP / 2): the interleaved fold's test, t % (2 * stride) == 0, with the stride
    # halving, so only work-items 0, 64, ... add and tile[0] gathers tile[64], tile[32], ..., tile[1]
    "halving_fold_tests_t_mod_2_stride": ([("if (t < stride)", "if (t % (2 * stride) == 0)")],
                                          "the fold's test, t % (2 * stride) == 0, is the "
                                          "interleaved fold's, but the stride halves from "
                                          "GROUP / 2 = 64", "if (t < stride)", ""),
    # blind audit AH (was 'Oclgrind reported 23 accesses outside a buffer ... Hint: the tile has
    # GROUP elements: only work-items t < stride add tile[t + stride]', the halving fold's test):
    # the interleaved fold, stride doubling, tested with t % stride == 0, not t % (2 * stride)
    "doubling_fold_tests_t_mod_stride": ([(FOLD, "    for (int stride = 1; stride < GROUP; stride *= 2) {\n"
                                                 "        if (t % stride == 0)\n"
                                                 "            " + STEP + "\n    }\n")],
                                         "the fold's test, t % stride == 0, with stride doubling "
                                         "from 1, lets work-items t and t + stride both add",
                                         "in an interleaved fold only the work-items t % (2 * "
                                         "stride) == 0 add tile[t + stride]", "outside"),
    "fold_stops_at_stride_2": ([("stride > 0", "stride > 1")],
                               "only its group's even elements", "stride 1", ""),
    "nothing_stored": ([("        partial[get_group_id(0)] = tile[0];\n", "        ;\n")],
                       "nothing was written", "partial[get_group_id(0)]", ""),
    "fold_starts_at_group": ([("stride = GROUP / 2;", "stride = GROUP;")],
                             "its first stride is GROUP = 128, the tile's size",
                             "stride = GROUP / 2",
                             "outside"),
    # blind audit TPC-group_sum_opencl-1 (was "its first stride is the tile's size, GROUP", and
    # it was n / 2 = 500): the fold's first stride is taken from n, not from the tile's size
    "fold_starts_at_n_over_2": ([("stride = GROUP / 2;", "stride = n / 2;")],
                                "its first stride is n / 2 = 500, so tile[t + stride] lies past "
                                "the end of the 128-entry tile",
                                "the tile holds GROUP elements, whatever n is",
                                "outside"),
    "x_read_at_the_local_id": ([("int i = get_global_id(0), t", "int i = get_local_id(0), t")],
                               "every work-group summed the first 128 elements",
                               "x[get_global_id(0)]", ""),
    # NVIDIA's OpenCL orders local memory at any barrier: named from the code, on every platform
    "fences_of_global_memory": ([("barrier(CLK_LOCAL_MEM_FENCE)", "barrier(CLK_GLOBAL_MEM_FENCE)")],
                                "your barriers fence global memory only",
                                "use barrier(CLK_LOCAL_MEM_FENCE)", ""),
    # blind audit TC-group_sum_opencl-1 (was "a barrier that not every work-item of a work-group
    # reached, at line 30 ... Hint: ... (after the if, not inside it)", and the barrier was in no
    # if): the work-items past n returned before the barriers; blind audit AN (was "... returned
    # before the barrier at line 19", the unset tile entries not named, the barrier rule CUDA's)
    "returned_past_n": ([("tile[t] = i < n ? x[i] : 0.0f;",
                          "if (i >= n)\n        return;\n    tile[t] = x[i];")],
                        ["the 24 work-items of work-group 7 past n = 1000 returned without "
                         "setting their tile entries (104 to 127), and the fold added those "
                         "entries, which nobody wrote",
                         "OpenCL's barrier(), unlike CUDA's __syncthreads(), must be reached by "
                         "every work-item of the group, returned or not"],
                        "load 0 and go on, not return: tile[t] = i < n ? x[i] : 0.0f", "barrier"),
    # blind audit AN (was "... returned before the barrier at line 19 ... a barrier waits for
    # every work-item", right by CUDA's rule): load 0, then return; OpenCL's rule is the reason
    "returned_after_the_zero_load": ([(LOAD, LOAD.replace("\n", "\n    if (i >= n)\n        "
                                                                 "return;\n"))],
                                     ["the 24 work-items of work-group 7 past the end of x (i >= "
                                      "n = 1000) returned before the barrier at line 19, which "
                                      "only the other 104 reached",
                                      "OpenCL's barrier(), unlike CUDA's __syncthreads(), must "
                                      "be reached by every work-item of the group, returned or "
                                      "not"], "drop the return", "barrier"),
    # blind audit TC-group_sum_opencl-2 (was "1 of 8 sums are wrong (the first: partial[7] = 1051,
    # expected 51). Hint: ... put barrier(CLK_LOCAL_MEM_FENCE) after the load ...", a race it
    # did not have): the guard lets i == n through
    "guard_lets_n_through": ([("i < n ? x[i] : 0.0f", "i <= n ? x[i] : 0.0f")],
                             "the last work-group's sum, partial[7] = 1089.5, is 1000 more than its "
                             "elements' 89.5: 1000 is x[n]", "i < n, not i <= n", ""),
    # blind audit TDC-group_sum_opencl-1 (was "the last work-group's sum counts values past the
    # end of x: its work-items past n loaded what lies there ...", as if there were no guard):
    # the guard tests the local id
    "guard_on_the_local_id": ([("i < n ? x[i] : 0.0f", "t < n ? x[i] : 0.0f")],
                              "the load's guard compares t with n: t is the work-item's place in "
                              "its group (get_local_id(0), 0 to 127), always below n = 1000",
                              "compare the global id with n: tile[t] = i < n ? x[i] : 0.0f", ""),
    # blind audit TEC-group_sum_opencl-1 (was "PASS: every work-group's sum is right ..."): the
    # load guarded by an if with no else, so the last group's entries past n are never set;
    # __local memory is not zeroed (Oclgrind's check of uninitialized values names it; a GPU
    # gives a wrong last sum, or by luck a right one)
    "load_guard_without_else": ([("tile[t] = i < n ? x[i] : 0.0f;",
                                  "if (i < n)\n        tile[t] = x[i];")],
                                "entries 104 to 127 of work-group 7's tile (its work-items past "
                                "n = 1000) were never set",
                                "where i >= n, load 0: tile[t] = i < n ? x[i] : 0.0f", "unset"),
    # blind audit TXC-group_sum_opencl-1 (was "each sum is its group's first element: the fold
    # did nothing ... Hint: ... put barrier(CLK_LOCAL_MEM_FENCE) after the load and after each
    # step of the fold ...", barriers the kernel has): the tile declared without __local, one
    # private array a work-item, whose other entries no one wrote (named from the declaration:
    # on a GPU those entries hold whatever that work-item's private memory held, on both alike)
    "tile_without_local": ([("__local float tile[GROUP];", "float tile[GROUP];")],
                           "the tile is declared without __local (line 13: float tile[GROUP];)",
                           "__local float tile[GROUP];", ""),
    # blind audit TGC-group_sum_opencl-1 (was "PASS: every work-group's sum is right ...": x held
    # whole numbers, which an int tile sums exactly): the tile declared int drops each fraction
    "int_tile": ([("__local float tile[GROUP];", "__local int tile[GROUP];")],
                 "as if each x[i] had lost its fraction", "__local float tile[GROUP]", ""),
    # blind audit THC-group_sum_opencl-1 (was "Oclgrind reported 320 data races, ... at line 17
    # ... Hint: ... put barrier(CLK_LOCAL_MEM_FENCE) after the load and after each step of the
    # fold ...", a missing barrier's verdict): the barrier moved before the load
    "barrier_before_the_load": ([(LOAD, "barrier(CLK_LOCAL_MEM_FENCE);\n    tile[t] = i < n ? x[i] "
                                        ": 0.0f;")],
                                "the barrier at line 16 stands before the load (line 17), not "
                                "after it: no barrier separates the load from the fold's first "
                                "read (line 21)", "move the barrier after the load", "race"),
    # blind audit TTC-group_sum_opencl-1 (was "Oclgrind reported 1000 data races, ... Hint: ...
    # put barrier(CLK_LOCAL_MEM_FENCE) after the load and after each step ...", barriers the
    # kernel has): the fold's test guards the read's bound, not the lower half
    "fold_test_on_the_read_s_bound": ([("        if (t < stride)\n",
                                        "        if (t + stride < GROUP)\n")],
                                      "the fold's test, if (t + stride < GROUP), lets the "
                                      "work-items of the upper half (t >= stride) add too",
                                      "only the lower half adds: if (t < stride) tile[t] += "
                                      "tile[t + stride];", "race"),
    # blind audit TIC-group_sum_opencl-1 (was no verdict at all: the check hung for minutes):
    # stride >= 0 lets stride reach 0, and 0 / 2 stays 0, so the fold's loop never ends
    "fold_while_stride_at_least_0": ([("stride > 0; stride /= 2", "stride >= 0; stride /= 2")],
                                     "the fold's loop, for (int stride = GROUP / 2; stride >= 0; "
                                     "stride /= 2), never ends: stride >= 0 lets stride reach 0, "
                                     "and 0 / 2 stays 0", "loop while stride > 0", "endless"),
    # blind audit TJC-group_sum_opencl-1 (was "8 of 8 sums are wrong ... Hint: work-items share
    # the tile: put barrier(CLK_LOCAL_MEM_FENCE) after the load and after each step of the fold
    # ...", barriers that were there): the stride counted down by 2, not halved
    "stride_counts_down_by_2": ([("stride > 0; stride /= 2", "stride > 0; stride -= 2")],
                                "the fold's stride counts down by 2 (64, 62, 60, ..., 2), not "
                                "halved", "stride /= 2", ""),
    # blind audit TLC-group_sum_opencl-1 (was "only work-group 0 stored its sum ...: t, the place
    # in the tile, was taken from the global id. Hint: t = get_local_id(0) ...", which t was not):
    # the store's condition tests the global id
    "store_if_on_the_global_id": ([("if (t == 0)", "if (i == 0)")],
                                  "the store's condition, if (i == 0), tests the global id",
                                  "if (t == 0)", ""),
    # blind audit TMC-group_sum_opencl-1 (was "8 of 8 sums are wrong (the first: partial[0] =
    # 6.5, expected 26) ... Hint: work-items share the tile: put barrier(CLK_LOCAL_MEM_FENCE)
    # after the load ...", barriers that were there): the fold's step assigns where it adds
    "fold_assigns": ([("tile[t] += tile[t + stride];", "tile[t] = tile[t + stride];")],
                     "each sum is one element of its group, the last (partial[0] = 6.5 = "
                     "x[127], expected 26): the fold's step assigns",
                     "tile[t] += tile[t + stride];", ""),
    # blind audit TNC-group_sum_opencl-1 (was "only the last work-group's sum is wrong ...: its
    # tile entries 104 to 127 must hold 0 before the fold ...", entries that were set): the guard
    # i < n - 1 leaves x[n - 1] out
    "guard_stops_before_n_minus_1": ([("i < n ? x[i] : 0.0f", "i < n - 1 ? x[i] : 0.0f")],
                                     "the last work-group's sum, partial[7] = 82.25, is 7.25 less "
                                     "than its elements' 89.5: 7.25 is x[999] = x[n - 1]",
                                     "i < n, not i < n - 1", ""),
    # blind audit TOC-group_sum_opencl-1 (was "each sum is its group's first element: the fold
    # did nothing ... Hint: work-items share the tile: put barrier(CLK_LOCAL_MEM_FENCE) after the
    # load ...", barriers that were there): the fold's step adds the wrong way round
    "fold_adds_upward": ([("tile[t] += tile[t + stride];", "tile[t + stride] += tile[t];")],
                         "the fold's step, tile[t + stride] += tile[t], adds the wrong way "
                         "round", "tile[t] += tile[t + stride];", ""),
    # blind audit TSC-group_sum_opencl-1 (was "nothing was written: partial still holds the NaN
    # it was filled with", and a sum was written, added to it): the store adds (+=) where it stores
    "store_adds_to_partial": ([("partial[get_group_id(0)] = tile[0];",
                                "partial[get_group_id(0)] += tile[0];")],
                              "partial[get_group_id(0)] += tile[0] adds each group's sum to what "
                              "partial held before", "partial[get_group_id(0)] = tile[0];", ""),
    # blind audit TVC-group_sum_opencl-1 (was "7 of 8 sums are wrong (the first: partial[1] =
    # 12.75, expected -40) ... Hint: work-items share the tile: put barrier(CLK_LOCAL_MEM_FENCE)
    # after the load ...", barriers that were there): the global index is the group's number
    # times the number of groups (get_num_groups) where the group's size belongs
    "index_by_the_number_of_groups": ([("int i = get_global_id(0), t = get_local_id(0);",
                                        "int t = get_local_id(0);\n"
                                        "    int i = get_group_id(0) * get_num_groups(0) + t;")],
                                      "work-group g loaded x[g * 8 + t], g times the number of "
                                      "work-groups (8, get_num_groups(0)), not x[g * 128 + "
                                      "t]",
                                      "i = get_global_id(0)", ""),
    # blind audit TWC-group_sum_opencl-1 (was "only the last work-group's sum is wrong ...: its
    # tile entries 104 to 127 must hold 0 before the fold (__local memory is not zeroed: an entry
    # never set holds leftovers)", entries that were set): the index clamped to n - 1, as in the
    # blur, repeats x[n - 1] in the padding
    "load_clamped_to_n_minus_1": ([("tile[t] = i < n ? x[i] : 0.0f;",
                                    "tile[t] = x[i < n ? i : n - 1];")],
                                  "the last work-group's sum, partial[7] = 263.5, is 174 more "
                                  "than its elements' 89.5: its 24 work-items past n = 1000 "
                                  "loaded x[n - 1] = x[999] = 7.25 (24 * 7.25 = 174)",
                                  "tile[t] = i < n ? x[i] : 0.0f", ""),
    # blind audit TZC-group_sum_opencl-1 (was "PASS: every work-group's sum is right ...": x was
    # followed by finite junk, which 0 * x[i] hides): the guard written as a multiplication, so
    # the work-items past n still read past the end of x (the checker puts inf there from x[n +
    # 1] on: 0 * inf is NaN, on a GPU too)
    "load_guard_as_a_multiplication": ([("tile[t] = i < n ? x[i] : 0.0f;",
                                         "tile[t] = (i < n) * x[i];")],
                                       "the load, tile[t] = (i < n) * x[i];, still reads x[i] "
                                       "for the 24 work-items of work-group 7 past n = 1000",
                                       "tile[t] = i < n ? x[i] : 0.0f reads x[i] only where i < n",
                                       ""),
    # blind audit TAAC-group_sum_opencl-1 (was "7 of 8 sums are wrong (the first: partial[1] =
    # 26, expected -40). Hint: work-items share the tile: put barrier(CLK_LOCAL_MEM_FENCE) after
    # the load ...", barriers that were there): the load reads x at the local id t, not at i
    "load_reads_x_at_the_local_id": ([("i < n ? x[i] : 0.0f", "i < n ? x[t] : 0.0f")],
                                     "the load, tile[t] = i < n ? x[t] : 0.0f;, reads x[t], at "
                                     "the work-item's place in its group (t = get_local_id(0), "
                                     "0 to 127), not at its global id i: every work-group summed "
                                     "x[0], x[1], ... (partial[1] = 26 = partial[0], expected -40)",
                                     "tile[t] = i < n ? x[i] : 0.0f", ""),
    # blind audit AP (was "nothing was written: partial still holds the NaN it was filled with
    # ... Hint: ... work-item 0 stores tile[0] in partial[get_group_id(0)] ...", which the code
    # did): t declared __local, one variable the whole work-group shares, so every work-item
    # overwrote it and all read the last writer's t after the barrier
    "local_id_declared_local": ([("int i = get_global_id(0), t = get_local_id(0);",
                                  "__local int t;\n    int i = get_global_id(0);\n"
                                  "    t = get_local_id(0);")],
                                ["t is declared __local (line 14: __local int t;), one variable "
                                 "the whole work-group shares, not one a work-item",
                                 "every work-item wrote its get_local_id(0) into the same t"],
                                "declare t private, one a work-item: int t = get_local_id(0);",
                                ""),
}
RIGHT = {
    "interleaved_fold": [(FOLD, "    for (int s = 1; s < GROUP; s *= 2) {\n"
                                "        if (t % (2 * s) == 0)\n"
                                "            tile[t] += tile[t + s];\n"
                                "        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n")],
    "work_item_0_adds_the_tile": [(FOLD, ""), (
        "        partial[get_group_id(0)] = tile[0];",
        "    {\n        float s = 0.0f;\n        for (int k = 0; k < GROUP; k++)\n"
        "            s += tile[k];\n        partial[get_group_id(0)] = s;\n    }")],
    "guard_as_if_else": [("tile[t] = i < n ? x[i] : 0.0f;",
                          "if (i < n)\n        tile[t] = x[i];\n    else\n        tile[t] = 0;")],
}


@pytest.fixture(scope="module")
def ctx():
    return EXERCISE.context()


def build(ctx, source):
    return opencl.cl.Kernel(opencl.cl.Program(ctx, source).build(), "group_sum")


def on_oclgrind(ctx):
    return opencl.is_oclgrind(ctx.devices[0].platform)


def test_stub_as_shipped_is_not_yet(ctx, capsys):
    verdict = check_group_sum_opencl()
    assert verdict.passed is False, verdict
    if on_oclgrind(ctx):
        assert "data race" in verdict.problem and BARRIER in verdict.hint, verdict
    assert catalog.as_shipped(catalog.find("group_sum_opencl")) == (
        opencl.cl_src() / "exercises" / "group_sum.cl").read_text()


def test_solution_passes(capsys):
    assert check_group_sum_opencl("solutions/group_sum.cl").passed is True
    assert capsys.readouterr().out.startswith("PASS: ")


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_right_but_unusual_kernels_pass(ctx, name, capsys):
    verdict = check_group_sum_opencl_kernel(build(ctx, variant(SOLUTION, *RIGHT[name])))
    assert verdict.passed is True, verdict


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_mistake_gets_its_verdict(ctx, name, capsys):
    replacements, problem, hint, oclgrind_only = WRONG[name]
    if oclgrind_only in ("outside", "barrier", "endless") and not on_oclgrind(ctx):
        pytest.skip({"outside": "a read past the local tile may leave a GPU's context unusable",
                     "barrier": "a barrier some work-items miss may hang",
                     "endless": "a kernel that never ends cannot be stopped on a GPU"}[oclgrind_only])
    # an endless kernel runs until the time limit: a short one here
    with settings.changed(time_limit=1.0) if oclgrind_only == "endless" else nullcontext():
        verdict = check_group_sum_opencl_kernel(build(ctx, variant(SOLUTION, *replacements)))
    if oclgrind_only and not on_oclgrind(ctx):
        if verdict.passed:
            pytest.skip(f"right by luck on {ctx.devices[0].name}: only Oclgrind's checks can "
                        "tell")
        problem = ("only the last work-group's sum is wrong" if oclgrind_only == "unset" else
                   "sums are wrong")
    assert verdict.passed is False
    problems = [problem] if isinstance(problem, str) else problem   # a piece or pieces
    assert all(words in verdict.problem for words in problems) and hint in verdict.hint, verdict


def test_a_store_that_adds_is_named_whatever_nan_it_made(ctx, monkeypatch, capsys):
    """partial[...] += tile[0] on a GPU gives the GPU's own NaN, not the poison's bits, so the
    sums do not count as never written. Filled with a signalling NaN, which NaN + sum quiets
    (new bits, as on a GPU) on Oclgrind too, the store that adds is still the one named."""
    signalling = np.array(0x7F800001, np.uint32).view(np.float32)[()]
    monkeypatch.setattr(common, "poison_value", lambda dtype: signalling)
    adds = variant(SOLUTION, ("partial[get_group_id(0)] = tile[0];",
                              "partial[get_group_id(0)] += tile[0];"))
    verdict = check_group_sum_opencl_kernel(build(ctx, adds))
    assert verdict.passed is False
    assert "partial[get_group_id(0)] += tile[0] adds each group's sum" in verdict.problem, verdict
    assert "partial[get_group_id(0)] = tile[0];" in verdict.hint, verdict


def test_the_grader_s_cases_pass_the_solution(capsys):
    verdict = check_group_sum_opencl("solutions/group_sum.cl", hidden=7)
    assert verdict.passed and "2 cases of the grader's own" in verdict.problem, verdict


def test_an_endless_kernel_is_stopped_at_the_time_limit(ctx, capsys):
    """A kernel that never ends gets a verdict within the time limit (Oclgrind's launches run in
    a process of their own, killed at the limit), never a hung check."""
    if not on_oclgrind(ctx):
        pytest.skip("a kernel that never ends cannot be stopped on a GPU")
    endless = variant(SOLUTION, ("tile[t] += tile[t + stride];",
                                 "while (n > 0)\n                tile[t] += tile[t + stride];"))
    start = time.monotonic()
    with settings.changed(time_limit=0.5):
        verdict = check_group_sum_opencl_kernel(build(ctx, endless))
    assert time.monotonic() - start < 5, verdict
    assert verdict.passed is False
    assert "the kernel did not finish" in verdict.problem and "0.5 s" in verdict.problem, verdict
    assert "a loop whose condition never becomes false" in verdict.hint, verdict
    # and the next check runs as before
    assert check_group_sum_opencl_kernel(build(ctx, SOLUTION)).passed is True


def test_the_fold_s_first_stride_is_worked_out_from_the_code_never_run():
    """C's division toward 0; a call, an unknown name or a power gives no value (nothing of the
    learner's code is run by Python)."""
    names = {"GROUP": 128, "n": 1000}
    assert [c_int_value(e, names) for e in ("n / 2", "(GROUP) / 2", "-7 / 2", "GROUP - n")] == \
        [500, 64, -3, -872]
    assert {c_int_value(e, names) for e in ("9 ** 99", "__import__('os')", "n / 0", "m / 2",
                                             "GROUP >> 1")} == {None}
