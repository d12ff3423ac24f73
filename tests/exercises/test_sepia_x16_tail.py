"""The sepia_x16 checker on a tail loop at the wrong pixels, which only the simulator shows (out of
test_sepia_x16.py, for its size): a tail that races with the groups, which the race check finds
(a GPU passes them: the same values stored twice), and a tail counted from its own start, whose
stores the trace shows over group 0's (a GPU sees only the unwritten tail: test_sepia_x16.py's
tail_from_its_own_start holds its hint on both backends)."""

import re

import pytest

from kernel_sources import compile_variants, solution, variant

from helpers.backend import BACKEND
from helpers.exercises.sepia_x16 import check_sepia_x16_kernel

pytestmark = pytest.mark.skipif(BACKEND != "simulator",
                                reason="the simulator's race check and trace name these")

KERNEL = solution("sepia_x16.cu")
# Races the race check finds (a GPU passes them): the tail run by thread 0 too, after its group
# (a race the checker has no model of, said as the race check found it)...
RACY = {"tail_by_thread_0_too": [("} else if (t == groups) {", "}\n    if (t == groups || t == 0) {")]}
# ... the tail run by more threads than t == groups (blind audit AP, else if (t >= groups): was
# 'a data race on out[5856] ... Hint: ... check its indices and the loops' steps'; and a bare else)
TAIL_BY_MANY = {"tail_by_every_spare_thread": [("} else if (t == groups) {", "} else if (t >= groups) {")],
                "every_spare_thread_does_the_tail": [("} else if (t == groups) {", "} else {")]}
MANY_NAMED = ["NOT YET: threads 122 and 123 both ran the tail loop: each wrote pixel 1952 "
              "(out[5856]), the tail's first (the tail is pixels 16 * groups = 1952 to 1960, n = "
              "1961, groups = 122): the spare threads after t == groups took the tail's branch "
              "too", "Hint: one thread converts the tail: else if (t == groups), and the threads "
              "after it do nothing"]
# ... or the tail starting at 15 * groups or groups (blind audit TNB-sepia_x16-1: was 'a race ...')
TAIL_RACES = {"tail_from_15_groups": ([("= 16 * groups;", "= 15 * groups;")], "at i = 15 * groups"),
              "tail_from_groups": ([("= 16 * groups;", "= groups;")],
                                   "pixel 122 (out[366]), which thread 7 stores too, in its group "
                                   "of pixels 112 to 127: the tail loop starts at i = groups = 122, "
                                   "where the tail's first pixel is 16 * groups = 1952 (n = 1961, "
                                   "groups = 122). Hint: the tail is the pixels after the last "
                                   "whole group: start its loop at 16 * groups, as the stub's")}
# blind audit TWB-sepia_x16-1: sepia_pixel(rgb, out, i - 16 * groups), the tail counted from its
# own start (was 'the last 9 pixels ... were never written ... Hint: the thread t == n / 16 must
# convert pixels 16 * (n / 16) to n - 1, one by one', silent on the index and on pixels 0 to 8)
OWN_START = [("out, i);", "out, i - 16 * groups);")]
HELPERS = re.compile(r"\b(byte_of|set_byte|sepia_channel|sepia_pixel)\b")


@pytest.fixture(scope="module")
def kernels():
    sources = {"tail_from_its_own_start": variant(KERNEL, *OWN_START),
               **{name: variant(KERNEL, *r) for name, r in (RACY | TAIL_BY_MANY).items()},
               **{name: variant(KERNEL, *r) for name, (r, _) in TAIL_RACES.items()}}
    return compile_variants("sepia_x16", {name: HELPERS.sub(rf"\1__{name}", text)
                                          for name, text in sources.items()})


@pytest.mark.parametrize("name", sorted(RACY))
def test_a_race_in_the_rating_launch_is_a_verdict_not_a_crash(name, kernels, capsys):
    verdict = check_sepia_x16_kernel(kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed is False and out.startswith("NOT YET: "), out
    assert "data race on out[" in out and "(a launch that measured its speed)" in out, out


@pytest.mark.parametrize("name", sorted(TAIL_BY_MANY))
def test_a_tail_run_by_more_than_one_thread_is_named(name, kernels, capsys):
    assert check_sepia_x16_kernel(kernels[name]).passed is False
    out = capsys.readouterr().out
    assert all(words in out for words in MANY_NAMED), out


@pytest.mark.parametrize("name", sorted(TAIL_RACES))
def test_a_tail_loop_that_starts_inside_the_groups_is_named(name, kernels, capsys):
    assert check_sepia_x16_kernel(kernels[name]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the tail's thread 122 ") and TAIL_RACES[name][1] in out, out


def test_a_tail_counted_from_its_own_start_is_named_from_the_trace(kernels, capsys):
    assert check_sepia_x16_kernel(kernels["tail_from_its_own_start"]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the last 9 pixels (the tail past the last whole group of 16) "
                          "were never written: the tail's thread 122 (t == n / 16) wrote pixels "
                          "0 to 8, the image's first (group 0's, which thread 0 stores too), not "
                          "1952 to 1960 (n = 1961, groups = 122): sepia_pixel was given each "
                          "pixel's place within the tail, 0 to 8, where its number in the image "
                          "belongs"), out
    assert ("Hint: pass sepia_pixel the pixel's number in the image, not its place in the tail: "
            "sepia_pixel(rgb, out, i)" in out), out
