"""Checker for exercise 2 of notebook 13, ``cuda_src/exercises/wmma_gemm.cu``: C = A B, one warp a
16 x 16 tile of C; A and C stored row after row, B column after column (B[k][c] at B[c * K + k]);
M, N, K multiples of 16 and unequal, so that each leading dimension shows; blocks in order, as
the warps of tiles counted wrong store over other blocks' tiles. A fragment loaded from
the wrong place, with the wrong leading dimension or layout gives a product that ``product``
computes too (from the inputs' memory): the first that matches names the mistake. C's guard
holds a row of tiles, where a warp past the last tile that does not return stores."""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises import microscope, near
from helpers.exercises import wmma_tile
from helpers.exercises.common import NEVER_SET, Input, Output
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.verdict import matches
from helpers.exercises.microscope import observed_launch
from helpers.exercises.wmma_gemm_models import (LOOKALIKES, a_tile_moved_down, block_index_added,
                                                c_rows_apart_past_c, past_by_row_m, product,
                                                tile_col_by_16, warp_is_the_lane)
from helpers.exercises.wmma_partial_k_crashes import warp_without_tile

# (M, K, N): 6, 8 and 3 tiles of C; the first again on the simulator, A and B without the zeros
# after them, where the warps past the last tile read past A unless they return before the loop
CASES = [(48, 80, 32), (32, 48, 64), (16, 160, 48), (48, 80, 32, "observe")]
PAD = 4096  # zeros after each input, for a fragment that reads past its matrix


def _draw(rng):
    m, k, n = (16 * int(rng.integers(1, 5)) for _ in range(3))
    return [(m, k + 16 if k == n else k, n)]


def _launch(case):
    m, k, n = case[:3]
    rng = np.random.default_rng(m * 1000 + k + n)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    inputs = (Input(a, after=PAD), Input(np.ascontiguousarray(b.T), after=PAD))
    c = Output((m, n), guard=16 * n, poisons=(None, None), held=wmma_tile.LOADED)   # two launches
    return Launch((*inputs, c, np.int32(m), np.int32(k), np.int32(n)),
                  block=(128, 1, 1), grid=(((m // 16) * (n // 16) + 3) // 4, 1), in_order=True,
                  model=[x.host().astype(np.float64) for x in inputs])  # their memory, as read


def _either(got, model) -> bool:
    """Whether each element of ``got`` is a value some warp that ``product`` models stored
    there (any of those that race on it may have landed last)."""
    return bool(np.any([np.isclose(got, c, rtol=1e-4, atol=1e-3) for c in model], axis=0).all())


C_HINT = ("C's tile (tile_row, tile_col) starts at C + tile_row * 16 * N + tile_col * 16, and "
          "from one row to the next is N elements")


LOADED = ("loaded A's rows tile_row * 16", "only the store was guarded (its return, or if, after "
          "the loop over k), so the warps with no tile still ran the loop's loads",
          "return before the loop: if (tile_row >= M / 16) return; right after tile_row is "
          "computed: the whole warp leaves, so the wmma calls still see all 32 lanes of every "
          "warp that stays")
"""``warp_without_tile``'s words here: what a warp with no tile did, why, the hint."""


def _refine(failure):
    err = failure.error
    if (no_tile := warp_without_tile(failure, LOADED)) is not None:
        yield no_tile
    yield from c_rows_apart_past_c(failure)
    if failure.kind == "out of bounds" and err.is_write:   # C is the one it writes
        yield C_HINT
    yield from tile_col_by_16(failure)
    yield from _warp_of_16(failure)
    yield from warp_is_the_lane(failure)
    yield from a_tile_moved_down(failure)
    if failure.kind == "misaligned address" and err.offset is not None and failure.launch:
        along = err.offset // 2 % int(failure.launch.args[4])   # A by rows, B by columns: K long
        yield (f"load_matrix_sync was given a tile that starts at element {along} along K, an odd "
               "element, which a GPU refuses (\"misaligned address\"): a tile starts at a multiple "
               "of 16 along K. Let k count elements, a tile's 16 a step: for (int k = 0; k < K; "
               "k += 16), and load A + tile_row * 16 * K + k and B + tile_col * 16 * K + k")


def _warp_of_16(failure):
    """load_matrix_sync given two pointers, lane 0's and lane 16's, that are the tiles of warp
    numbers v and v + 1, v = the first thread's index / 16: the warp numbered by 16 threads, so
    its two halves took two tiles (A's pointer or B's, whichever differs)."""
    err = failure.error
    if (failure.kind != "warp matrix" or getattr(err, "rule", None) != "arguments differ"
            or tuple(err.lanes) != (0, 16) or not failure.launch or not failure.block
            or not err.block or not err.thread or not err.element_size):
        return
    k, n = (int(x) for x in failure.launch.args[4:6])
    v = (err.block[0] * failure.block[0] + err.thread[0] // 32 * 32) // 16
    tiles = [divmod(w, n // 16) for w in (v, v + 1)]
    at = [offset // err.element_size for offset in err.offsets]
    for name, part in (("A", 0), ("B", 1)):
        if at[1] - at[0] == (tiles[1][part] - tiles[0][part]) * 16 * k != 0:
            said = [f"{name} + {a}" if a else name for a in at]
            yield (f"the warp's number was counted in 16 threads, not 32: lanes 0 to 15 of warp "
                   f"{v // 2} took number {v} (tile {tiles[0]}) and lanes 16 to 31 number {v + 1} "
                   f"(tile {tiles[1]}), so the warp's lanes passed load_matrix_sync two tiles "
                   f"(lane 0: {said[0]}, lane 16: {said[1]}); a tile's 16 is its side, not a "
                   "warp's lanes", "a warp is 32 threads: warp = (blockIdx.x * blockDim.x + "
                   "threadIdx.x) / 32, and all 32 lanes work on the warp's one tile")
            return


def _c_rows_apart(run, case, stored):
    """C's tiles stored from row tile_row, not tile_row * 16 (C + tile_row * N + tile_col * 16):
    the elements written (``stored``, 16 rows past C's end too) are those such tiles cover, one
    row of C apart, over one another, and the rows below them never written."""
    m, _, n = case
    model = product(run.model, case, guard=16, c_at=lambda w, tr, tc: (tr * n + tc * 16, n))
    if m > 16 and np.array_equal(~np.isnan(model[0].ravel()), stored):
        rows, last = m // 16, m // 16 + 14
        starts = ", ".join(map(str, range(rows - 1))) + f" and {rows - 1}"
        yield (f"C's rows of tiles were stored one row of C apart, from rows {starts}, over one "
               f"another, and C[{last + 1}][0] to C[{m - 1}][{n - 1}] ({(m - last - 1) * n} "
               "elements) were never written: C + tile_row * N + tile_col * 16 starts tile "
               "(tile_row, tile_col) at row tile_row, where its first row is tile_row * 16",
               "a row of tiles is 16 rows of C, N elements each: store at C + tile_row * 16 * N "
               "+ tile_col * 16")


def _c_columns_apart(run, case, stored):
    """C's tiles stored from column tile_col, not tile_col * 16 (C + tile_row * 16 * N +
    tile_col): the elements written (``stored``) are those such tiles cover, one column of C
    apart, over one another, and the columns right of them never written."""
    m, _, n = case
    model = product(run.model, case, guard=16, c_at=lambda w, tr, tc: (tr * 16 * n + tc, n))
    if n > 16 and np.array_equal(~np.isnan(model[0].ravel()), stored):
        per_row, first = n // 16, n // 16 + 15
        starts = ", ".join(map(str, range(per_row - 1))) + f" and {per_row - 1}"
        yield (f"C's tiles of a row were stored one column of C apart, from columns {starts}, "
               f"over one another, and columns {first} to {n - 1} of every row "
               f"({m * (n - first)} elements, the first C[0][{first}]) were never written: "
               "C + tile_row * 16 * N + tile_col starts tile (tile_row, tile_col) at column "
               "tile_col, where its first column is tile_col * 16: tile_col is not scaled by 16",
               "a tile is 16 columns of C wide: store at C + tile_row * 16 * N + tile_col * 16")


def _first_warps_alone(run, case):
    """The guard warp >= M / 16: only warps 0 to M / 16 - 1 stored their tiles (right), those
    of the grid's first tiles in row-major order, the others never written."""
    (m, _, n), out = case, run.out
    limit, per_row = m // 16, n // 16
    if limit >= (m // 16) * per_row or out.past.size:
        return
    written = np.zeros((m, n), bool)
    for w in range(limit):
        written[w // per_row * 16:w // per_row * 16 + 16, w % per_row * 16:w % per_row * 16 + 16] = True
    got, want = run.out.got.astype(np.float64), product(run.model, case)[0]
    if np.array_equal(~out.unwritten, written) and \
            np.allclose(got[written], want[written], rtol=1e-4, atol=1e-3):
        r, c = np.argwhere(out.unwritten)[0]
        yield (f"only the first {limit} warps' tiles were written (warps 0 to {limit - 1}, "
               f"right), and C[{r}][{c}] and {int(out.unwritten.sum()) - 1} more elements never: "
               f"the guard compares warp with M / 16 = {limit}, the number of rows of tiles, so "
               f"every warp from {limit} on returned, though C has {(m // 16) * per_row} tiles",
               "a warp past the last tile is one whose tile_row is past the last row of tiles: "
               "if (tile_row >= M / 16) return;")


def _past_in_wide(run, m, n, more):
    """The flat indices past C that the kernel stores launched on the simulator (K = 16) with
    ``more`` rows of tiles' warps more than C's (C's guard holding them), and the warps; None
    where that launch failed."""
    launch, blocks = _launch((m, 16, n)), -(-(m // 16 + more) * (n // 16) // 4)
    wide = dataclasses.replace(launch, grid=(blocks, 1), args=tuple(
        dataclasses.replace(a, guard=16 * (more + 1) * n) if isinstance(a, Output) else a
        for a in launch.args))
    seen = microscope.observe(run.kernel, wide, key=f"{more} rows of tiles more", racecheck=False)
    return (seen.outs[0].past.tolist(), 4 * blocks) if seen.error is None and seen.outs else None


def _guard_lets_the_next_row_on(run, case):
    """A guard that lets the warps of tile_row M / 16 (the case's only ones past C) through,
    and C right: tile_row > M / 16, > where >= belongs, or tile_row >= M, the rows of C where
    its rows of tiles belong; told from each other and from no guard at all by launches on the
    simulator (K = 16) with the warps of more rows of tiles than C's."""
    (m, _, n), out = case, run.out
    warps = run.launch.grid[0] * run.launch.block[0] // 32
    if out.unwritten.any() or out.past.tolist() != past_by_row_m(m, n, warps) or \
            not _either(out.got.astype(np.float64), product(run.model, case)):
        return
    head = (f"the warps whose tile_row is M / 16 = {m // 16} went on and stored their tiles "
            f"below C, in rows {m} to {m + 15}: ")
    seen = _past_in_wide(run, m, n, 2)
    if seen and seen[0] == past_by_row_m(m, n, seen[1]):
        yield (head + f"tile_row > M / 16 lets tile_row == M / 16 through (a launch on the "
               f"simulator with more warps: those of tile_row {m // 16 + 1} returned), but C's "
               "last row of tiles is M / 16 - 1", "the rows of tiles are 0 to M / 16 - 1: return "
               "where tile_row >= M / 16 (>=, not >): if (tile_row >= M / 16) return;")
    seen = _past_in_wide(run, 16, n, 17)
    if seen and seen[0] == past_by_row_m(16, n, seen[1], rows=15):
        yield (head + f"the guard compares tile_row, a row of tiles, with M = {m}, the number of "
               "rows of C (a launch on the simulator with M = 16: the warps of tile_row 1 to 15 "
               "stored below C, those of tile_row 16 = M returned)",
               "C has M / 16 rows of tiles: if (tile_row >= M / 16) return;")


def _mma_after_the_loop(run, case):
    """Only the last step along K kept, as where the accumulator is set to 0 inside the loop;
    but launched on the simulator with K = 0, where the loop runs no step, C comes out other
    than 0 (NaN: the simulator fills a local never set with 0xFE bytes): mma_sync ran after the
    loop, on fragments no load set. A kernel that sets c to 0 in the loop stores 0 there."""
    if not hasattr(run.kernel, "simulated") or \
            not _either(run.out.got.astype(np.float64), product(run.model, case, reset=True)):
        return
    seen = microscope.observe(run.kernel, _launch((case[0], 0, case[2])), key="K = 0",
                              racecheck=False)
    if seen.error is None and seen.outs and np.any(seen.outs[0].got != 0):
        shown = "NaN" if np.isnan(seen.outs[0].got).all() else "other than 0"
        yield (f"only the last step of 16 along K reached C: mma_sync ran once, after the loop "
               f"over k, on the fragments of the last step (with K = 0 (no step) C came out "
               f"{shown}: mma_sync multiplied fragments no load had set)",
               "call wmma::mma_sync(c, a, b, c) inside the loop over k, after both loads, so "
               "that each step adds its product to c")


def _warp_without_parentheses(run, case, stored):
    """warp = blockIdx.x * blockDim.x + threadIdx.x / 32, the parentheses dropped: block b's
    warps are numbered from b * blockDim.x, so (with no more tiles than blockDim.x) only block 0's
    warps find a tile, the first ones, right. C is as where every block's warps take tiles 0 to 3
    (warp = threadIdx.x / 32): told apart by which blocks stored C, on a launch on the simulator
    (K = 16) traced."""
    (m, _, n), threads = case, run.launch.block[0]
    tiles, per_block = (m // 16) * (n // 16), threads // 32
    model = product(run.model, case, guard=16, tile_of=lambda w: divmod(
        w // per_block * threads + w % per_block, n // 16))
    if run.launch.grid[0] < 2 or tiles > threads or \
            not np.array_equal(~np.isnan(model[0].ravel()), stored):
        return
    seen = microscope.accesses_of(run.kernel, _launch((m, 16, n)), "C's stores, K = 16", 1 << 15)
    if seen is None or not len(mine := seen[(seen["array"] == "C") & seen["write"]]) or \
            set(np.unique(mine["block"]).tolist()) != {0}:
        return
    yield (f"warp = blockIdx.x * blockDim.x + threadIdx.x / 32 divides only threadIdx.x by 32 "
           f"(/ goes before +): block b's warps start at b * blockDim.x = {threads}b, not at "
           f"{per_block}b, so only block 0's warps stored (C's tiles 0 to {per_block - 1}, "
           f"right; a launch on the simulator traced), those of the later blocks got a tile_row "
           f"past M / 16 and returned, and C's tiles {per_block} to {tiles - 1} were never written",
           "write the parentheses: warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, the "
           "thread's number in the grid divided by 32")


def _c_tiles_swapped(run, case, stored):
    """C's tile (tile_row, tile_col) stored at C + tile_col * 16 * N + tile_row * 16, the place of
    tile (tile_col, tile_row): the elements written (``stored``, 16 rows past C's end too) are
    those such stores cover, and their values those tiles' (the elements alone may be another
    mistake's: with M = 48, N = 32 those of the tiles counted from K / 16)."""
    (m, _, n), written = case, ~run.out.unwritten
    model = product(run.model, case, guard=16, c_at=lambda w, tr, tc: (tc * 16 * n + tr * 16, n))
    if not np.array_equal(~np.isnan(model[0].ravel()), stored) or not _either(
            run.out.got.astype(np.float64)[written], model[:, :m][:, written]):
        return
    shown = [f" (tile ({r}, {c}) landed at C[{c * 16}][{r * 16}], where tile ({c}, {r}) belongs)"
             for r in range(min(m, n) // 16) for c in range(min(m, n) // 16) if r != c][:1]
    yield ("C's tile (tile_row, tile_col) was stored at C + tile_col * 16 * N + tile_row * 16, "
           f"the place of tile (tile_col, tile_row){''.join(shown)}: tile_row and tile_col are "
           "swapped in store_matrix_sync's pointer", "store at C + tile_row * 16 * N + tile_col * 16: "
           "tile_row's 16 rows of N elements, then tile_col's 16 columns")


def _c_ld(run, case, stored):
    """C's tiles stored with leading dimension M, K or 16 (the tile's width), where N (a row of
    C) belongs: the elements written (``stored``, 16 rows past C's end too) are those such
    stores cover (with 16, each tile's 256 elements back to back from its start)."""
    m, k, n = case
    store = "store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, wmma::mem_row_major)"
    for name, ld in (("M", m), ("K", k), ("16", 16)):
        model = product(run.model, case, guard=16, c_at=lambda w, tr, tc: (tr * 16 * n + tc * 16, ld))
        if ld == n or not np.array_equal(~np.isnan(model[0].ravel()), stored):
            continue
        if name == "16":
            r, c = np.argwhere(run.out.unwritten)[0]
            yield ("C's tiles were stored with leading dimension 16, but a row of C holds N = "
                   f"{n} elements: store_matrix_sync's leading dimension is the number of "
                   "elements from one row of C to the next, so each tile's 16 rows landed one "
                   "after another, 256 elements in a row from its start (tile (0, 0): C[0][0] "
                   f"to C[{255 // n}][{255 % n}]), and {int(run.out.unwritten.sum())} elements of "
                   f"C were never written (the first C[{r}][{c}])", "the leading dimension is a "
                   f"row of C, N elements, not the tile's 16: {store}")
            return
        yield (f"C's tiles were stored with leading dimension {name} = {ld}, but a row of C holds "
               f"N = {n} elements: store_matrix_sync's leading dimension is the number of "
               f"elements from one row of C to the next, so each tile's rows landed {ld} apart",
               store)


def _stored(out, m, n):
    """The elements of C (``out``, m x n) a launch wrote, then those of the 16 rows past its end."""
    return np.concatenate([~out.unwritten.ravel(), np.isin(np.arange(m * n, (m + 16) * n), out.past)])


def _m_and_n_swapped(run, case, stored):
    """M and N swapped in the warp's tile and its guard (tile_row = warp / (M / 16), tile_col =
    warp % (M / 16), return where tile_row >= N / 16): the tiles laid out as C transposed's. The
    elements written (``stored``) and their values are those such warps store, and so are the
    elements written on the simulator with K = 16, where the tiles counted from K / 16 store others
    (with M = 48, N = 32 the two store the same elements, racing)."""
    (m, _, n), written = case, ~run.out.unwritten
    swapped = dict(guard=16, tile_of=lambda w: divmod(w, m // 16), rows=n // 16)
    model, again = product(run.model, case, **swapped), _launch((m, 16, n))
    if m == n or not np.array_equal(~np.isnan(model[0].ravel()), stored) or not _either(
            run.out.got.astype(np.float64)[written], model[:, :m][:, written]):
        return
    seen = microscope.observe(run.kernel, again, key="K = 16", racecheck=False)
    if seen.error is not None or not seen.outs or not np.array_equal(_stored(
            seen.outs[0], m, n), ~np.isnan(product(again.model, (m, 16, n), **swapped)[0].ravel())):
        return
    r, c = np.argwhere(run.out.unwritten)[0]
    yield (f"M and N were swapped: tile_row = warp / (M / 16), tile_col = warp % (M / 16) and the "
           f"guard tile_row >= N / 16 lay the warps' tiles out as N / 16 = {n // 16} "
           f"row{'s' * (n > 16)} of M / 16 = {m // 16} tiles, but C holds M / 16 = {m // 16} "
           f"row{'s' * (m > 16)} of N / 16 = {n // 16} tiles, "
           f"so the tiles landed out of place and {int(run.out.unwritten.sum())} elements of C "
           f"were never written (the first C[{r}][{c}])", "a row of C holds N / 16 tiles, and "
           "there are M / 16 rows of them: tile_row = warp / (N / 16), tile_col = warp % (N / 16), "
           "and return where tile_row >= M / 16")


def _mistakes(case, run):
    got, out, (m, _, n) = run.out.got.astype(np.float64), run.out, case
    stored = _stored(out, m, n)
    if out.unwritten.any():
        yield from _m_and_n_swapped(run, case, stored)
        yield from _first_warps_alone(run, case)
        yield from _c_rows_apart(run, case, stored)
        yield from _c_columns_apart(run, case, stored)
        yield from _warp_without_parentheses(run, case, stored)
        yield from block_index_added(case, run.launch.grid[0], run.launch.block[0] // 32, stored)
    if out.past.size or out.unwritten.any():
        yield from _c_tiles_swapped(run, case, stored)
        yield from _c_ld(run, case, stored)
    for arguments, problem, hint in LOOKALIKES if out.past.size or out.unwritten.any() else ():
        model = product(run.model, case, guard=16, **arguments(*case))  # the tiles it stores
        if np.array_equal(~np.isnan(model[0].ravel()), stored):
            yield problem, hint
    if out.past.size:
        yield from _guard_lets_the_next_row_on(run, case)
        yield "elements past the end of C were written", "a warp past the last tile must return"
    if out.unwritten.all():
        yield ("C was never written (it still holds the value it was filled with)",
               "store the tile: store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, "
               "wmma::mem_row_major)")
    if out.unwritten.any():
        r, c = np.argwhere(out.unwritten)[0]
        yield (f"{int(out.unwritten.sum())} elements of C were never written (the first is "
               f"C[{r}][{c}])", C_HINT)
    want = product(run.model, case)
    if not _either(got, want):
        yield from _mma_after_the_loop(run, case)
    for each in (c.astype(np.float64) for c in out.runs):  # warps' stores that race may be
        if not _either(each, want):                       # right in one launch and not the other
            yield from matches(each, ((product(run.model, case, **arguments(*case)), problem,
                                       hint) for arguments, problem, hint in LOOKALIKES), _either)
    if out.differs or (out.got == NEVER_SET).any():
        yield wmma_tile.UNSET, "set it to 0 before the loop over k: wmma::fill_fragment(c, 0.0f)"
    if _either(got, want):
        return
    want = want[0]
    yield from near.misses("C", got, want, close=near.within(1e-4, 1e-3))
    r, c = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
    yield (f"C is not A B (C[{r}][{c}] = {got[r, c]:.4g}, expected {want[r, c]:.4g})",
           "check each part in turn: the warp's tile (tile_row = warp / (N / 16), tile_col = "
           "warp % (N / 16)); the accumulator set to 0 once, before the loop over k (k < K, "
           "steps of 16); A's tile (tile_row, k / 16) at A + tile_row * 16 * K + k, row_major, "
           "B's (k / 16, tile_col) at B + tile_col * 16 * K + k, col_major, both with leading "
           "dimension K; C stored with mem_row_major")


EXERCISE = KernelExercise(
    stub="exercises/wmma_gemm.cu", kernel="wmma_gemm",
    signature="const half *A, const half *B, float *C, int M, int K, int N",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes, refine=_refine,
    no_extern_c=True, simulated="launches the kernel with K = 0",
    observed=observed_launch(_launch, _refine), observed_as="race-checked",
    where=lambda case: "with M = {}, K = {}, N = {}".format(*case),
    crash_hint="each tile starts inside its matrix: A + tile_row * 16 * K + k, "
               "B + tile_col * 16 * K + k",
    success=f"C = A B with B stored by columns, one warp a tile, for {len(CASES) - 1} shapes "
            "(M, K, N unequal)")

check_wmma_gemm = EXERCISE.check_file          # (path="exercises/wmma_gemm.cu")
check_wmma_gemm_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
