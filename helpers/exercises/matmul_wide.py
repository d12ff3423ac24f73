"""Checker for the non-square tile exercise of notebook 08 (``cuda_src/exercises/matmul_wide.cu``).

The kernel under test::

    __global__ void matmul_wide(const float *A, const float *B, float *C, int M, int K, int N)

computes C = A B with blocks of 32 x 8 threads, each an 8 x 32 tile of C, through shared tiles of
A (8 x 32) and B (32 x 32, four rows a thread), phases 32 deep.

The cases' K and N are not multiples of the tiles' sides, nor M but once (8, one tile); C is
poisoned twice (NaN, then -7: a NaN stored counts as written) and guarded. A wrong C is matched with
the mistakes' models (``matmul_wide_models``), each the set of k a sum takes in (``summed``): 8 of
every 32 (multiply-adds 8 deep), or no partial last phase; or with those of a tile indexed wrongly
(``indexed``). The last case runs on the simulator, race-checked: a missing barrier is found
whatever order the threads ran in, and Bs rows that no thread loaded show as NaN
(the simulator fills shared memory with NaN; a GPU leaves whatever was there)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Output
from helpers.exercises.coverage import Grid, Words, coverage
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.matmul_tiling import edge_threads_skipped_loads
from helpers.exercises.matmul_wide_a_guard import a_column_unguarded
from helpers.exercises.matmul_wide_models import (A_GUARD_N, blocks_swapped, bs_at_global_column, bs_rows_past_tile_k, ROWS_APART, crossed, indexed, part,
                                                  neighbouring_rows, phases_from_a_side, rows_apart, wide_step, rows_from_zero, rows_k_apart_store, sum_declared_int, summed,
                                                  stale_last_phase, tile_k_apart, a_column_from_ty)
from helpers.exercises.microscope import accesses_of, body_words, observe, observed_mistakes
from helpers.exercises.or_guard import store_guard_with_or
from helpers.exercises.origin import Wrong
from helpers.exercises.verdict import not_yet

BLOCK = (32, 8, 1)
TILE_M = 8   # C's rows a block computes, blockDim.y
CASES = [(45, 70, 77), (8, 33, 31), (100, 100, 65), (20, 40, 40, "observe")]  # (M, K, N)
WORDS = Words(index_hint="row = blockIdx.y * TILE_M + ty, col = blockIdx.x * TILE_N + tx",
              guard_hint="store C[row * N + col] only if (row < M && col < N)", item="element",
              whole="C", array="C", col="col", row="row", cols="N", rows="M")


def _draw(rng):  # the grader's: sides that are not multiples of 8, 32 or 32
    return [(awkward(rng, 8, 1, 120), awkward(rng, 32, 1, 150), awkward(rng, 32, 1, 150))]


def _grid(case):  # C's: M x N
    return Grid(case[0], case[2], BLOCK)


def _where(case):
    return f"M = {case[0]}, K = {case[1]}, N = {case[2]}, grid = {_grid(case).grid}"


def _launch(case):
    (m, k, n), grid = case[:3], _grid(case)
    rng = np.random.default_rng(m * k * n)
    a, b = (rng.uniform(-1, 1, shape).astype(np.float32) for shape in ((m, k), (k, n)))
    return Launch((a, b, Output((m, n), guard=grid.span(), poisons=(None, -7.0)), *map(np.int32, (m, k, n))),
                  block=BLOCK, grid=grid.grid, model=(a, b))


def _simulated(kernels, wrong):
    """What the last case's launch on the simulator shows: a race, a crash, unloaded Bs rows."""
    seen = observe(kernels, _launch(CASES[-1]))
    yield from neighbouring_rows(seen.race)
    yield from _rows_from_tx(kernels, seen.race)
    yield from rows_from_zero(seen.race, lambda: _bs_stores(kernels))
    yield from observed_mistakes(seen, _refine, wrong=wrong)
    yield from _stored_at_ty(kernels)
    if np.isnan(seen.outs[0].got).any():
        yield ("on the simulator, which fills shared memory with NaN, C holds NaN: the "
               "products read elements of Bs that no thread loaded (a GPU reads whatever was "
               "there)", "Bs has TILE_K = 32 rows and the block 8 rows of threads: each "
               "thread loads rows r = ty, ty + 8, ty + 16, ty + 24 into Bs[r][tx]")


TILES = {"As": ("TILE_M", "TILE_K", "As[ty][tx], As[ty][k]", "one for each k of a phase"),
         "Bs": ("TILE_K", "TILE_N", "Bs[r][tx], Bs[k][tx]", "one for each tx, C's column")}


def _tile_declared_narrow(kernels):
    """Before the cases: a tile declared with TILE_M (8) columns, [..][TILE_M], where its rows
    are indexed at tx (0 to 31), shown by the simulator's bounds check on the last case's launch
    (a row of 8 indexed at the thread's tx, 8 or more); None where not."""
    words = body_words(kernels)
    narrow = [words[i + 2:i + 5:2] for i in range(len(words) - 8) if words[i:i + 2] == ["__shared__", "float"]
              and words[i + 2] in TILES and words[i + 6:i + 9] == ["[", words[i + 7], "]"]
              and words[i + 7] in ("TILE_M", "8")]
    if not narrow:
        return None
    err = observe(kernels, _launch(CASES[-1])).error
    if getattr(err, "kind", None) != "array bounds" or err.length != TILE_M or \
            err.element is None or not err.thread or err.element != err.thread[0]:
        return None
    (name, rows), (right_rows, cols, uses, why) = narrow[0], TILES[narrow[0][0]]
    line = str(err.line or "").rsplit(":", 1)[-1]
    swapped = " (its sides swapped)" if rows == cols else ""
    return not_yet(
        f"{name} was declared __shared__ float {name}[{rows}][TILE_M]{swapped}, rows of 8 columns, "
        f"but each of its rows is stored and read at tx, up to 31 ({uses}): on the simulator thread "
        f"{tuple(err.thread)} of block {tuple(err.block or (0, 0, 0))} indexed a row of {name} at "
        f"{err.element}, past its 8 columns (line {line})",
        f"{name}'s rows have {cols} = 32 columns, {why}: __shared__ float "
        f"{name}[{right_rows}][{cols}];")


def _before(kernels):
    """Before the cases: a tile declared narrow (``_tile_declared_narrow``), Bs indexed at C's
    global column (``bs_at_global_column``) or its rows' loop run to 32 (``bs_rows_past_tile_k``),
    from the simulator's bounds check."""
    narrow = _tile_declared_narrow(kernels)
    if narrow is not None:
        return narrow
    err = observe(kernels, _launch(CASES[-1])).error
    found = bs_at_global_column(kernels, err) or bs_rows_past_tile_k(kernels, err)
    return None if found is None else not_yet(*found)


def _bs_stores(kernels):
    """On the simulator (one block, M = 8, K = N = 32, its first accesses kept): the stores into
    Bs as (tx, ty, element), or None."""
    accesses = observe(kernels, _launch((8, 32, 32)), key="Bs stores", accesses=4096,
                       racecheck=False).accesses
    if accesses is None:
        return None
    mine = accesses[(accesses["array"] == "Bs") & accesses["write"] & (accesses["block"] == 0)]
    return mine["thread"] % 32, mine["thread"] // 32, mine["index"]


def _stored_at_ty(kernels):
    """Every thread storing each of its rows of B into Bs[ty][tx], its own row of Bs, where the
    loop's r belongs (the trace's stores into Bs): the rows r = ty + 8, ty + 16, ty + 24 landed
    on row ty one after another, and rows 8 to 31 of Bs were never loaded; or storing row ty
    alone, once, where a loop steps by 32 (``wide_step``): the loop over r ran a single turn."""
    if (stores := _bs_stores(kernels)) is None:
        return
    tx, ty, index = stores
    if len(index) == TILE_M * 32 and (index == ty * 32 + tx).all() and \
            (step := wide_step(body_words(kernels))) is not None:
        name, by = step
        yield ("each thread stored a single row of Bs, its row ty (the trace's stores into Bs), "
               f"so only rows 0 to {TILE_M - 1} of Bs were loaded and rows {TILE_M} to 31 never "
               "(on the simulator, which fills shared memory with NaN, C holds NaN; a GPU reads "
               f"whatever was there): your loop steps {name} by {by} = 32"
               + (", the block's width," if by == "blockDim.x" else "") + " so from "
               f"{name} = ty it runs once", "the block has TILE_M = 8 rows of threads, so each "
               "thread loads every 8th row: step by the block's height, TILE_M = blockDim.y = 8: "
               f"{name} += TILE_M, rows ty, ty + 8, ty + 16, ty + 24")
    elif len(index) > TILE_M * 32 and (index == ty * 32 + tx).all():
        turns = len(index) // (TILE_M * 32)
        yield (f"every thread stored its {turns} rows of B into Bs[ty][tx], its own row ty of Bs "
               "(the trace's stores into Bs): b_row moves with the loop's r, but the store "
               "kept Bs[ty], so each row ty of Bs ends up holding the last row stored, B's row "
               f"phase * TILE_K + ty + {TILE_M * (turns - 1)}, and rows {TILE_M} to 31 of Bs are "
               "never loaded (on the simulator, which fills shared memory with NaN, C holds "
               "NaN; a GPU reads whatever was there)",
               "store each row where the loop's r says: Bs[r][tx] = (b_row < K && col < N) ? "
               "B[b_row * N + col] : 0.0f")


def _rows_from_tx(kernels, race):
    """Two rows of threads that stored into one element of Bs, their tx the same, where the
    trace's stores show every thread (tx, ty) loading rows tx, tx + 8, ... of column tx,
    whatever its ty: the loop over Bs's rows started at tx, not ty."""
    if race is None or race.array != "Bs" or race.hazard != "write-after-write" or \
            race.first.thread[0] != race.second.thread[0] or (stores := _bs_stores(kernels)) is None:
        return
    tx, ty, index = stores
    if not len(index) or (ty == 0).all() or not ((index % 32 == tx) & (index // 32 >= tx)
                                                 & (index // 32 % TILE_M == tx % TILE_M)).all():
        return
    (a, b), element = sorted((race.first.thread[1], race.second.thread[1])), race.element
    yield (f"every row of threads stored the same elements of Bs: the race check found "
           f"Bs[{element}] stored by the threads of rows ty = {a} and ty = {b} "
           f"({race.first.who} and {race.second.who}), and the trace shows thread (tx, ty) "
           "storing rows tx, tx + 8, ... of column tx whatever its ty: the loop over Bs's rows "
           "starts at tx, so column tx of Bs got only rows tx, tx + 8, ... below 32, the "
           "others never loaded, and ty picked nothing", "a thread's rows of Bs start at its row in the block, ty, and lie TILE_M = "
           "8 apart: for (int r = ty; r < TILE_K; r += TILE_M)")


def _refine(failure):
    err = failure.error
    if (failure.kind == "race" and err.hazard == "write-after-write" and err.array == "Bs"
            and err.element is not None):
        row, tys = err.element // 32, sorted((err.first.thread[1], err.second.thread[1]))
        if row >= 8 and row % 8 == 0 and tys[0] < tys[1] == row // 8:
            yield (f"Bs row {row} was loaded by the threads of rows ty = {tys[0]} and {tys[1]}: "
                   "the loop over r starts at ty * TILE_M, so only rows 0, 8, 16 and 24 of Bs "
                   "are loaded, by several rows of threads each; start at r = ty: "
                   "for (int r = ty; r < TILE_K; r += TILE_M)")
    if failure.kind == "array bounds" and err.declared == "float [8][32]" and err.length == 8:
        yield (f"As's first index reached {err.element} at {Path(err.line or '').name} (thread "
               f"{err.thread} of block {err.block}), past its TILE_M = 8 rows: an index that runs "
               "over k, to TILE_K = 32, was put first, as in As[k][ty]",
               "As is As[TILE_M][TILE_K], stored like A's tile: the thread's row ty first, then k; "
               "Bs alone is k-major: sum += As[ty][k] * Bs[k][tx]")
    if failure.kind == "array bounds":
        yield ("As is TILE_M x TILE_K (8 x 32) and Bs TILE_K x TILE_N (32 x 32): a thread's rows "
               "of Bs are r = ty, ty + 8, ... below TILE_K, and k runs below TILE_K")


def _read_past(run, name):
    """A read past A, run again with NaN after it: A's rows read N elements apart, or A's
    columns guarded by N (the last row's reach past A: NaN times Bs's 0 is NaN)."""
    if name == "B":
        yield from _b_guard_n(run)
    if name != "A":   # any other read past B: the crash's verdict
        return
    (a, b), flat = run.model, run.launch.args[0].host()
    (m, k), n = a.shape, b.shape[1]
    yield from _a_guard_tx(run, flat)
    wide = min(n, -(-k // 32) * 32)
    for model, mistake in ((rows_apart(flat, m, k, n) @ b, ROWS_APART),
                           (rows_apart(flat, m, k, 32) @ b, tile_k_apart(k))):
        if np.allclose(run.out.got, model, 1e-4, 1e-4, equal_nan=True):
            yield mistake
    if np.allclose(run.out.got, rows_apart(flat, m, wide, k) @ part(b, np.arange(wide)), 1e-4,
                   1e-4, equal_nan=True):
        yield from a_column_unguarded(run, _launch, CASES)
        yield A_GUARD_N


def _a_guard_tx(run, flat):
    """A read past A that took every column of each phase's tile, a_col up to the last phase's
    end, where one phase (K = 20 below 32, N past it, on the simulator) reads nothing past A and
    gives C right: A's guard tests tx, the thread's column in the tile, against K where a_col
    belongs (the same for phase 0 alone). A guard against N, or none, reads past A there."""
    (a, b), (m, k, n) = run.model, (8, 20, 31)
    (big_m, big_k), wide = a.shape, -(-a.shape[1] // 32) * 32
    if not np.allclose(run.out.got, rows_apart(flat, big_m, wide, big_k) @ part(b, np.arange(wide)),
                       1e-4, 1e-4, equal_nan=True):
        return
    seen = observe(run.kernel, _launch((m, k, n)), key="A's guard", racecheck=False)
    small_a, small_b = seen.launch.model
    if seen.error is None and np.allclose(seen.outs[0].got, small_a.astype(np.float64) @ small_b,
                                          rtol=1e-4, atol=1e-4):
        yield (f"A's guard tests tx against K, but tx is the thread's column in the tile (0 to "
               f"31), not A's column a_col = phase * TILE_K + tx: tx < K holds for every thread "
               f"once K >= 32, so past the first phase A's tile took elements past the end of "
               f"each row (a read of A past its end with M = {big_m}, K = {big_k}, N = "
               f"{b.shape[1]}), where with K = {k}, one phase, a_col is tx and C came out right",
               "guard A's column: (row < M && a_col < K): As[ty][tx] = (row < M && a_col < K) ? "
               "A[row * K + a_col] : 0.0f")


def _b_guard_n(run):
    """A read past B (rows past its last), and on the simulator a case with N < K (no read past
    B then) that takes in only k below N: B's guard tests b_row against N where K belongs. (A's
    guard against N gives that C too, but reads past A, not B, where N > K.)"""
    case = next(c for c in CASES if c[2] < c[1])
    m, k, n = case
    seen = observe(run.kernel, _launch(case), key="B's guard", racecheck=False)
    a, b = seen.launch.model
    if seen.error is None and np.allclose(seen.outs[0].got, summed(a, b, np.arange(k) < n),
                                          rtol=1e-4, atol=1e-4):
        (big_m, big_k), big_n = run.model[0].shape, run.model[1].shape[1]
        yield (f"B's guard tests b_row against N, but B is K x N: where N > K its tile read rows "
               f"past B's last (a read of B past its end with M = {big_m}, K = {big_k}, N = "
               f"{big_n}), and where N < K it left out B's rows N to K - 1 (M = {m}, K = {k}, "
               f"N = {n}: C took in only the first {n} products)",
               "B's rows run below K: Bs[r][tx] = (b_row < K && col < N) ? B[b_row * N + col] : "
               "0.0f")


def _bs_transposed(kernels) -> bool:
    """On the simulator (one block, M = 8, K = N = 32, its first accesses kept): whether every
    store into Bs by thread (tx, ty) went to row tx of Bs (element tx * 32 + r), not column tx."""
    if (stores := _bs_stores(kernels)) is None:
        return False
    tx, _, index = stores
    return bool(len(index) and (index // 32 == tx).all() and not (index % 32 == tx).all())


def _col_steps_by_tile_m(kernels, case, unwritten):
    """C's columns written those of col = blockIdx.x * TILE_M + tx (on some grids the same as a
    kernel with col and row swapped reaches), confirmed by the trace's stores into C (one row of
    blocks, N = 64): block b's thread tx stored at column b * 8 + tx."""
    (m, n), gx = unwritten.shape, _grid(case).grid[0]
    reach = np.isin(np.arange(n), np.arange(gx)[:, None] * TILE_M + np.arange(32))
    if not unwritten.any() or not np.array_equal(~unwritten, np.broadcast_to(reach, (m, n))):
        return
    seen = accesses_of(kernels, _launch((8, 32, 64)), "C stores", 40000)
    if seen is None or not len(mine := seen[(seen["array"] == "C") & seen["write"]]) or \
            not (mine["index"] % 64 == mine["block"] * TILE_M + mine["thread"] % 32).all():
        return
    r, c = np.argwhere(unwritten)[0]
    yield (f"col steps by TILE_M = 8 from one block to the next, not TILE_N = 32: the trace's "
           "stores into C put block b's thread tx at column b * 8 + tx, so neighbouring blocks "
           f"wrote the same columns and only columns 0 to {gx * TILE_M + 23} were written "
           f"({int(unwritten.sum())} of {unwritten.size} elements of C never written, the "
           f"first C[{r}][{c}])", "a block holds TILE_N = 32 columns of C: "
           "col = blockIdx.x * TILE_N + tx")


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first."""
    kernels, (a, b), got, k, ks = run.kernel, run.model, run.out.got, case[1], np.arange(case[1])
    yield from _col_steps_by_tile_m(kernels, case, run.out.unwritten)
    want = summed(a, b, np.ones(k))
    yield from blocks_swapped(run.out.unwritten, np.isclose(got, want, 1e-4, 1e-4), _grid(case).grid)
    yield from filter(None, [rows_k_apart_store(got, run.out.unwritten, want, k)])
    yield from store_guard_with_or(run.out.past, _grid(case), WORDS, kernels)
    yield from coverage(run.out.past, run.out.unwritten, _grid(case), WORDS, WORDS.guard_hint)
    if (close := np.isclose(got, want, rtol=1e-4, atol=1e-4)).all():
        return
    yield from edge_threads_skipped_loads(~close, (TILE_M, 32), unloaded=lambda: any(
        np.isnan(out.got).any() for out in observe(kernels, _launch(CASES[-1])).outs))
    yield from _simulated(kernels, "C is wrong")
    yield from phases_from_a_side(got, run.model, case, EXERCISE.run, kernels)
    for used, problem, hint in (
            (ks % 32 < 8, "each sum takes in only 8 of every 32 products: the multiply-adds "
             "go TILE_M = 8 deep where a phase is TILE_K = 32 deep", "for (k = 0; k < TILE_K; "
             "k++): the depth of a phase is TILE_K"),
            (ks < 32 * (k // 32), "the last, partial phase is missing: the phases stop before "
             "the K % 32 products past the last whole tile", "phases = (K + TILE_K - 1) / "
             "TILE_K, rounded up, the elements past K loaded as 0"),
            (ks >= (k - 1) // 32 * 32, "C holds only the last phase's products: sum was set to "
             "0 in each phase, so each phase threw away the sums before it", "float sum = 0.0f "
             "once, before the loop over the phases: each phase adds to it"),
            (ks % TILE_M == np.arange(case[0])[:, None] % TILE_M, "the multiply-adds' loop "
             "started at k = ty and stepped by TILE_M = 8, as the loads of Bs's rows do: each "
             "thread added only 4 of a phase's 32 products, k = ty, ty + 8, ty + 16, ty + 24",
             "every thread adds all TILE_K products of a phase: for (int k = 0; k < TILE_K; "
             "k++) sum += As[ty][k] * Bs[k][tx]"),
            (ks < case[2], *A_GUARD_N)):
        if k > 8 and np.allclose(got, summed(a, b, used), rtol=1e-4, atol=1e-4):
            yield problem, hint
    if np.allclose(got, crossed(a, b), rtol=1e-4, atol=1e-4) and _bs_transposed(kernels):
        yield ("B's tile was stored transposed: thread (tx, ty) wrote Bs[tx][r] (the trace's "
               "stores into Bs), so row k of Bs, which the products read as Bs[k][tx], holds "
               "column k of the tile, not row k of B", "store B's rows as they are loaded, "
               "Bs[r][tx] = B[b_row * N + col]: r picks the row, tx walks along it")
    for model, problem, hint in (*indexed(a, b), a_column_from_ty(a, b)):
        if model is not None and np.allclose(got, model, rtol=1e-4, atol=1e-4):
            yield problem, hint
    yield from stale_last_phase(got, a, b)
    yield from near.misses("C", got, want, close=near.within(1e-4, 1e-4))
    if not got.any():
        yield from sum_declared_int(EXERCISE.run, kernels)
    for model, problem, hint in (
            (summed(a, b, ks % 32 > 0), "each phase leaves out its first product: the loop over "
             "k starts at 1", "for (int k = 0; k < TILE_K; k++)"),
            (np.zeros_like(want), "C is all zeros: the products added nothing (a tile that was "
             "never loaded, or sum never added to)", "each phase loads both tiles, As[ty][tx] and "
             "Bs[r][tx] = B[phase * TILE_K + r][col] for r = ty, ty + 8, ..., then sum += "
             "As[ty][k] * Bs[k][tx]")):
        if np.allclose(got, model, rtol=1e-4, atol=1e-4):
            yield problem, hint
    r, c = np.argwhere(~close)[0]
    yield Wrong(f"{int((~close).sum())} of the {close.size} elements of C are wrong (the "
                f"first C[{r}][{c}] = {got[r, c]:.6g}, NumPy's is {want[r, c]:.6g})",
                "As[ty][tx] = A[row][phase * TILE_K + tx], Bs[r][tx] = B[phase * TILE_K + r][col] "
                "for r = ty, ty + 8, ...; then sum += As[ty][k] * Bs[k][tx] for k below TILE_K",
                "C", r * got.shape[1] + c, got.shape)


EXERCISE = KernelExercise(
    stub="exercises/matmul_wide.cu", kernel="matmul_wide",
    signature="const float *A, const float *B, float *C, int M, int K, int N",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    observed=lambda kernels, case: _simulated(kernels, ""), observed_as="race-checked",
    simulated="runs the race check", before=_before, refine=_refine, read_past=_read_past, crash_hint=WORDS.guard_hint + ", and load 0 for the tiles' elements past "
    "the matrices' edges",
    array_hints={"A": "load only A's elements, 0 past its edges: As[ty][tx] = (row < M && a_col < K) "
                      "? A[row * K + a_col] : 0.0f",
                 "B": "load only B's elements, 0 past its edges: Bs[r][tx] = (b_row < K && col < N) "
                      "? B[b_row * N + col] : 0.0f"},
    success=f"C = A B matches NumPy ({len(CASES) - 1} shapes whose K and N are not multiples of "
            "the tiles'), no race between a phase's loads and its multiply-adds")

check_matmul_wide = EXERCISE.check_file          # (path="exercises/matmul_wide.cu")
check_matmul_wide_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
