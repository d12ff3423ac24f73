"""Checker for the third exercise of notebook 13: ``cuda_src/exercises/wmma_partial_k.cu``.

``wmma_partial_k(const half *A, const half *B, float *C, int M, int K, int N)``: C = A B, one warp
a 16 x 16 tile of C, its tiles staged in shared memory; M and N multiples of 16, K not. The usual
mistake is a loop that stops before the last, partial tile (``k0 + 16 <= K``, or ``K / 16``
steps): C is then exactly the product over the first K - K % 16 columns, which the checker
computes and names; so is one cut shorter still (the offset k0 held below (K + 15) / 16, the
count of steps). The inputs are followed by NaN, so that a tile filled from past K (rather
than with 0) shows as NaN in C, on a GPU as here. Where C is not all written, the elements that
were are compared with those a wrong store writes (``STORES``: which tile a warp takes, where its
tile starts, its leading dimension). A last launch on the simulator, race-checked, finds a step
that loads its tiles before every lane has staged them, or stages them before every lane has read
the last ones (a __syncwarp() missing either way). A wrong staging
(``STAGINGS``: the zero test on the other index or on both, B's row stride or column) is named by the C it
computes (``wmma_partial_k_models``), and so is B's zero test against N (where N > K its C is no guard's, so a
launch with N < K confirms it); a tile element no lane staged, by the simulator's init check.
Zero guards that compare the index within the tile with K % 16 give one C whichever of the two
is wrong: launches with an inf column of A (row of B) tell which (``_guards_in_tile``). Zero
guards one too far, <= K, A's, B's or both, are told apart by launches with an inf column of A
or a row of 0 after B's end (``wmma_partial_k_guards``).
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near, wmma_tile
from helpers.exercises.common import Input, Output
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import body_words, observe, observed_launch, observed_mistakes
from helpers.exercises.wmma_partial_k_crashes import (loaded_in_place, rows_past_the_tile,
                                                      tile_loaded_apart, warp_without_tile)
from helpers.exercises.wmma_partial_k_guards import a_guard_one_past, b_guard_one_past
from helpers.exercises.wmma_partial_k_guards import staged_as as _staged_as
from helpers.exercises.wmma_partial_k_models import (B_TRANSPOSED, STAGINGS, STORES,
                                                     b_fragment_col_major, c_ld, c_stored_col_major,
                                                     guard_against_n,
                                                     fragment_from_other_tile, b_column_from_r,
                                                     a_rows_apart, written_by, last_tile_missing)
from helpers.exercises.wmma_partial_k_models import clamped as _clamped
from helpers.exercises.wmma_partial_k_models import is_close as _is
from helpers.exercises.wmma_partial_k_models import steps_cut_short as _steps_cut_short

# (M, K, N); K % 16 = 8, 6 and 5 (one partial tile); the last on the simulator, race-checked
CASES = [(32, 40, 48), (16, 70, 32), (48, 5, 16), (32, 40, 48, "observe")]
PAD = 1024  # NaN after each input


def _draw(rng):
    k = 16 * int(rng.integers(0, 5)) + int(rng.integers(1, 16))
    return [(16 * int(rng.integers(1, 5)), k, 16 * int(rng.integers(1, 5)))]


def _where(case):
    m, k, n = case[:3]
    return f"with M = {m}, K = {k} (not a multiple of 16), N = {n}"


def _launch(case, inf_at=None, zero_rows=0, junk=np.nan):
    """The case's launch; ``inf_at`` ("A" or "B", k): A's column k (B's row k) all inf;
    ``zero_rows``: that many rows of 0 after B's end (from its row K), ``junk`` after them (and
    after A's end)."""
    m, k, n = case[:3]
    rng = np.random.default_rng(m * 1000 + k + n)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    if inf_at:
        (a.T if inf_at[0] == "A" else b)[inf_at[1]] = np.inf
    tiles, on = (m // 16) * (n // 16), np.vstack([b, np.zeros((zero_rows, n), b.dtype)])
    return Launch((Input(a, after=PAD, junk=junk), Input(on, after=PAD, junk=junk),
                   # a row of tiles: a warp past the last stores there
                   Output((m, n), guard=16 * n, held=wmma_tile.LOADED),
                   np.int32(m), np.int32(k), np.int32(n)),
                  block=(128, 1, 1), grid=((tiles + 3) // 4, 1), model=(a.astype(np.float64), b.astype(np.float64)))


def _refine(failure):
    """A race between the lanes of a warp (this step's staging and its loads, or the next step's
    staging and this step's loads), one between warps (each has tiles of its own: a warp that
    reads another's reads past its own, a leading dimension other than 16), and the shared tiles
    indexed past the block's warps."""
    if (no_tile := warp_without_tile(failure)) is not None:
        yield no_tile
    if (in_place := loaded_in_place(failure)) is not None:
        yield in_place
    if failure.kind == "array bounds":
        yield from _tile_bounds(failure)
    if failure.between == "warps" and failure.error.space == "shared" and \
            failure.error.hazard == "write-after-write":
        yield from _one_tile_staged(failure)
    if failure.between == "warps" and failure.error.space == "shared":
        yield ("a warp reached into another warp's tiles in shared memory: each warp's are "
               "As[w] and Bs[w], 16 x 16, so load them with a leading dimension of 16: "
               "load_matrix_sync(b, &Bs[w][0][0], 16)")
    if failure.between == "lanes" and failure.error.hazard == "read-after-write":
        yield ("lanes loaded the tiles before every lane had staged its part: load_matrix_sync "
               "waits for the warp's lanes but does not order their stores; a __syncwarp() "
               "between the staging loop and load_matrix_sync")
    if failure.between == "lanes" and failure.error.hazard == "write-after-read":
        yield ("the next step stages its tiles while other lanes may still read this step's: a "
               "__syncwarp() at the end of the loop's body, after mma_sync")


def _one_tile_staged(failure):
    """Two warps of a block wrote one element of a shared tile (a write-after-write: load_matrix_sync
    only reads): they stage into one tile, where each warp has its own."""
    err = failure.error
    warps = sorted({a.thread[0] // 32 for a in (err.first, err.second)})   # a block of (128, 1, 1)
    yield (f"warps {warps[0]} and {warps[-1]} of a block both wrote {failure.place} in shared "
           f"memory (threads {err.first.thread[0]} and {err.second.thread[0]}, a write-after-write "
           "with no barrier between): the warps staged their tiles into one shared tile, each "
           "over the others', so a warp's mma_sync may take another warp's elements",
           "each warp stages into its own tiles, the ones it loads: As[w][r][col] and "
           "Bs[w][r][col], with w = threadIdx.x / 32")


def _tile_bounds(failure):
    """An index past a shared tile, from the error's fields: one of 16 to 31 into a row of 16
    (``declared`` "__half [16]") is a staging loop that split i into rows of 32; a row of 16 or
    more (into "__half [16][16]") one that ran i past 255 (``rows_past_the_tile``); one past the
    block's warps (the first dimension, 4), in a block whose first warp is not warp 0 of the
    grid, is the grid's warp number where the block's, w, belongs."""
    err, warps = failure.error, (failure.block or (128,))[0] // 32
    declared = (getattr(err, "declared", None) or "").replace(" ", "")
    element = getattr(err, "element", None)
    if declared.endswith("[16]") and declared.count("[") == 1 and element is not None and \
            16 <= element < 32:
        thread, block = err.thread[0], err.block[0]
        yield (f"thread {thread} of block {block} (lane {thread % 32}) staged an element at "
               f"column {element} of a tile's row, past its 16: the staging loop split i into "
               "rows of 32 (col = i % 32 runs to 31), but a 16 x 16 tile's rows hold 16",
               "the 256 elements of a tile go 16 to a row: int r = i / 16, col = i % 16")
    elif declared.endswith("[16][16]") and declared.count("[") == 2 and element is not None \
            and element >= 16:
        yield rows_past_the_tile(err.thread[0] % 32, element)
    elif getattr(err, "length", None) == warps and (getattr(err, "block", None) or (0,))[0] > 0:
        yield (f"As and Bs hold one tile for each warp of the block ({warps}): index them with "
               "the warp's number in its block, w = threadIdx.x / 32, not its number in the grid")


STAGE = "stage A[tile_row * 16 + r][k0 + col] where k0 + col < K and B[k0 + r][tile_col * 16 + col] where k0 + r < K, else 0"


CONFIRM = (16, 70, 32)
"""A shape with N < K, where B's zero guard compared with N stages B's rows N to K - 1 as 0 (with
N > K it gives the C that no guard at all gives: B's rows past K, NaN, in the last step)."""


def _b_guarded_with_n(run, case):
    """B's zero guard compared k0 + r with N, the length of B's rows, not K: C as that staging
    gives it, in this launch and, where N > K, in a launch of ``CONFIRM`` too."""
    m, k, n = case[:3]
    with_n = lambda k, n: dict(b_keep=lambda k0, r, col: k0 + r < n)  # noqa: E731
    if not _staged_as(run, case, with_n) or n > k and not _staged_as(_run(run, CONFIRM), CONFIRM, with_n):
        return
    said = (f"rows {k} to {n - 1} were read from past the end of B" if n > k else
            f"its rows {n} to {k - 1} were staged as 0")
    yield (f"Bs took B's rows k0 + r {'' if n > k else 'only '}up to N = {n}, but B has K = {k} "
           f"rows: the zero guard compared k0 + r, B's row, with N, the length of B's rows, so "
           f"{said}", "guard B's row with K, the number of B's rows: Bs[w][r][col] = k0 + r < K ? "
           "B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f)")


IN_TILE = lambda k, n: dict(a_keep=lambda k0, r, col: col < k % 16,  # noqa: E731
                           b_keep=lambda k0, r, col: r < k % 16)
"""Zero guards that compare the index within the tile with K % 16 (either alone gives this C: a
product with a factor 0 is 0)."""
GUARDS = {"A": ("As", "col", "k0 + col in A", "columns of A", "As[w][r][col] = k0 + col < K ? "
                "A[...] : __float2half(0.0f)"),
          "B": ("Bs", "r", "k0 + r in B", "rows of B", "Bs[w][r][col] = k0 + r < K ? B[...] : "
                "__float2half(0.0f)")}


def _guards_in_tile(run, case):
    """Zero guards that compare the index within the tile with K % 16: each step kept only its
    first K % 16 products. Which guard: a launch with A's column K % 16 all inf (B's row) gives
    NaN in C only where that guard is right (inf times the other's 0)."""
    m, k, n = case[:3]
    if k < 16 or not _staged_as(run, case, IN_TILE):
        return
    inf = {side: _run(run, case, (side, k % 16)) for side in "AB"}
    wrong = [side for side, again in inf.items()
             if again is not None and not np.isnan(again.out.got).any()] or ["A", "B"]
    arrays, indices, globals_, what = (" and ".join(x) for x in zip(
        *(GUARDS[side][:4] for side in wrong)))
    tiles, guards = ("its tiles", f"the zero guards of {arrays} compare") if len(wrong) == 2 else (
        f"{wrong[0]}'s tile", f"{arrays}'s zero guard compares")
    yield (f"every step staged {tiles} as if it were the last, partial one: {guards} the index "
           f"within the tile, {indices}, with K % 16, so each step added only its first K % 16 "
           f"products and set its other {what} to 0; an element's k is the global index, "
           f"{globals_}, and it must be below K",
           "compare the element's k with K: " + ", and ".join(GUARDS[side][4] for side in wrong))


def _one_short(run, case):
    """C the product over k = 0 to K - 2 alone: a zero guard that stops one short, k0 + col <
    K - 1 (A's) or k0 + r < K - 1 (B's): either alone gives this C. Which: a launch with A's
    column K - 1 all inf (B's row) gives NaN only where that guard is right (inf times the other's
    0)."""
    m, k, n = case[:3]
    a, b = run.model
    if k < 2 or not _is(run.out.got.astype(np.float64), a[:, :k - 1] @ b[:k - 1]):
        return
    inf = {side: _run(run, case, (side, k - 1)) for side in "AB"}
    wrong = [side for side, again in inf.items()
             if again is not None and not np.isnan(again.out.got).any()] or ["A", "B"]
    arrays, _, globals_, what = (" and ".join(x) for x in zip(
        *(GUARDS[side][:4] for side in wrong)))
    guards = (f"the zero guards of {arrays} stop" if len(wrong) == 2 else
              f"{arrays}'s zero guard stops")
    yield (f"C lacks the products of k = K - 1 = {k - 1} alone: {guards} one short, setting "
           f"0 where {globals_} {'reach' if len(wrong) == 2 else 'reaches'} K - 1 rather than "
           f"K, so the last of the {what}, K - 1, was left out (K - 1 < K: it is inside)",
           "compare the element's k with K itself: " + ", and ".join(GUARDS[side][4] for side in wrong))


def _run(run, case, inf_at=None, **more):
    """The ``Run`` of ``run``'s kernel launched on ``case`` (with ``inf_at`` and ``more``, as
    ``_launch``'s), or None where that launch crashed or left C holding what it was filled with."""
    launched = EXERCISE.run(run.kernel, _launch(case, inf_at, **more))
    try:
        next(launched)
    except StopIteration as stop:
        return stop.value
    return None


def _unstaged(kernels):
    """The simulator's init check on the last case: a tile element no lane of its warp staged."""
    from helpers.sim.settings import settings

    with settings.changed(initcheck=True):
        error = observe(kernels, _launch(CASES[-1]), key="initcheck").error
    if getattr(error, "kind", None) == "uninitialised read" and error.space == "shared":
        w, (r, col) = error.element // 256, divmod(error.element % 256, 16)
        yield (f"on the simulator, warp {w} read {error.array}[{w}][{r}][{col}] of its tile, which "
               f"none of its lanes had staged (at {error.line})",
               "the warp's 32 lanes stage all 256 elements of each tile: i from lane = "
               "threadIdx.x % 32 up to 255, in steps of 32 (r = i / 16, col = i % 16)")


def _zeroed_by_multiplying(run, case):
    """C holds NaN, but with 1 after A's and B's ends (not NaN) it comes out A B: the staging read
    the elements past K and made them 0 by a multiplication, A[...] * (k0 + col < K) (or an
    unguarded tile's times the other's 0), and NaN * 0 is NaN."""
    if not np.isnan(run.out.got).any():
        return
    again = _run(run, case, junk=1.0)
    if again is None or not _is(again.out.got.astype(np.float64), run.model[0] @ run.model[1]):
        return
    yield ("C holds NaN, but with 1 put after A's and B's ends, C came out A B: past K the "
           "staging still read A's and B's elements (in the last step past the matrices' ends: "
           "NaN here), and they were made 0 by a multiplication, A[...] * (k0 + col < K) (or "
           "times the other tile's 0), but NaN * 0 is NaN, not 0, and past a matrix's end "
           "memory may hold anything", "read an element only where it is inside: As[w][r][col] "
           "= k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f), and "
           "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : "
           "__float2half(0.0f)")


def _simulated(kernels):
    """What the last case's launch on the simulator shows: a staged tile loaded with the matrix's
    leading dimension (``tile_loaded_apart``), else the failure or race as such."""
    seen = observe(kernels, _launch(CASES[-1]))
    if (apart := tile_loaded_apart(kernels, seen)) is not None:
        yield apart
    yield from observed_mistakes(seen, _refine, wrong="C is wrong")


def _mistakes(case, run):
    m, k, n = case
    a, b = run.model
    got, out = run.out.got.astype(np.float64), run.out
    whole, last = k - k % 16, (k - 1) // 16 * 16
    yield from c_ld(m, k, n, out)
    if out.past.size:
        yield from guard_against_n(run, case, _launch)
        yield "elements past the end of C were written", "a warp past the last tile must return"
    if out.unwritten.all():
        yield ("C was never written (it still holds the value it was filled with)",
               "keep the store_matrix_sync of C's tile after the loop")
    if out.unwritten.any():
        for store, problem, hint in STORES:
            if np.array_equal(written_by(m, n, **store), ~out.unwritten):
                yield problem, hint
        yield (f"{int(out.unwritten.sum())} elements of C were never written",
               "every warp with a tile stores it, after the loop")
    if _is(got, a @ b):
        return
    yield from c_stored_col_major(got, a @ b)
    flat_a, flat_b = (spec.host().astype(np.float64) for spec in run.launch.args[:2])
    for mixup in (fragment_from_other_tile, b_column_from_r, a_rows_apart):
        yield from mixup(got, flat_a, flat_b, m, k, n)
    if _is(got, a[:, :whole] @ b[:whole]):
        yield from last_tile_missing(run, case, _run, observe(run.kernel, _launch(CASES[-1])))
    yield from _steps_cut_short(got, a, b, k)
    if k > 16 and _is(got, a[:, last:] @ b[last:]):
        yield (f"C holds the last step's products alone, k = {last} to {k - 1}: the accumulator "
               "was set to 0 at every step (fill_fragment(c, 0.0f) inside the loop), so each "
               "step threw away what the steps before it had added", "fill the accumulator "
               "with 0 once, before the loop: wmma::fill_fragment(c, 0.0f); then for (int k0 = "
               "0; k0 < K; k0 += 16) { ... mma_sync(c, a, b, c); }")
    yield from _b_guarded_with_n(run, case)
    yield from _clamped(got, a, b, k)
    yield from _one_short(run, case)
    yield from _guards_in_tile(run, case)
    yield from a_guard_one_past(run, case, _run)
    yield from b_guard_one_past(run, case, _run)
    for change, problem, hint in STAGINGS:
        if _staged_as(run, case, change):
            if change is B_TRANSPOSED and (declared := b_fragment_col_major(body_words(run.kernel))):
                yield declared
            yield problem(m, k, n) if callable(problem) else problem, hint
    # an index past the shared tiles: a GPU reads what lies beyond them, the simulator stops there
    yield from _simulated(run.kernel)
    if _is(got, 0 * got):
        yield "C is all zeros: the tiles in shared memory hold only 0", STAGE
    yield from _unstaged(run.kernel)
    yield from _zeroed_by_multiplying(run, case)
    if np.isnan(got).any():
        yield ("C holds NaN: a tile took elements from past the end of A or B (past K there is "
               "no matrix: stage 0 there), or a tile in shared memory was loaded with a leading "
               "dimension other than its 16", STAGE + "; a row of A holds K elements, a row of B "
               "N; and load_matrix_sync(a, &As[w][0][0], 16), the same for Bs")
    yield from near.misses("C", got, a @ b, close=near.within(1e-4, 1e-3), index_hint=STAGE)
    r, c = np.unravel_index(np.argmax(np.abs(got - a @ b)), got.shape)
    yield (f"C is not A B (C[{r}][{c}] = {got[r, c]:.4g}, expected {(a @ b)[r, c]:.4g})", STAGE)


EXERCISE = KernelExercise(
    stub="exercises/wmma_partial_k.cu", kernel="wmma_partial_k",
    signature="const half *A, const half *B, float *C, int M, int K, int N",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    simulated="runs the race check", observed=observed_launch(_launch, _refine), refine=_refine,
    observed_as="race-checked", crash_hint="stage only elements inside A and B: 0 where k0 + col (A) or k0 + r (B) reaches K",
    success=f"C = A B for {len(CASES) - 1} shapes whose K is not a multiple of 16, the partial tile "
            "included, and no race",
    no_extern_c=True)

check_wmma_partial_k = EXERCISE.check_file          # (path="exercises/wmma_partial_k.cu")
check_wmma_partial_k_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
# kernel; on a GPU, simulated is the same source compiled by the simulator
