"""The NumPy models of ``helpers.exercises.matmul_wide``'s kernel (C = A B in 8 x 32 tiles of C,
phases 32 deep): sums that take in only some k (``summed``), phases whose tiles hold other columns
of A or rows of B (``phased``), A read with its rows another length apart (``rows_apart``), B's
tile taken transposed (``crossed``), the tiles indexed wrongly (``indexed``; A's column from ty:
``a_column_from_ty``), with the mistakes' words that more than one detector gives; a race in Bs
between two rows of threads a few rows apart (``neighbouring_rows``); the block indices swapped
in row and col (``blocks_swapped``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises import matmul_tiling
from helpers.exercises.common import Output, declared_int, halves, whole_sums
from helpers.exercises.coverage import Grid
from helpers.exercises.kernel import Launch

ROWS_APART = ("A's rows were read N elements apart (A[row * N + a_col]), but A is M x K: a row "
              "of A holds K elements", "element (row, k) of A is at row * K + k: "
              "A[row * K + a_col]")


def tile_k_apart(k):
    """The mistake of A's rows read TILE_K apart, the tile's width for A's row length."""
    return (f"A's rows were read TILE_K = 32 elements apart (A[row * TILE_K + a_col]), but A is "
            f"M x K: a row of A holds K = {k} elements", "element (row, k) of A is at row * K + "
            "k: A[row * K + a_col]; TILE_K is the tile's width, not the length of A's rows")



A_GUARD_N = ("A's guard tests a_col against N, but A is M x K: its tile took elements past the "
             "end of each row", "As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f")


def summed(a, b, ks):
    """C as a kernel computes it whose sums take in only the k where ``ks`` (of K; or (M, K),
    one row of C's k a row) is True."""
    return (a.astype(np.float64) * ks) @ b


def part(x, rows):
    """The rows ``rows`` of x, 0 for those past its last."""
    return np.where((rows < len(x))[:, None], x[np.minimum(rows, len(x) - 1)], 0.0)


def phased(a, b, a_col, b_row):
    """C as phases 32 deep compute it whose tile of A holds columns ``a_col(phase, t)`` and
    whose Bs rows hold B's rows ``b_row(phase, t)`` (t below 32; 0 past A's or B's edge)."""
    t = np.arange(32)
    return sum(part(a.T, a_col(p, t)).T @ part(b, b_row(p, t)) for p in range(-(-a.shape[1] // 32)))


def rows_apart(flat, m, k, n):
    """A (m x k) as a kernel reads it whose rows are n elements apart in ``flat`` (NaN past it)."""
    return np.append(flat, np.nan)[np.minimum(np.arange(m)[:, None] * n + np.arange(k), flat.size)]



def crossed(a, b):
    """C as a kernel computes it whose products take each phase's tile of B transposed: Bs read
    as Bs[tx][k], or (the same C) stored as Bs[tx][r]."""
    (m, k), n = a.shape, b.shape[1]
    phases, tiles = -(-k // 32), -(-n // 32)
    a_pad, b_pad = np.zeros((m, 32 * phases)), np.zeros((32 * phases, 32 * tiles))
    a_pad[:, :k], b_pad[:k, :n] = a, b
    return np.hstack([sum(a_pad[:, 32 * p:32 * p + 32] @ b_pad[32 * p:32 * p + 32,
                                                               32 * t:32 * t + 32].T
                          for p in range(phases)) for t in range(tiles)])[:, :n]



def _b_layouts(a, b):
    """(C, problem, hint) of the kernels that read B with its rows K apart, or by columns."""
    k, n = b.shape
    rows_k = np.arange(k)[:, None] * k + np.arange(n)[None, :]
    yield (a @ b.ravel()[rows_k] if rows_k.max() < b.size else None,
           "B's rows were taken K elements apart (B[b_row * K + col]): a row of B holds N",
           "Bs[r][tx] = B[b_row * N + col]")
    yield (a @ b.ravel().reshape(n, k).T, "B was read as if stored by columns, B[col * K + "
           "b_row] (column col as K elements in a row), but B is K x N stored by rows: its element "
           "(b_row, col) is at b_row * N + col, so each sum met the wrong elements of B",
           "Bs[r][tx] = B[(phase * TILE_K + r) * N + col], B[b_row * N + col]: a row of B is N "
           "elements long")


def indexed(a, b):
    """(C, problem, hint) of the kernels that index a tile wrongly: A's rows taken N apart,
    B's rows taken K apart, B read by columns (col * K + b_row), B's guard testing col against K or M, A's tile read from column phase +
    tx, a phase's tile of A or B starting TILE_M (not TILE_K) on from the last one's, Bs rows loaded from ty alone, Bs read as Bs[tx][k] (None where such a kernel reads past
    A or B, or computes C)."""
    (m, k), n = a.shape, b.shape[1]
    yield (rows_apart(a.ravel(), m, k, n) @ b if (m - 1) * n + k <= a.size else None,
           *ROWS_APART)
    yield (rows_apart(a.ravel(), m, k, 32) @ b if (m - 1) * 32 + k <= a.size else None,
           *tile_k_apart(k))
    yield from _b_layouts(a, b)
    for name, bound, what in (("K", k, "B's number of rows"), ("M", m, "A's number of rows")):
        yield (np.where(np.arange(n) < bound, a @ b, 0.0) if n > bound else None,
               f"C's columns {name} and past ({bound} to {n - 1}) are 0, the rest right: B's guard "
               f"tests col against {name} = {bound}, {what}, but B is K x N: its columns {bound} "
               f"to {n - 1} were loaded as 0", "B's columns run below N: Bs[r][tx] = (b_row < K "
               "&& col < N) ? B[b_row * N + col] : 0.0f")
    yield (phased(a, b, lambda p, t: p + t, lambda p, t: p * 32 + t), "A's tile starts at "
           "column phase, not phase * TILE_K: the phases' tiles of A overlap",
           "a_col = phase * TILE_K + tx")
    for guarded in (lambda p, t: np.where(p * 32 + t < k, t, k), lambda p, t: t):
        yield (phased(a, b, guarded, lambda p, t: p * 32 + t), "every phase read A's first "
               "TILE_K columns again: A's column in the load was tx, without the phase's offset, "
               "so each phase's tile of B met A's columns 0 to 31",
               "A's column is phase * TILE_K + tx: As[ty][tx] = (row < M && a_col < K) ? "
               "A[row * K + a_col] : 0.0f, with a_col = phase * TILE_K + tx")
    for a_step, b_step, tile, fix in ((32, 8, "B's tile starts at row", "b_row = phase * TILE_K + r"),
                                      (8, 32, "A's tile starts at column", "a_col = phase * TILE_K + tx")):
        yield (phased(a, b, lambda p, t: p * a_step + t, lambda p, t: p * b_step + t),
               f"{tile} phase * TILE_M = phase * 8, not phase * TILE_K: a phase goes 32 deep "
               f"along k, so the phases' tiles of {tile[0]} overlap and fall behind the other's",
               f"{fix}: a phase is TILE_K deep in A and in B alike")
    yield (phased(a, b, lambda p, t: p * 32 + t, lambda p, t: p * 32 + t % 8), "Bs rows were "
           "loaded with b_row from ty: rows r = ty, ty + 8, ty + 16, ty + 24 of Bs all hold row "
           "phase * TILE_K + ty of B", "int b_row = phase * TILE_K + r, from the loop's r")
    yield (phased(a, b, lambda p, t: p * 32 + t, lambda p, t: p * 32 + t // 8 * 8), "Bs rows "
           "were loaded with b_row missing the thread's ty: rows r + ty of Bs, for r = 0, 8, 16, "
           "24, all hold row phase * TILE_K + r of B", "the row of B that goes into Bs[r + ty] "
           "is int b_row = phase * TILE_K + r + ty")
    yield (phased(a, b, lambda p, t: p * 32 + t, lambda p, t: p * 32 + t + t % 8), "B's row "
           "counted ty twice: Bs row r, for r = ty, ty + 8, ..., held B's row phase * TILE_K + "
           "ty + r, b_row = phase * TILE_K + ty with r added to it, but r already starts at ty",
           "the row of B that goes into Bs[r] is phase * TILE_K + r: int b_row = phase * "
           "TILE_K + r inside the loop over r")
    yield (crossed(a, b), "the products read Bs[tx][k], Bs across: Bs holds a phase's rows of B, k "
           "down and the thread's column across", "sum += As[ty][k] * Bs[k][tx]")
    c = a.astype(np.float64) @ b
    yield (c[:, np.arange(n) % 32], "B's tile was read from column tx, not col: every block's "
           "Bs held columns 0 to 31 of B, so column c of C came out column c % 32's",
           "Bs[r][tx] = B[b_row * N + col], with col = blockIdx.x * TILE_N + tx: the block's "
           "columns of B")
    yield (c[np.arange(m) % 8], "A's tile was read from row ty, not row: every block's As held "
           "rows 0 to 7 of A, so row r of C came out row r % 8's", "As[ty][tx] = A[row * K + "
           "a_col], with row = blockIdx.y * TILE_M + ty: the block's rows of A")
    at_ty = np.arange(n) // 32 * 32 + np.arange(m)[:, None] % 8   # column bx * TILE_N + ty
    yield (np.where(at_ty < n, np.pad(c, ((0, 0), (0, 32)))[np.arange(m)[:, None], at_ty], 0.0),
           "the products read Bs[k][ty], Bs at column ty, where this thread's column of B is tx: "
           "every thread of a row of C summed with column blockIdx.x * TILE_N + ty of B, so "
           "C[row][col] came out C[row][blockIdx.x * TILE_N + ty]'s",
           "the column of Bs is the thread's tx, as col's is: sum += As[ty][k] * Bs[k][tx]")


def a_column_from_ty(a, b, tile_m=8, tile_k=32):
    """(C, problem, hint) of A's tile loaded at column phase * TILE_K + ty, ty where tx belongs:
    row ty of As holds one element of A, A[row][phase * TILE_K + ty] (0 past K), 32 times, so a
    phase adds that element times the sum of the phase's rows of B."""
    k, rows = a.shape[1], np.arange(a.shape[0])[:, None]
    cols = np.arange(-(-k // tile_k))[None, :] * tile_k + rows % tile_m   # (row, phase)
    a_at = np.where(cols < k, a[rows, np.minimum(cols, k - 1)], 0.0)
    return (a_at @ np.add.reduceat(b.astype(np.float64), np.arange(0, k, tile_k)),
            "A's tile was loaded at column phase * TILE_K + ty: a_col took ty where tx belongs, "
            "so every element of row ty of As held the same element of A, A[row][phase * TILE_K "
            "+ ty], and each phase multiplied it by every row of its tile of B", "As[ty][tx] "
            "holds A's column phase * TILE_K + tx, one for each tx (Bs's rows k run along it): "
            "int a_col = phase * TILE_K + tx")


def error_line(kernels, err):
    """The text (comments cut) of the line the simulator's error (read by its fields) names, in the
    learner's source (the simulated twin's, numbered as the compiler numbers it): (number, text),
    or None."""
    from helpers.exercises.unset import line_text

    if not getattr(err, "line", None):
        return None
    file, number = err.line.rsplit(":", 1)
    text = line_text(kernels, number, file)
    return None if text is None else (number, text.split("//")[0])


def bs_at_global_column(kernels, err):
    """Bs indexed at C's global column, Bs[..][col], where the thread's place in the tile, tx,
    belongs: the simulator's bounds check (``err``, read by its fields) shows a thread of a block
    past column block 0 index a row of 32 (the error names no array) at blockIdx.x * 32 + tx, on
    a line of the learner's source (``error_line``) that indexes Bs with col.
    The (problem, hint), or None."""
    import re

    if getattr(err, "kind", None) != "array bounds" or err.array not in (None, "Bs") or err.length != 32 or \
            not err.block or not err.thread or \
            err.block[0] < 1 or err.element != err.block[0] * 32 + err.thread[0]:
        return None
    number, text = error_line(kernels, err) or (None, "")
    found = re.search(r"Bs\s*\[\s*(\w+)\s*\]\s*\[\s*col\s*\](\s*=(?!=))?", text)
    if found is None or re.search(r"As\s*\[[^]]*\]\s*\[\s*col\s*\]", text):
        return None
    row, stored = found.group(1), found.group(2) is not None
    where = (f"Bs[{row}][col] {'stores into' if stored else 'reads'} Bs at C's global column "
             f"col = blockIdx.x * TILE_N + tx: thread {tuple(err.thread)} of block "
             f"{tuple(err.block)} {'wrote' if stored else 'read'} column {err.element}, past Bs's "
             f"32 columns (TILE_N, 0 to 31), at line {number}")
    hint = ("Bs holds the block's 32 columns, a thread's at its place in the tile: " +
            (f"Bs[{row}][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f" if stored
             else f"sum += As[ty][{row}] * Bs[{row}][tx]"))
    return where, hint


def bs_rows_past_tile_k(kernels, err):
    """The loop over Bs's rows run one row too far (r <= TILE_K): the simulator's bounds check
    (``err``) shows a thread of the block's first row, ty = 0 (rows 0, 8, 16, 24, then 32),
    index a 32 x 32 array at 32 on a line that stores into Bs[r][..] (``error_line``), r not
    tx nor col. The (problem, hint), or None."""
    import re

    if getattr(err, "kind", None) != "array bounds" or err.array not in (None, "Bs") or \
            err.declared != "float [32][32]" or err.element != 32 or not err.thread or err.thread[1] != 0:
        return None
    number, text = error_line(kernels, err) or (None, "")
    found = re.search(r"Bs\s*\[\s*(\w+)\s*\]\s*\[[^]]*\]\s*=(?!=)", text)
    if found is None or found.group(1) in ("tx", "col"):
        return None
    r = found.group(1)
    return (f"the loop over Bs's rows ran one row too far: thread {tuple(err.thread)} of block "
            f"{tuple(err.block or (0, 0, 0))}, ty = 0, whose rows are {r} = 0, 8, 16, 24, went on "
            f"to {r} = 32 and stored Bs[32][tx] at line {number}, one row past Bs's TILE_K = 32 "
            f"rows (0 to 31): the loop's test lets {r} = TILE_K through (as {r} <= TILE_K does)",
            f"Bs's rows run below TILE_K: for (int {r} = ty; {r} < TILE_K; {r} += TILE_M)")


def rows_k_apart_store(got, unwritten, want, k):
    """C stored with its rows K elements apart, C[row * K + col] where a row of C holds N (where
    K < N, no store past C): the elements never written are exactly those no row * K + col
    reaches, and every element one thread alone stored holds that thread's C[row][col] (where
    two threads' stores met, either may land last on a GPU: those are not compared). The
    (problem, hint), or None."""
    (m, n), flat = got.shape, (np.arange(got.shape[0])[:, None] * k + np.arange(got.shape[1])).ravel()
    if k >= n or not unwritten.any():
        return None
    hits = np.bincount(flat, minlength=m * n)
    once = np.flatnonzero(hits[flat] == 1)
    if not np.array_equal(unwritten.ravel(), hits == 0) or \
            not np.allclose(got.ravel()[flat[once]], want.ravel()[once], rtol=1e-4, atol=1e-4):
        return None
    r, c = divmod(int(np.flatnonzero(hits == 0)[0]), n)
    return (f"C's rows were stored K = {k} elements apart, C[row * K + col], but C is M x N, a row "
            f"of C holds N = {n} elements: the rows overlapped (C[row][col] for col >= K landed "
            f"on the next row's first elements) and the last {int((hits == 0).sum())} of C's "
            f"{m * n} elements were never written (the first C[{r}][{c}])",
            "a row of C is N elements long: C[row * N + col] = sum")


def rows_from_zero(race, stores):
    """Two rows of threads that stored into one element of Bs (the race check's ``race``), where
    the trace's stores (``stores()``: (tx, ty, element) of each store into Bs, or None) show every
    thread (tx, ty), whatever its ty, storing rows 0, 8, 16 and 24 of column tx: the loop over
    Bs's rows started at 0, not ty."""
    if race is None or race.array != "Bs" or race.hazard != "write-after-write" or \
            race.element is None or (found := stores()) is None:
        return
    tx, ty, index = found
    rows = {y: set((index[ty == y] // 32).tolist()) for y in range(8)}
    if not len(index) or not (index % 32 == tx).all() or \
            any(got != {0, 8, 16, 24} for got in rows.values()):
        return
    (a, b), element = sorted((race.first.thread[1], race.second.thread[1])), race.element
    yield (f"every row of threads stored the same rows of Bs, 0, 8, 16 and 24: the race check "
           f"found Bs[{element}] stored by the threads of rows ty = {a} and ty = {b} "
           f"({race.first.who} and {race.second.who}), and the trace shows every thread (tx, ty) "
           "storing rows 0, 8, 16 and 24 of column tx whatever its ty: the loop over Bs's rows "
           "starts at r = 0, not at ty, so the other 28 rows of Bs (1 to 7, 9 to 15, 17 to 23, "
           "25 to 31) are never loaded", "a thread's rows of Bs start at its row in the block, "
           "ty, and lie TILE_M = 8 apart: for (int r = ty; r < TILE_K; r += TILE_M)")


def stale_last_phase(got, a, b, tile=32):
    """C with the last, partial phase's products past K taken from the phase before's elements:
    the tiles' loads guarded by an if with no else, so As[ty][K - start ..] and Bs[K - start ..]
    [tx] keep what that phase stored there (start: the last phase's first k, K not a multiple of
    ``tile``, two phases or more)."""
    k = a.shape[1]
    start, rest = k // tile * tile, k % tile
    if not rest or start < tile:
        return
    ks = np.ones(k)
    ks[k - tile:start] += 1   # k - tile for each k past K in the last phase, added again
    if not np.allclose(got, summed(a, b, ks), rtol=1e-4, atol=1e-4):
        return
    end, old = f"{rest}..{tile - 1}", f"{k - tile}..{start - 1}"
    yield (f"in the last phase (k = {start} to {start + tile - 1}, K = {k}) As[ty][{end}] and "
           f"Bs[{end}][tx] were not written, so they still held the phase before's elements "
           f"(A[row][{old}], B[{old}][col]), and their products were added to sum: the loads' "
           "guards skip the store where they fail, instead of storing 0", "store 0.0f where "
           "the guard fails: As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f; "
           "likewise Bs[r][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f")


def sum_declared_int(run, kernels):
    """C all zeros: sum declared int, each add cut toward 0 (on the cases' elements, in (-1, 1),
    it stays 0), told by ``run`` (the exercise's) of a launch on multiples of 0.5 (``halves``),
    whose products and sums are exact: the int's sums added in k's order, phase by phase."""
    rng = np.random.default_rng(16)
    a, b = halves(rng, (20, 37)), halves(rng, (37, 18))
    got = _launched(run, kernels, a, b)
    if got is not None:
        yield from declared_int(got, whole_sums(a[:, None, :] * b.T[None]),
                                a.astype(np.float64) @ b, "sum", "C[{}][{}]", "float sum = 0.0f;")


def _launched(run, kernels, a, b):
    """C as ``run`` (the exercise's) computes it from ``a`` and ``b``; None where the launch
    showed a mistake of its own (a crash)."""
    (m, k), n = a.shape, b.shape[1]
    grid = Grid(m, n, (32, 8, 1))
    return matmul_tiling.result_of(run(kernels, Launch((a, b, Output((m, n), guard=grid.span()),
                                                        np.int32(m), np.int32(k), np.int32(n)),
                                                       (32, 8, 1), grid.grid)))


def phases_from_a_side(got, model, case, run, kernels):
    """Sums cut after the phases that N (or M) needs, fewer than K needs
    (``matmul_tiling.phases_from_a_side``), on ``run``'s (the exercise's) launches."""
    (a, b), k = model, case[1]

    def probe(m, k, n):
        rng = np.random.default_rng(31)
        pa, pb = (rng.uniform(-1, 1, shape).astype(np.float32) for shape in ((m, k), (k, n)))
        seen = _launched(run, kernels, pa, pb)
        return None if seen is None else (seen, lambda c: summed(pa, pb, np.arange(k) < c))

    yield from matmul_tiling.phases_from_a_side(got, lambda c: summed(a, b, np.arange(k) < c),
                                                case[:3], 32, probe, "TILE_K")


def neighbouring_rows(race, rows=4):
    """Two rows of threads that stored into one row of Bs, both within ``rows`` (TILE_K /
    TILE_M) of their ty: each thread loaded rows ty to ty + 3, not ty, ty + 8, ..."""
    if race is None or race.array != "Bs" or race.hazard != "write-after-write" or \
            race.element is None:
        return
    row, (a, b) = race.element // 32, sorted((race.first.thread[1], race.second.thread[1]))
    if a < b <= row < a + rows:
        yield (f"each thread loaded {rows} neighbouring rows of Bs, r = ty to ty + {rows - 1}: "
               f"the race check found Bs row {row} (Bs[{race.element}]) stored by the threads "
               f"of rows ty = {a} and ty = {b} ({race.first.who} and {race.second.who}), so "
               f"the 8 rows of threads loaded only rows 0 to {7 + rows - 1} of Bs, rows 1 to "
               f"{7 + rows - 2} more than once, and rows {7 + rows} to 31 not at all",
               "a thread's rows of Bs lie TILE_M = 8 apart, r = ty, ty + 8, ty + 16, ty + 24: "
               "for (int r = ty; r < TILE_K; r += TILE_M)")


def wide_step(words):
    """(variable, step) of the first for loop in the kernel body's ``words`` whose step, as
    written, adds 32 to its variable: blockDim.x, TILE_N, TILE_K or 32; None where none does."""
    for i in (i for i, word in enumerate(words) if word == "for"):
        depth, j = 0, i + 1
        while j < len(words) and (depth := depth + {"(": 1, ")": -1}.get(words[j], 0)):
            j += 1
        step = words[i + 2:j]
        step = step[len(step) - step[::-1].index(";"):] if ";" in step else []
        if len(step) > 2 and step[1] == "+=" and "".join(step[2:]) in WIDE_STEPS:
            return step[0], "".join(step[2:])
    return None


WIDE_STEPS = ("blockDim.x", "TILE_N", "TILE_K", "32")


def blocks_swapped(unwritten, right, grid, tiles=(8, 32)):
    """row = blockIdx.x * TILE_M + ty and col = blockIdx.y * TILE_N + tx: the block indices
    swapped, on a ``grid`` (gx, gy) laid over C's columns and rows. The elements written are
    then rows below gx * TILE_M and columns below gy * TILE_N, each right (``right``: a mask)."""
    (m, n), (gx, gy), (tile_m, tile_n) = unwritten.shape, grid, tiles
    rows, cols = np.arange(m) < gx * tile_m, np.arange(n) < gy * tile_n
    written = rows[:, None] & cols
    if written.all() or not written.any() or not np.array_equal(~unwritten, written) or \
            not right[written].all():
        return
    lost = [f"{what} {reach} to {side - 1}" for what, reach, side in
            (("rows", gx * tile_m, m), ("columns", gy * tile_n, n)) if reach < side]
    yield (f"row took blockIdx.x and col blockIdx.y, swapped: the grid's x, {gx} blocks, runs "
           f"across C's {n} columns and its y, {gy} blocks, down its {m} rows, so row = "
           f"blockIdx.x * TILE_M + ty reached only rows below {gx} * 8 = {gx * tile_m} and col = "
           f"blockIdx.y * TILE_N + tx columns below {gy} * 32 = {gy * tile_n}: C's "
           f"{' and '.join(lost)} were never written ({int(unwritten.sum())} of "
           f"{unwritten.size} elements)", "blockIdx.x counts the blocks across C's columns, "
           "blockIdx.y down its rows: row = blockIdx.y * TILE_M + ty, col = blockIdx.x * TILE_N + tx")
