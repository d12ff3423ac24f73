"""Checker for the exercise of notebook 08: ``cuda_src/exercises/matmul_bt.cu``.

``matmul_bt(A, Bt, C, M, K, N)`` computes C = A Bt^T (NumPy: ``A @ Bt.T``) in 16 x 16 tiles
through shared memory. Without its barriers it is right whenever its threads run in a friendly
order, so the race check on the simulator (``RACE_CASES``) runs last, whatever the backend, and
first when a result is wrong.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises import near, speed
from helpers.exercises.matmul_tiling import edge_threads_skipped_loads
from helpers.exercises.matmul_bt_phases import phases_past_k
from helpers.exercises.common import Output, declared_int, halves, whole_sums
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch, traced_back
from helpers.exercises.failure import Failure
from helpers.exercises.microscope import observe, race_mistake, syncwarp_between
from helpers.exercises.verdict import did_not_finish, matches
from helpers.exercises.origin import Wrong
from helpers.exercises.matmul_bt_models import (
    TILE, bt_k_guard_from_ty, c_rows_k_apart, guarded_by_the_column, guarded_by_the_other_side,
    index_from_the_other_thread_side, loads as _loads, loop_past_a_tile, phases_from_a_side,
    row_alone, row_from_blockidx_x,
    rows_apart as _rows_apart, store_guard_against_a_side, tiled as _tiled, tiles_transposed)

RTOL, ATOL = 1e-4, 1e-4


@dataclasses.dataclass(frozen=True)
class Case:
    M: int
    K: int
    N: int
    racecheck: bool = False   # run on the simulator with the race check, whatever the backend

    @property
    def grid(self):
        return -(-self.N // TILE), -(-self.M // TILE)


CASES = [Case(48, 32, 64), Case(37, 50, 21), Case(70, 45, 90), Case(0, 0, 0, racecheck=True)]
"""Sizes multiples of the tile (the indices alone), then not, K included; last the race check."""
RACE_CASES = [Case(20, 13, 18, racecheck=True), Case(20, 37, 18, racecheck=True)]
"""The race check's launches, small (one thread at a time on the instrumented build): a single
phase (K < 16: only the barrier between the loads and the products matters), then three."""
COALESCED, MAX_SECTORS, MAX_CONFLICTS = Case(32, 32, 32), 4.5, 0.5
"""What FAST allows on the simulator: sectors a global load request (4 when both tiles are read
along their rows of 128 bytes), bank conflicts a shared load request (none with Bs padded)."""
TARGET, BIG = 0.10, 2048
"""The fraction of the FMA ceiling FAST takes on a GPU, on M = K = N = BIG. On an H200
(2026-12-02): the solution 11.8 to 12.0%, Bt read down its columns 8.4%, Bs not padded 5.1%
(notebook 08's tiled kernel 12.7%, its naive one 8.4%)."""

LOAD_HINT = ("each load needs its own guard: A's element (row, k) exists when row < M && k < K, "
             "Bt's element (j, k) when j < N && k < K; load 0.0f otherwise, and store only "
             "if (row < M && col < N)")
INDEX_HINT = ("As[ty][tx] = A[row * K + phase * TILE + tx] and "
              "Bs[ty][tx] = Bt[(blockIdx.x * TILE + ty) * K + phase * TILE + tx] (each with its "
              "guard); then sum += As[ty][j] * Bs[tx][j]: row tx of Bs is column col of C")
COALESCE_HINT = ("load Bt's tile along its rows, as A's is: Bs[ty][tx] = Bt[(blockIdx.x * TILE + "
                 "ty) * K + phase * TILE + tx], so that threadIdx.x walks along k; then row tx of "
                 "Bs is this thread's column of C: sum += As[ty][j] * Bs[tx][j]")
ROWS_APART = ("the kernel read Bt's rows N elements apart (Bt[j * N + k]), but Bt is N x K: "
              "row j holds K elements", "element (j, k) of Bt is at j * K + k: "
              "Bt[bt_row * K + k]")
A_ROWS_APART = ("the kernel read A's rows M elements apart (A[row * M + k]), but A is M x K: "
                "each of its rows holds K elements", "element (row, k) of A is at row * K + k: "
                "A[row * K + k]")
PAD_HINT = ("declare __shared__ float Bs[TILE][TILE + 1]: the padding puts the 16 floats "
            "Bs[tx][j] that a warp reads at once in 16 different banks")


def _draw(rng):
    """The grader's cases: two more shapes, M, K and N none a multiple of the tile."""
    return [Case(*(awkward(rng, TILE, 1, 5 * TILE) for _ in range(3))) for _ in range(2)]


def _where(case):
    return ("after every result was right" if case.racecheck else f"M = {case.M}, K = {case.K}, "
            f"N = {case.N}, block = (16, 16, 1), grid = {case.grid}")


def _launch(case, k=None):
    """The launch on A (M x K), Bt (N x K), float32, k > K padding zero columns to k; model: A, Bt, C."""
    rng = np.random.default_rng(case.M * 10_000 + case.K * 100 + case.N)
    a, bt = (rng.uniform(-1, 1, (rows, case.K)).astype(np.float32) for rows in (case.M, case.N))
    return _launch_on(*(np.pad(x, ((0, 0), (0, max(k or 0, case.K) - case.K))) for x in (a, bt)))


def _launch_on(a, bt):
    """The launch on A and Bt as they are (the grid from their shapes)."""
    (m, k), n = a.shape, bt.shape[0]
    return Launch((a, bt, Output((m, n), guard=TILE * n + TILE), np.int32(m), np.int32(k),
                   np.int32(n)), block=(TILE, TILE, 1), grid=Case(m, k, n).grid,
                  model=(a, bt, a.astype(np.float64) @ bt.T))


def _mistakes(kernels, case):
    """Run one case (the race check's on the simulator); yield its mistakes."""
    if case.racecheck:
        yield from _races(kernels)
        return
    launch = _launch(case)
    got = yield from _result(kernels, launch)
    a, bt, want = launch.model
    if got is None or np.allclose(got, want, RTOL, ATOL):
        return
    if not got.any():
        yield from _sum_declared_int(kernels)
        yield ("C is all zeros: nothing was added to sum",
               "follow the TODOs: load both tiles, wait, add the TILE products, wait")
    yield from guarded_by_the_column(got, a, bt, RTOL, ATOL)   # before the race check's crash
    yield from guarded_by_the_other_side(got, a, bt, RTOL, ATOL)
    yield from bt_k_guard_from_ty(got, a, bt, RTOL, ATOL)
    yield from _races(kernels)
    yield from _tiles_not_shared(kernels)
    if np.allclose(got, _tiled(a, bt, as_down=True), RTOL, ATOL) and _transposed(kernels, "As"):
        yield ("A's tile was stored transposed: thread (tx, ty) wrote As[tx][ty] (the trace's "
               "stores into As), so row ty of As, which the products read, holds column ty of "
               "the tile, not this thread's row of A", "store the tile as it is loaded, "
               "As[ty][tx] = A[row * K + k]: ty picks the row, tx walks along k")
    if np.allclose(got, _tiled(a, bt, transposed=False), RTOL, ATOL) and _transposed(kernels):
        yield ("Bt's tile was stored transposed: thread (tx, ty) wrote Bs[tx][ty] (the trace's "
               "stores into Bs), so the products took column tx of the tile where row tx, this "
               "thread's column of C, belongs", "store the tile as it is loaded, Bs[ty][tx] = "
               "Bt[bt_row * K + k]: ty picks the row of Bt, tx walks along k")
    yield from phases_from_a_side(got, a, bt, lambda a, bt: EXERCISE.run(kernels, _launch_on(a, bt)))
    yield from matches(got, _known_results(a, bt),
                       lambda got, wrong: np.allclose(got, wrong, RTOL, ATOL))
    yield from _a_rows_apart(got, a, bt)
    bad = ~np.isclose(got, want, RTOL, ATOL)
    yield from edge_threads_skipped_loads(bad, (TILE, TILE), "Bt")
    yield from _past_column_k(kernels, case)
    yield from near.misses("C", got, want, close=near.within(RTOL, ATOL), index_hint=INDEX_HINT,
                           store="C[row * N + col] = sum")
    yield from matches(got, _loads(a, bt), lambda got, wrong: np.allclose(got, wrong, RTOL, ATOL))
    r, c = np.argwhere(bad)[0]
    yield from traced_back(kernels, launch, [Wrong(
        f"{int(bad.sum())} of {got.size} elements of C are wrong (the first is C[{r}][{c}] = "
        f"{got[r, c]:g}, expected {want[r, c]:g})", INDEX_HINT, "C", r * got.shape[1] + c,
        got.shape)])


def _sum_declared_int(kernels):
    """C all zeros: sum declared int, each add cut toward 0 (on the cases' elements, in (-1, 1),
    it stays 0), told by a launch on multiples of 0.5 (``halves``), whose sums are exact."""
    rng = np.random.default_rng(16)
    a, bt = halves(rng, (20, 37)), halves(rng, (18, 37))
    got = yield from _result(kernels, _launch_on(a, bt))
    if got is not None:
        yield from declared_int(got, whole_sums(a[:, None, :] * bt[None, :, :]),
                                a.astype(np.float64) @ bt.T, "sum", "C[{}][{}]", "float sum = 0.0f;")


SHARED_TILES = {"As": "__shared__ float As[TILE][TILE]", "Bs": "__shared__ float Bs[TILE][TILE + 1]"}


def _tiles_not_shared(kernels):
    """On the simulator (COALESCED, its first accesses kept: the first block's loads and
    products): a tile declared without __shared__ is each thread's own local array, in which
    only the element that thread loaded is set, and which the trace never sees in shared memory
    while the loads from A and Bt go on."""
    accesses = observe(kernels, _launch(COALESCED), key="shared tiles", accesses=4096).accesses
    if accesses is None or not {"A", "Bt"} <= {str(name) for name in accesses["array"]}:
        return
    seen = {str(name) for name in accesses["array"][accesses["shared"]]}
    missing = [tile for tile in SHARED_TILES if tile not in seen]
    if not seen:
        yield ("the kernel never touched shared memory: As and Bs declared without __shared__ are "
               "each thread's own arrays, which hold only the element that thread loaded, so the "
               "products read elements no thread stored there",
               f"declare both tiles in shared memory, one copy for the block: "
               f"{SHARED_TILES['As']}; {SHARED_TILES['Bs']};")
    elif len(missing) == 1 and seen == set(SHARED_TILES) - set(missing):
        tile = missing[0]
        yield (f"{tile} is not in shared memory (the trace saw {seen.pop()} there, never {tile}): "
               f"declared without __shared__, it is each thread's own array, which holds only "
               "the element that thread loaded, so the products read elements no thread stored "
               "there", f"declare it in shared memory, {SHARED_TILES[tile]}: one copy for the "
               "block, so that every thread reads the elements the others loaded")


def _transposed(kernels, tile="Bs") -> bool:
    """On the simulator (COALESCED, its first accesses kept): whether every store into the tile by
    thread (tx, ty) of the first block went to element tx * S + ty, S (the row's length, TILE or
    TILE + 1) read from thread (1, 0)'s."""
    accesses = observe(kernels, _launch(COALESCED), key="shared tiles", accesses=4096).accesses
    if accesses is None:
        return False
    mine = accesses[(accesses["array"] == tile) & accesses["write"] & (accesses["block"] == 0)]
    tx, ty, index = mine["thread"] % TILE, mine["thread"] // TILE, mine["index"]
    first = index[(tx == 1) & (ty == 0)]
    return bool(len(mine) and len(first) and first[0] >= TILE
                and (index == tx * first[0] + ty).all())


def _result(kernels, launch):
    """Launch the kernel (a generator: yields where it wrote wrong; returns C, None on a crash)."""
    run = yield from EXERCISE.run(kernels, launch)
    if run is None:
        return None
    yield from c_rows_k_apart(run, RTOL, ATOL)
    yield from store_guard_against_a_side(run, RTOL, ATOL)
    yield from index_from_the_other_thread_side(run, RTOL, ATOL)
    yield from row_from_blockidx_x(run, RTOL, ATOL)
    if run.out.past.size:
        yield ("the kernel wrote past the end of C", "threads outside C must not write: the grid "
               "is rounded up to whole tiles; store only if (row < M && col < N)")
    if run.out.unwritten.any():
        r, c = np.argwhere(run.out.unwritten)[0]
        yield (f"{int(run.out.unwritten.sum())} of {run.out.got.size} elements of C were never "
               f"written (the first is C[{r}][{c}])", "every thread inside C stores its sum once, "
               "after the loop over the phases: C[row * N + col] = sum")
    return run.out.got


def _known_results(a, bt):
    """(C, problem, hint) of known mistakes on a and bt."""
    k, n = a.shape[1], bt.shape[0]
    whole = (k // TILE) * TILE
    yield (a[:, :whole] @ bt[:, :whole].T, f"C is A @ Bt.T over the first {whole} of the K = {k} "
           "columns: the last phase, whose tile reaches past column K - 1, never ran",
           "round the number of phases up: (K + TILE - 1) / TILE")
    if (start := (-(-k // TILE) - 1) * TILE) > 0:   # several phases: the last one's alone
        yield (a[:, start:] @ bt[:, start:].T, f"each element of C holds only the last phase's "
               f"products, columns {start} to {k - 1} of K = {k}: sum was set back to 0 at the "
               "start of each phase, so the earlier phases' products were thrown away",
               "set sum = 0.0f once, before the phase loop, and let every phase add to it")
    m, full = a.shape[0], np.pad(a.astype(np.float64) @ bt.T, ((0, 0), (0, TILE)))
    by_ty = np.minimum(np.arange(n) // TILE * TILE + np.arange(m)[:, None] % TILE, n)
    yield (np.take_along_axis(full, by_ty, axis=1), "sum read Bs with the thread's row, Bs[ty][j]: "
           "row ty of Bs is column blockIdx.x * TILE + ty of C, not this thread's column (col = "
           "blockIdx.x * TILE + tx)", "row tx of Bs is this thread's column of C: sum += As[ty][j] "
           "* Bs[tx][j]")
    yield (tiles_transposed(a, bt), "each 16 x 16 tile of C came out transposed: the products "
           "swapped the tiles' roles, As[tx][j] * Bs[ty][j], so thread (tx, ty) summed row tx of "
           "As with row ty of Bs, the element of C at (blockIdx.y * TILE + tx, blockIdx.x * TILE "
           "+ ty), and stored it at (row, col)", "this thread's row of A is row ty of As and its "
           "column of C row tx of Bs: sum += As[ty][j] * Bs[tx][j]")
    if (last := -(-k // TILE) * TILE - 1) < k:   # the last phase's last product, inside A and Bt
        yield (np.outer(a[:, last], bt[:, last]), f"each element of C is the last product alone, "
               f"A[row][{last}] * Bt[col][{last}]: the inner loop assigned, sum = As[ty][j] * "
               "Bs[tx][j], so every turn threw away what sum held, where += adds each product to it",
               "add each product to the sum: sum += As[ty][j] * Bs[tx][j] (+=, not =)")
    if (n - 1) * n + k <= bt.size:   # else they run past Bt: _read_past names them
        yield (a @ _rows_apart(bt.ravel(), n, k).T, *ROWS_APART)
    yield (a @ bt.reshape(k, n), "the kernel read Bt as if it were B (a K x N matrix, element (k, "
           "col) at k * N + col)", "Bt is N x K: element (j, k) is at j * K + k. Load Bs[ty][tx] "
           "from row blockIdx.x * TILE + ty of Bt, column phase * TILE + tx")
    for change, problem, hint in (
            (dict(bt_row=lambda bx, by, ty, tx: by * TILE + ty), "Bt's tile was loaded from rows "
             "blockIdx.y * TILE + ty: the block's columns of C are rows of Bt, blockIdx.x * TILE "
             "+ ty", "int bt_row = blockIdx.x * TILE + threadIdx.y"),
            (dict(j=slice(0, TILE - 1)), "the inner loop stops one short: j < TILE - 1 leaves out each "
             "tile's last column", "for (int j = 0; j < TILE; j++)"),
            (dict(k_of=lambda p, ty, tx: p + tx), "the loads' column is phase + tx: each phase moves "
             "one column along K, not a tile", "int k = phase * TILE + tx"),
            (dict(as_down=True), "sum read As down a column, As[j][ty]: As[ty][tx] holds "
             "A[row][phase * TILE + tx], so this thread's row of A is row ty of As, not column ty",
             "sum += As[ty][j] * Bs[tx][j]: ty, the thread's row, first in As"),
            (dict(transposed=False), "the kernel multiplied by Bt's tile as loaded, not "
             "transposed: sum used Bs[j][tx], the notebook's read for a tile of B", "Bs[ty][tx] "
             "holds Bt[blockIdx.x * TILE + ty][phase * TILE + tx], so this thread's column of C "
             "(col = blockIdx.x * TILE + tx) is row tx of Bs: sum += As[ty][j] * Bs[tx][j]")):
        yield _tiled(a, bt, **change), problem, hint


def _a_rows_apart(got, a, bt):
    """A's rows read M apart where a read past A does not crash: C's rows that stay inside A."""
    (m, k), rows = a.shape, np.flatnonzero(np.arange(len(a)) * len(a) + a.shape[1] <= a.size)
    model = a.ravel()[rows[:, None] * m + np.arange(k)].astype(np.float64) @ bt.T
    if m != k and len(rows) > 1 and np.allclose(got[rows], model, RTOL, ATOL):
        yield A_ROWS_APART


def _read_past(run, name):
    """A read past Bt (A), run again with NaN after it: rows read N (M) apart; its load guarded
    by col < N; a load guarded by its row alone."""
    a, bt, _ = run.model
    yield from row_alone(run, name, RTOL, ATOL, _rows_past_read)
    if name == "Bt" and np.allclose(run.out.got, a @ _rows_apart(run.launch.args[1].host(),
                                                                   *bt.shape).T,
                                    RTOL, ATOL, equal_nan=True):
        yield ROWS_APART
    yield from guarded_by_the_column(run.out.got, a, bt, RTOL, ATOL, (name,))
    if name == "A" and np.allclose(run.out.got, _rows_apart(run.launch.args[0].host(),
                                                            *a.shape) @ bt.T,
                                   RTOL, ATOL, equal_nan=True):
        yield A_ROWS_APART


def _rows_past_read(kernels) -> bool:
    """On the simulator, a launch whose K is a multiple of the tile (no k past K - 1) and M and N
    not: whether the kernel read past an input's end, which only a thread whose row lies past
    that matrix's last reaches there."""
    error = observe(kernels, _launch(Case(20, 32, 18)), key="rows past", racecheck=False).error
    return getattr(error, "is_write", None) is False


def _past_column_k(kernels, case):
    """Right with K padded by zeros to a multiple of the tile, wrong without: the last tile's
    elements past column K - 1 are not 0."""
    if case.K % TILE == 0:
        return
    launch = _launch(case, -(-case.K // TILE) * TILE)
    got = yield from _result(kernels, launch)
    if got is not None and np.allclose(got, launch.model[2], RTOL, ATOL):
        yield ("C is right when K is a multiple of 16 (with A and Bt padded by zero columns), "
               f"and wrong for K = {case.K}: the last phase's tile holds something other than 0 "
               "past column K - 1",
               "load 0.0f into As and Bs where k >= K: an if without an else leaves the previous "
               "phase's values there, and reading without the guard takes the next row's")


def _traced(kernels):
    """On the simulator, on COALESCED: a warp reads two rows of 16 floats of a tile (4 sectors
    for A's and Bt's, 16 for Bt's read down its columns); an unpadded Bs puts them in 2 banks."""
    stats = observe(kernels, _launch(COALESCED), key="coalescing").stats
    sectors = stats.global_ld.sectors_per_request
    conflicts = stats.shared_ld.bank_conflicts / max(stats.shared_ld.requests, 1)
    if sectors > MAX_SECTORS:
        yield (f"the tiles' loads are not coalesced: on the simulator (M = K = N = 32) your loads "
               f"from global memory take {sectors:.1f} sectors a request on average, where "
               "neighbouring threads reading neighbouring floats take 4", COALESCE_HINT)
    if conflicts > MAX_CONFLICTS:
        yield (f"on the simulator (M = K = N = 32) the tiles' reads have {conflicts:.1f} bank "
               "conflicts a request, where a padded Bs has none", PAD_HINT)
    return (f"on the simulator the loads took {sectors:.1f} sectors a request and the shared "
            f"reads {conflicts:.1f} bank conflicts")


def _timed(kernel):
    """On a GPU: the rate of the BIG product, against the FMA ceiling."""
    rng, n = np.random.default_rng(8), np.int32(BIG)
    a, bt = (rng.random((BIG, BIG), np.float32) for _ in range(2))
    launch = Launch((a, bt, np.empty((BIG, BIG), np.float32), n, n, n), (TILE, TILE, 1),
                    Case(BIG, BIG, BIG).grid)
    return (yield from speed.arithmetic(speed.launched(kernel, launch), 2 * BIG ** 3, TARGET,
                                        f"{COALESCE_HINT}; and {PAD_HINT}"))


def _races(kernels):
    """The mistakes of the race check's launches on the simulator (RACE_CASES), a __syncwarp()
    between the two accesses first. With a single phase, a race on the tiles is between the loads
    and the products; with several, between one phase's products and the next phase's loads."""
    for case in RACE_CASES:
        error = observe(kernels, _launch(case), key=f"race {case}").error
        if error is None:
            continue
        for problem, hint in syncwarp_between(kernels, Failure(error, (TILE, TILE, 1))):
            yield (f"{problem}, found by the race check on the simulator with M = {case.M}, "
                   f"K = {case.K}, N = {case.N}"), hint   # a __syncwarp() between the two
        problem, hint = ((did_not_finish(error), "a loop whose condition never becomes false: "
                          "check the phase loop and the inner loop") if error.kind == "time limit"
                         else race_mistake(error, "two threads wrote the same element of C: a "
                                           "thread outside C wrote into the next row. Store only "
                                           "if (row < M && col < N)"))
        if error.kind not in ("race", "time limit"):
            hint = LOAD_HINT
        elif error.kind == "race" and error.space == "shared" and \
                error.hazard != "write-after-write":   # not C, nor an index in a tile
            hint = ("a thread read the tile before another thread had loaded its part: put "
                    "__syncthreads() between the loads and the loop that reads As and Bs (TODO 3)"
                    if case.K <= TILE else "the next phase's loads overwrote the tile while "
                    "another thread was still reading it: put __syncthreads() after the loop that "
                    "reads As and Bs, at the end of each phase (TODO 5)")
        yield (f"{problem.rstrip('.')}, found by the race check on the simulator with "
               f"M = {case.M}, K = {case.K}, N = {case.N}"), hint


EXERCISE = KernelExercise(
    stub="exercises/matmul_bt.cu", kernel="matmul_bt",
    signature="const float *A, const float *Bt, float *C, int M, int K, int N", cases=CASES,
    draw=_draw, where=_where, detect=_mistakes, crash_hint=LOAD_HINT, read_past=_read_past,
    refine=loop_past_a_tile, after=lambda kernels, passed: phases_past_k(
        kernels, passed, lambda k: _launch(Case(TILE, k, TILE))),
    simulated="runs the race check", fast=speed.rule(_timed, _traced),
    success=f"C = A @ Bt.T for {len(CASES) - 1} shapes (sides and K not multiples of 16 among "
            "them), nothing written outside C, no race found by the race check")

check_matmul_bt = EXERCISE.check_file          # (path="exercises/matmul_bt.cu")
check_matmul_bt_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): on a compiled kernel
