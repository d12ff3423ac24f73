"""The near misses (helpers.exercises.near) on synthetic arrays: each relation between a wrong
output and the right one is named when it holds for every element (the edge a shift moves out
aside, within the tolerance), and nothing is said when it does not hold, or the output is right."""

import numpy as np
import pytest

from helpers.exercises import near

RNG = np.random.default_rng(7)
VEC = RNG.standard_normal(200).astype(np.float32)
MAT = RNG.standard_normal((37, 91)).astype(np.float32)
SQUARE = RNG.standard_normal((16, 16)).astype(np.float32)
GROUPS = (RNG.integers(0, 256, 4 * 48) + 0.0).astype(np.float32)   # 4 groups of 48


def _first(got, want, **options):
    """The first near miss's (problem, hint), or None."""
    return next(iter(near.misses("out", got, want, **options)), None)


def _swapped_rows(m, a, b):
    out = m.copy()
    out[[a, b]] = m[[b, a]]
    return out


def _edited(array, edit):
    out = array.copy()
    edit(out)
    return out


def _group_run_moved(g):
    g.reshape(4, 48)[:, 16:32] = GROUPS.reshape(4, 48)[:, :16]


def _group_tail_zero(g):
    g.reshape(4, 48)[:, 36:] = 0


def _group_tail_computed(g):
    g.reshape(4, 48)[:, 15:] = GROUPS.reshape(4, 48)[:, 15:] * 0.5 + 3   # values, not a constant


def _columns_cut(m):
    m[:, 80:] = 0


def _rows_cut(m):
    m[30:] = 0


NAMED = {  # name: (got, want, options, words of the problem, words of the hint)
    "half": (VEC * 0.5, VEC, {}, "every element of out is 0.5 times the right value",
             "divides by"),
    "xor_not_a_power": (VEC * np.float32(25 / 7), VEC, {},
                        "every element of out is 3.571 (25/7) times the right value",
                        "^ is exclusive or"),
    "sign": (-VEC, VEC, {}, "every element of out has the wrong sign", "multiplies"),
    "plus_a_constant": (VEC + 1.5, VEC, {}, "every element of out is the right value plus 1.5",
                        "term by term"),
    "minus_a_constant": (VEC - 2, VEC, {}, "the right value minus 2", "term by term"),
    "truncated": (np.trunc(VEC * 10), VEC * 10, {}, "cut to a whole number (toward zero)",
                  "an int variable"),
    "read_the_next": (np.r_[VEC[1:], np.nan], VEC, {},
                      "out[i] holds the right value of out[i + 1]: an index is off by 1",
                      near.INDEX_HINT),
    "stored_two_on": (np.r_[0, 0, VEC[:-2]], VEC, {"index_hint": "i = threadIdx.x"},
                      "out[i] holds the right value of out[i - 2]", "i = threadIdx.x"),
    "rows_shifted": (np.r_[MAT[1:], MAT[:1] * 0], MAT, {},
                     "row r of out holds the right values of row r + 1", near.INDEX_HINT),
    "columns_shifted": (np.c_[MAT[:, 1:], MAT[:, :1] * 0], MAT, {},
                        "out[r][c] holds the right value of out[r][c + 1]", near.INDEX_HINT),
    "transposed": (SQUARE.T, SQUARE, {}, "out is transposed: out[r][c] holds the right value of "
                   "out[c][r]", near.INDEX_HINT),
    "column_after_column": (MAT.T.reshape(MAT.shape), MAT, {},
                            "out holds the right values column after column", near.INDEX_HINT),
    "rows_reversed": (MAT[::-1], MAT, {}, "the rows of out are in reverse order", near.INDEX_HINT),
    "columns_reversed": (MAT[:, ::-1], MAT, {}, "the columns of out are in reverse order",
                         near.INDEX_HINT),
    "rows_swapped": (_swapped_rows(MAT, 3, 7), MAT, {}, "rows 3 and 7 of out are swapped",
                     near.INDEX_HINT),
    "rows_repeat": (np.tile(MAT[:16], (3, 1))[:37], MAT, {},
                    "the rows of out repeat the first 16: row r holds the right values of row "
                    "r % 16", near.INDEX_HINT),
    "run_moved_in_each_group": (_edited(GROUPS, _group_run_moved), GROUPS,
                                {"block": (48, "group")},
                                "in every group of 48 elements of out, elements 16 to 31 hold the "
                                "right values of elements 0 to 15", near.INDEX_HINT),
    "prefix_of_each_group": (_edited(GROUPS, _group_tail_zero), GROUPS, {"block": (48, "group")},
                             "in every group of 48 elements of out, only the first 36 are right "
                             "(elements 36 to 47 of each are wrong)", "each group has 48 elements"),
    # the tail computed, not left at one value: no loop stopped short, the loads fed it wrong
    "prefix_then_values_from_other_inputs": (_edited(GROUPS, _group_tail_computed), GROUPS,
                                             {"block": (48, "group")},
                                             "only the first 15 are right (elements 15 to 47 of "
                                             "each are wrong), computed from other inputs",
                                             "check the indices of the loads"),
    "prefix_of_each_row": (_edited(MAT, _columns_cut), MAT, {},
                           "only the first 80 columns of each row of out are right",
                           "each row has 91 columns"),
    "first_rows": (_edited(MAT, _rows_cut), MAT, {}, "only the first 30 rows of out are right",
                   "out has 37 rows"),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_each_relation_is_named(name):
    got, want, options, problem, hint = NAMED[name]
    found = _first(got, want, **options)
    assert found is not None, name
    assert problem in found[0] and hint in found[1], found


NOTHING = {  # name: (got, want, options)
    "right": (VEC, VEC, {}),
    "right_within_tolerance": (VEC * np.float32(1 + 1e-7), VEC, {}),
    "all_zero": (VEC * 0, VEC, {}),
    "one_element_off": (_edited(VEC, lambda v: v.__setitem__(5, 9.0)), VEC, {}),
    "noise": (RNG.standard_normal(200), VEC, {}),
    "only_the_edge_wrong": (np.r_[VEC[:-1], np.nan], VEC, {}),   # not a shift: the rest is right
    "one_row_right": (np.r_[MAT[:1], MAT[1:] * 0 + 3], MAT, {}),  # p = 1 tells nothing
    "shapes_differ": (VEC[:-1], VEC, {}),
}


@pytest.mark.parametrize("name", sorted(NOTHING))
def test_nothing_named_without_a_relation(name):
    got, want, options = NOTHING[name]
    assert _first(got, want, **options) is None


def test_a_shift_within_the_slack_is_named():
    """Escape counts: a shift holds for all but the slack's share of the elements."""
    want = np.arange(50)[:, None] * 100.0 + np.arange(40)
    got = np.r_[want[1:], want[:1]]
    got[5, 5] = -1                                  # one element off: within 1 %
    assert _first(got, want, close=np.equal) is None
    found = _first(got, want, close=np.equal, slack=0.01)
    assert found and "row r of out holds the right values of row r + 1" in found[0], found


def test_only_the_values_of_a_part():
    """``values`` alone names a plane's factor, as backproject_range asks of each plane."""
    tol = near.Tolerance(near.within())
    found = list(near.values("Y", VEC.astype(np.float64) * 0.9135, VEC.astype(np.float64), tol))
    assert found and "every element of Y is 0.9135 times the right value" in found[0][0]


def test_a_model_may_round_otherwise_where_a_sum_cancels():
    """2 * (a * c + d), fused as a GPU does (the product not rounded), against NumPy's 2 * want,
    rounded twice: where a * c + d nearly cancels, the two differ by far more than rtol = 1e-6,
    but by less than float32's rounding of the largest values."""
    a, c = RNG.standard_normal(300).astype(np.float32), RNG.standard_normal(300).astype(np.float32)
    d = RNG.standard_normal(300).astype(np.float32)
    d[:30] = -(a * c)[:30] + RNG.standard_normal(30).astype(np.float32) * np.float32(1e-6)
    want = a * c + d                                           # rounded after * and after +
    got = np.float32(2) * (a.astype(np.float64) * c + d).astype(np.float32)   # fused
    close = near.within(1e-6, 0)
    assert not close(got, 2 * want).all()                      # the exercise's tolerance alone
    found = _first(got, want, close=close)
    assert found and "every element of out is 2 times the right value" in found[0], found
