"""Zero guards of ``helpers.exercises.wmma_partial_k``'s staging that go one too far, <= K: A's
(``a_guard_one_past``), B's (``b_guard_one_past``, which tells them from no guard of B's) and
both (``guards_one_past``), each told from a run's C compared with the C its staging computes
(``staged_as``) or with A B, in launches with an inf column of A or rows of 0 after B's end.
``rerun(run, case, inf_at=None, **more)`` is the exercise's launch of ``run``'s kernel again (a
``Run``, or None where it crashed)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.wmma_partial_k_models import is_close, staged

A_FIX = "As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f)"
B_FIX = "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f)"


def staged_as(run, case, change):
    """Whether ``run`` (of ``case``) computed the C of the wrong staging ``change(K, N)`` (as
    ``staged``'s keywords)."""
    if run is None:
        return False
    m, k, n = case[:3]
    flat_a, flat_b = (spec.host().astype(np.float64) for spec in run.launch.args[:2])
    return np.allclose(run.out.got.astype(np.float64), staged(flat_a, flat_b, m, k, n, **change(k, n)),
                       1e-4, 1e-3, equal_nan=True)


def a_guard_one_past(run, case, rerun):
    """A's zero guard k0 + col <= K: the column k0 + col == K staged too (the next row's first
    element of A; past A's end, NaN, in its last row), 0 after it. B's rows past K being 0, its C
    is no guard's: a launch with A's column 1 all inf tells them apart (no guard stages A[r + 1][1]
    at column K + 1, and inf times B's 0 is NaN in every row of C; <= only A[r + 1][0])."""
    m, k, n = case[:3]
    one_past = lambda k, n: dict(a_keep=lambda k0, r, col: k0 + col <= k)  # noqa: E731
    if 16 - k % 16 < 2 or not staged_as(run, case, one_past) or \
            not staged_as(rerun(run, case, ("A", 1)), case, one_past):
        return
    yield (f"As's zero guard k0 + col <= K lets the column k0 + col == K = {k} through: in the "
           "last, partial step As took A[row][K], past the end of A's row (the next row's first "
           "element, and past A's end in its last row: NaN here, in C's last row), where it "
           "must be 0: A's columns are 0 to K - 1, so <= is one too far",
           f"stop before column K: {A_FIX}")


BOTH_ONE_PAST = lambda k, n: dict(a_keep=lambda k0, r, col: k0 + col <= k,  # noqa: E731
                                  b_keep=lambda k0, r, col: k0 + r <= k)


def b_guard_one_past(run, case, rerun):
    """B's zero guard k0 + r <= K: B's row K, past B's end (NaN), staged in the last step, where
    A's column K is 0 (NaN in every element of C); a launch with a row of 0 after B gives A B.
    With A's guard <= K too, that launch leaves NaN in C's last row, A's column K read past A's
    end there (``guards_one_past``). With no guard at all, B's rows K to k0 + 15 are staged: rows
    of 0 up to there give A B."""
    m, k, n = case[:3]
    if k % 16 == 0 or not np.isnan(run.out.got).all():
        return
    right = lambda again: again is not None and is_close(  # noqa: E731
        again.out.got.astype(np.float64), run.model[0] @ run.model[1])
    zero_row = rerun(run, case, zero_rows=1)
    if right(zero_row):
        yield (f"Bs's zero guard k0 + r <= K lets the row k0 + r == K = {k} through: in the last, "
               f"partial step Bs took B's row K, past the end of B (its rows are 0 to K - 1 = "
               f"{k - 1}: NaN here, so C holds NaN; with a row of 0 put after B's end, C came out "
               "A B), where it must be 0: B's rows are 0 to K - 1, so <= is one too far",
               f"stop before row K: {B_FIX}")
    elif staged_as(zero_row, case, BOTH_ONE_PAST):
        yield guards_one_past(k)
    elif 16 - k % 16 > 1 and right(rerun(run, case, zero_rows=16 - k % 16)):
        yield (f"Bs has no zero guard: in the last, partial step (k0 = {k - k % 16}) Bs took "
               f"B's rows {k} to {k - k % 16 + 15}, past the end of B (its rows are 0 to K - 1 "
               f"= {k - 1}: NaN here, so C holds NaN; with {16 - k % 16} rows of 0 put after "
               "B's end, C came out A B), where they must be 0: A's zeros there do not cancel "
               "them: 0 times NaN (or inf) is NaN, and past B's end memory may hold anything",
               f"stage 0 where k0 + r reaches K: {B_FIX}")


def guards_one_past(k):
    """(problem, hint) of both zero guards one too far, k0 + col <= K and k0 + r <= K."""
    return (f"the zero guards k0 + col <= K (As) and k0 + r <= K (Bs) let column K of A and row K "
            f"of B through: in the last, partial step (k0 = {k - k % 16}) As took A[row][K], past "
            "the end of A's row (the next row's first element, and past A's end in its last row), "
            "and Bs took B's row K, past the end of B (NaN here, so C holds NaN; with a row of 0 "
            "put after B's end, C came out A B but for its last row, NaN: A's column K read past "
            f"A's end there), where both must be 0: A's columns and B's rows are 0 to K - 1 = "
            f"{k - 1}, so <= is one too far", f"stop before K: {A_FIX}, and {B_FIX}")
