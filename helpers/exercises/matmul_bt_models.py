"""The NumPy models of ``helpers.exercises.matmul_bt``'s kernel (C = A Bt^T in 16 x 16 tiles):
the tiles computed with their loads, reads or inner loop changed (``tiled``), the known
mistakes of the loads (``loads``), each tile of C transposed (``tiles_transposed``), a load
guarded by its row alone (``k_unguarded``; ``row_alone``, or by either index inside), or by the
thread's column (``guarded_by_the_column``), and Bt's guarded on k by ty (``bt_k_guard_from_ty``); C stored with rows K apart (``c_rows_k_apart``), or
with the store's guard against another size (``store_guard_against_a_side``); a loop over a
tile's columns run past them (``loop_past_a_tile``)."""

from __future__ import annotations

import numpy as np

from helpers.exercises import matmul_tiling

TILE = 16


def tiled(a, bt, bt_row=lambda bx, by, ty, tx: bx * TILE + ty,
           a_row=lambda bx, by, ty, tx: by * TILE + ty, k_of=lambda p, ty, tx: p * TILE + tx,
           j=slice(0, TILE), transposed=True, as_down=False, a_by_col=False, a_k_of=None,
           bt_by_col=False):
    """C as the solution's tiles compute it, with the tiles' element [ty][tx] loaded from row
    ``bt_row(blockIdx.x, blockIdx.y, ty, tx)`` of Bt (``a_row`` of A), column ``k_of(phase,
    ty, tx)`` (0 past the edges), the inner loop over ``j`` (a slice), Bs read as Bs[tx][j]
    (``transposed``) or Bs[j][tx], and As as As[ty][j] or (``as_down``) As[j][ty]; A's load
    guarded by its row, or (``a_by_col``) by the thread's column, blockIdx.x * TILE + tx < N
    (Bt's, ``bt_by_col``);
    A's element read from column ``a_k_of(phase, ty, tx)`` where given (still guarded by k_of's)."""
    (m, k), n = a.shape, bt.shape[0]
    ty, tx = np.arange(TILE)[:, None], np.arange(TILE)[None, :]
    c = np.zeros((-(-m // TILE) * TILE, -(-n // TILE) * TILE))
    for by, bx in np.ndindex(c.shape[0] // TILE, c.shape[1] // TILE):
        for p in range(-(-k // TILE)):
            cols = k_of(p, ty, tx) + 0 * ty
            a_cols = (a_k_of or k_of)(p, ty, tx) + 0 * ty
            tiles = [np.where((bx * TILE + tx < len(bt) if live else r < len(x)) & (cols < k),
                              x[np.minimum(r, len(x) - 1), np.minimum(at, k - 1)], 0)
                     for r, x, live, at in ((a_row(bx, by, ty, tx) + 0 * tx, a, a_by_col, a_cols),
                                            (bt_row(bx, by, ty, tx) + 0 * tx, bt, bt_by_col, cols))]
            c[by * TILE:by * TILE + TILE, bx * TILE:bx * TILE + TILE] += \
                (tiles[0].T if as_down else tiles[0])[:, j] @ \
                (tiles[1][:, j].T if transposed else tiles[1][j])
    return c[:m, :n]


def loads(a, bt):
    """(C, problem, hint) of the kernels whose tiles are loaded from the wrong row or column, or
    whose inner loop starts at 1, or that add As and Bs where they multiply."""
    for change, problem, hint in (
            (dict(bt_row=lambda bx, by, ty, tx: tx * TILE + ty), "Bt's tile was loaded from rows "
             "threadIdx.x * TILE + ty", "the block's columns of C are rows of Bt: int bt_row = "
             "blockIdx.x * TILE + ty"),
            (dict(bt_row=lambda bx, by, ty, tx: bx * TILE + tx), "Bt's tile was loaded from rows "
             "blockIdx.x * TILE + tx", "Bs[ty][tx] = Bt[(blockIdx.x * TILE + ty) * K + phase * "
             "TILE + tx]: ty picks the row, tx walks along k"),
            (dict(a_row=lambda bx, by, ty, tx: bx * TILE + ty), "A's tile was loaded from rows "
             "blockIdx.x * TILE + ty", "this thread's row of C is row = blockIdx.y * TILE + ty: "
             "As[ty][tx] = A[row * K + phase * TILE + tx]"),
            (dict(k_of=lambda p, ty, tx: p * TILE + ty), "the tiles were loaded from column "
             "phase * TILE + ty", "int k = phase * TILE + tx: tx walks along k"),
            (dict(a_k_of=lambda p, ty, tx: p * TILE + ty), "A's tile was loaded from column "
             "phase * TILE + ty: every element of row ty of As holds the same A[row][phase * TILE "
             "+ ty], one column of A where the row's TILE columns belong", "read A at the guard's "
             "column, k = phase * TILE + tx: As[ty][tx] = A[row * K + k], tx walking along k"),
            (dict(a_k_of=lambda p, ty, tx: p + tx), "A's tile was loaded from column phase + "
             "tx: phase counts the tiles, so phase p's tile of A started p columns in, not p * "
             "TILE (each phase took A's first columns again, shifted by one)", "a phase's tile "
             "starts phase * TILE columns in: As[ty][tx] = A[row * K + phase * TILE + tx]"),
            (dict(j=slice(1, TILE)), "the inner loop starts at j = 1: each tile's first column's "
             "product is left out", "for (int j = 0; j < TILE; j++)")):
        yield tiled(a, bt, **change), problem, hint
    yield (a.sum(axis=1)[:, None] + bt.sum(axis=1)[None, :], "each element of C is the sum of "
           "its row of A plus its row of Bt: sum added As[ty][j] + Bs[tx][j]",
           "multiply: sum += As[ty][j] * Bs[tx][j]")


def tiles_transposed(a, bt):
    """C whose every 16 x 16 tile is transposed within itself: thread (tx, ty) summed As[tx][j]
    * Bs[ty][j], element (blockIdx.y * TILE + tx, blockIdx.x * TILE + ty) of A Bt^T (0 past C's
    edge), and stored it at (row, col)."""
    (m, _), n = a.shape, bt.shape[0]
    full = np.zeros((-(-m // TILE) * TILE, -(-n // TILE) * TILE))
    full[:m, :n] = a.astype(np.float64) @ bt.T
    tiles = full.reshape(full.shape[0] // TILE, TILE, full.shape[1] // TILE, TILE)
    return tiles.transpose(0, 3, 2, 1).reshape(full.shape)[:m, :n]


def k_unguarded(flat_a, flat_bt, m, k, n, sides):
    """C as a kernel computes it whose ``sides``' loads ("A", "Bt" or both) are guarded by their row alone,
    not k < K, from the inputs' memory (``flat_a``, ``flat_bt``: NaN after each): in the last
    phase that tile's row runs on into the next row's elements (times the other tile's 0s there),
    and the last row's past the array's end (NaN, which 0 does not cancel)."""
    width = -(-k // TILE) * TILE
    kk = np.arange(width)

    def tile_rows(flat, rows, unguarded):
        at = np.arange(rows)[:, None] * k + kk
        values = np.append(flat, np.nan)[np.minimum(at, flat.size)].astype(np.float64)
        return values if unguarded else np.where(kk < k, values, 0.0)

    a, bt = tile_rows(flat_a, m, "A" in sides), tile_rows(flat_bt, n, "Bt" in sides)
    return (a[:, None, :] * bt[None, :, :]).sum(axis=2)


def c_rows_k_apart(run, rtol, atol):
    """C's elements stored at row * K + col (A's row length, where C's rows hold N): the elements
    never written, and those past C's end (in its guard zone) written, are the ones such a store
    leaves and reaches, and each element one thread alone stores there holds that thread's sum
    (where two threads' stores meet, a GPU keeps either). C of one row, row 0, is stored right
    either way."""
    a, bt, want = run.model
    (m, k), n = a.shape, len(bt)
    if k == n or m < 2 or not n:
        return
    at = (np.arange(m)[:, None] * k + np.arange(n)).ravel()
    end = m * n + run.launch.args[2].guard
    writers = np.bincount(at, minlength=end)
    unwritten, past = run.out.unwritten.ravel(), run.out.past
    alone = np.flatnonzero(writers[at[at < m * n]] == 1)
    mine = at[at < m * n][alone]
    if not (np.array_equal(unwritten, writers[:m * n] == 0) and
            np.array_equal(past, np.flatnonzero(writers[m * n:end]) + m * n) and
            np.allclose(run.out.got.ravel()[mine], want.ravel()[at < m * n][alone], rtol, atol)):
        return
    r, c = np.argwhere(run.out.unwritten)[0] if unwritten.any() else (None, None)
    never = (f"{int(unwritten.sum())} of {m * n} elements were never written (the first is "
             f"C[{r}][{c}])" if unwritten.any() else "")
    ran = "the stores ran past C's end" if past.size else ""
    met = (f"the rows overlap (C[r][col] and C[r + 1][col - {k}] went to one element)"
           if k < n and m > 1 else "")
    yield (f"C's elements were stored at row * K + col, rows K = {k} apart, where C is M x N and "
           f"its rows hold N = {n}: {', and '.join(w for w in (never, met, ran) if w)}",
           "element (row, col) of C is at row * N + col: C[row * N + col] = sum")


A_BY_COLUMN = ("A's load is guarded by the thread's column, col < N, but it reads row `row` of A: threads"
               " past C's last column loaded 0.0f in place of A's elements, which the block's other "
               "threads multiply, and threads below its last row read past A's end",
               "guard A's load with its row: As[ty][tx] = (row < M && k < K) ? A[row * K + k] : 0.0f")


def guarded_by_the_column(got, a, bt, rtol, atol, names=("A", "Bt")):
    """A's (Bt's) load guarded by the thread's column, col < N, where the row it reads belongs:
    in the last block of C's columns, the threads past C's last column loaded 0.0f, and Bt's rows
    past its last were read (on the simulator, past Bt's end). Yields (problem, hint) where
    ``got`` is that C, and it is not the right one."""
    want, n = a.astype(np.float64) @ bt.T, len(bt)
    for name in (side for side in ("A", "Bt") if side in names):
        model = tiled(a, bt, **{"a_by_col" if name == "A" else "bt_by_col": True})
        if np.allclose(model, want, rtol, atol) or not np.allclose(got, model, rtol, atol):
            continue
        bx, ty = divmod(n, TILE)
        yield A_BY_COLUMN if name == "A" else (
            "Bt's load is guarded by the thread's column, col < N, but it reads row bt_row = "
            f"blockIdx.x * TILE + ty of Bt: thread (0, {ty}) of block ({bx}, 0) read Bt's row "
            f"bt_row = {n}, past its last row, {n - 1}, as its col = {bx * TILE} < N = {n} let "
            f"it, and the threads with col >= N (tx >= {ty}) loaded 0.0f in place of the "
            f"elements of Bt's rows {bx * TILE} to {n - 1} that the threads inside C multiply",
            "guard Bt's load with the row it reads: Bs[ty][tx] = (bt_row < N && k < K) ? "
            "Bt[bt_row * K + k] : 0.0f")


def guarded_by_the_other_side(got, a, bt, rtol, atol):
    """Bt's load guarded by bt_row < M (or A's by row < N), the other matrix's rows, where that
    side is the smaller: Bt's rows from M on (A's from N on) loaded as 0.0f, so C's columns
    (rows) from there on are 0 and the rest right. Yields (problem, hint) where ``got`` is that."""
    (m, _), n = a.shape, len(bt)
    want = a.astype(np.float64) @ bt.T
    for name, own, other, bound, size, part in (("Bt", "N", "M", m, n, "columns"),
                                                ("A", "M", "N", n, m, "rows")):
        model = want.copy()
        (model[:, bound:] if name == "Bt" else model[bound:])[...] = 0
        row = "bt_row" if name == "Bt" else "row"
        if bound < size and not np.allclose(model, want, rtol, atol) and \
                np.allclose(got, model, rtol, atol):
            yield (f"{name}'s load is guarded by {row} < {other}, where {own} belongs: {name} has "
                   f"{own} = {size} rows, but its rows {bound} to {size - 1} were loaded as 0.0f, "
                   f"so C's {part} {bound} to {size - 1} came out 0",
                   f"{name}'s rows are C's {part}, {own} of them: guard its load with {row} < "
                   f"{own} && k < K")


def bt_k_guard_from_ty(got, a, bt, rtol, atol):
    """Bt's load guarded on k by phase * TILE + ty < K, matmul_tiled's guard for B (whose tile
    runs down k, with ty), while it reads column phase * TILE + tx (Bt's runs along k, with tx):
    in the last phase the tile's rows ty < K - start read on past column K - 1 into the next row
    of Bt (NaN past Bt's end, where the simulator stops), the others load 0.0f in every column.
    Yields (problem, hint) where ``got`` is that C, K not a multiple of the tile (else it is right)."""
    (n, k), start = bt.shape, (-(-bt.shape[1] // TILE) - 1) * TILE   # the last phase's first column
    if not k % TILE or not n:
        return
    kk, rows = np.arange(start + TILE), np.arange(n)[:, None]
    read = kk // TILE * TILE + rows % TILE < k   # bt_row = blockIdx.x * TILE + ty: ty = row % TILE
    tiles = np.where(read, np.append(bt, np.nan)[np.minimum(rows * k + kk, bt.size)], 0.0)
    model = np.pad(a.astype(np.float64), ((0, 0), (0, start + TILE - k))) @ tiles.T
    if not np.allclose(got, model, rtol, atol):
        return
    own, end = k - start, start + TILE - 1
    belong = {1: f"column {start}", 2: f"columns {start} and {k - 1}"}.get(
        own, f"columns {start} to {k - 1}")
    yield (f"Bt's load tests k with ty, phase * TILE + ty < K, but reads Bt at column phase * "
           f"TILE + tx: in the last phase (columns {start} to {end}, K = {k}) the tile's rows "
           f"ty < {own} read columns {k} to {end}, past their row's end, on into the next row of "
           f"Bt, and its rows ty >= {own} loaded 0.0f where {belong} belong. matmul_tiled's guard "
           "for B tests ty because B's tile runs down k; Bt's runs along k, with tx",
           "guard the column the load reads: Bs[ty][tx] = (bt_row < N && phase * TILE + tx < K) "
           "? Bt[bt_row * K + phase * TILE + tx] : 0.0f")


def store_guard_against_a_side(run, rtol, atol):
    """The store's guard comparing col (row) with another size, K or M (K or N), where N (M)
    belongs, the rest right: the elements the threads it lets through store, at row * N + col
    (past a row's end into the next row, or past C's end), are those written, and each element
    one thread alone stores holds that thread's sum (0 outside C: its loads were 0.0f). Yields
    (problem, hint)."""
    a, bt, want = run.model
    (m, k), n = a.shape, len(bt)
    sizes, (gx, gy) = {"M": m, "K": k, "N": n}, run.launch.grid[:2]
    rows, cols = np.indices((gy * TILE, gx * TILE))
    sums = np.pad(want, ((0, gy * TILE - m), (0, gx * TILE - n)))
    end = m * n + run.launch.args[2].guard
    for index, own, what in (("col", "N", "C's number of columns"),
                             ("row", "M", "C's number of rows")):
        bounds = {other: {"row": m, "col": n, index: sizes[other]} for other in "MKN"}
        masks = {o: (rows < b["row"]) & (cols < b["col"]) for o, b in bounds.items()}
        for other, stores in masks.items():
            at = rows[stores] * n + cols[stores]
            if other == own or at.max(initial=0) >= end or any(
                    np.array_equal(stores, mask) for o, mask in masks.items() if o != other):
                continue   # the right guard, or a side it cannot be told from in this launch
            writers = np.bincount(at, minlength=end)
            alone = (writers[at] == 1) & (at < m * n)
            if writers[:m * n].all() and not writers[m * n:].any():
                continue   # as the right guard stores, in this launch
            if np.array_equal(run.out.unwritten.ravel(), writers[:m * n] == 0) and \
                    np.array_equal(run.out.past, np.flatnonzero(writers[m * n:]) + m * n) and \
                    np.allclose(run.out.got.ravel()[at[alone]], sums[stores][alone], rtol, atol):
                yield _store_guard(index, own, what, other, sizes, run.out.past)


def _store_guard(index, own, what, other, sizes, past):
    """(problem, hint) of the store's guard comparing ``index`` with ``other``, not ``own``."""
    side, part = sizes[own], "columns" if index == "col" else "rows"
    if sizes[other] < side:
        shows = f"C's {part} {sizes[other]} to {side - 1} were never written"
    else:
        shows = (f"threads with {index} from {own} = {side} on stored past "
                 + ("their row's end, into the next row" if index == "col" else "C's end")
                 + (f" (and past C's end, C[{past[0]}] on)" if past.size and index == "col"
                    else f" (C[{past[0]}] on)" if past.size else ""))
    return (f"the store's guard compared {index} with {other} ({index} < {other}), where {own}, "
            f"{what}, belongs: {shows}", "C is M x N, row < M and col < N: store only "
            "if (row < M && col < N)")


def row_from_tx(run, rtol, atol):
    """row = blockIdx.y * TILE + tx where ty belongs: each thread stores on its tile's diagonal
    (row and col both from tx), so C's elements off the tiles' diagonals are never written, and
    each stored one holds the sum of A's tile loaded with that row (``tiled`` with a_row by tx)."""
    a, bt, _ = run.model
    m, n = len(a), len(bt)
    diagonal = np.arange(m)[:, None] % TILE == np.arange(n) % TILE
    if not m or not n or not np.array_equal(run.out.unwritten, ~diagonal):
        return
    model = tiled(a, bt, a_row=lambda bx, by, ty, tx: by * TILE + tx + 0 * ty)
    if not np.allclose(run.out.got[diagonal], model[diagonal], rtol, atol):
        return
    yield (f"{int((~diagonal).sum())} of {m * n} elements of C were never written, all those off "
           "the diagonals of C's 16 x 16 tiles: row = blockIdx.y * TILE + tx takes the row from "
           "tx, as col does, so thread (tx, ty) stored at (blockIdx.y * TILE + tx, blockIdx.x * "
           "TILE + tx), the diagonal, whatever its ty",
           "the row comes from ty: int row = blockIdx.y * TILE + ty;")


def col_from_ty(run, rtol, atol):
    """col = blockIdx.x * TILE + ty where tx belongs: each thread stores on its tile's diagonal
    (row and col both from ty), so C's elements off the tiles' diagonals are never written; the
    16 threads of a row of the block race on its diagonal element, each with a right sum of that
    row (thread tx's column, blockIdx.x * TILE + tx, 0 past N): whichever landed, the element
    holds one of them."""
    a, bt, want = run.model
    m, n = len(a), len(bt)
    diagonal = np.arange(m)[:, None] % TILE == np.arange(n) % TILE
    if not m or not n or run.out.past.size or not np.array_equal(run.out.unwritten, ~diagonal):
        return
    tiles = np.zeros((m, -(-n // TILE) * TILE))
    tiles[:, :n] = want
    r, c = np.nonzero(diagonal)
    row_of_tile = tiles.reshape(m, -1, TILE)[r, c // TILE]       # (stored, TILE) candidates
    if not np.isclose(row_of_tile, run.out.got[r, c][:, None], rtol, atol).any(axis=1).all():
        return
    yield (f"{int((~diagonal).sum())} of {m * n} elements of C were never written, all those off "
           "the diagonals of C's 16 x 16 tiles: col = blockIdx.x * TILE + ty takes the column from "
           "ty, as row does, so thread (tx, ty) stored at (blockIdx.y * TILE + ty, blockIdx.x * "
           "TILE + ty), the diagonal, whatever its tx: the 16 threads of a row of the block all "
           "stored their sums into that one element",
           "the column comes from tx: int col = blockIdx.x * TILE + tx;")


def index_from_the_other_thread_side(run, rtol, atol):
    """row from tx (``row_from_tx``), or col from ty (``col_from_ty``)."""
    yield from row_from_tx(run, rtol, atol)
    yield from col_from_ty(run, rtol, atol)


def row_from_blockidx_x(run, rtol, atol):
    """row = blockIdx.x * TILE + ty where blockIdx.y belongs: row and col both from blockIdx.x, so
    every block of a column of the grid stores the same tile, on C's diagonal (tile row = tile
    column = blockIdx.x), each element its right sum (the loads use that row); every other tile
    is never written."""
    a, bt, want = run.model
    m, n = len(a), len(bt)
    diagonal = np.arange(m)[:, None] // TILE == np.arange(n) // TILE
    if not m or not n or diagonal.all() or run.out.past.size or \
            not np.array_equal(run.out.unwritten, ~diagonal) or \
            not np.allclose(run.out.got[diagonal], want[diagonal], rtol, atol):
        return
    yield (f"only the 16 x 16 tiles on C's diagonal were written, right, and the other "
           f"{int((~diagonal).sum())} of its {m * n} elements never: row = blockIdx.x * TILE + ty "
           "takes the block's row from blockIdx.x, as col does, so block (bx, by) stored tile "
           "(bx, bx) of C, whatever its by, and no block stored a tile off the diagonal",
           "the block's row of tiles is blockIdx.y: int row = blockIdx.y * TILE + ty;")


ROW_ALONE = {"A": ("row < M", "row", "As[ty][tx] = (row < M && k < K) ? A[row * K + k] : 0.0f"),
             "Bt": ("bt_row < N", "bt_row", "Bs[ty][tx] = (bt_row < N && k < K) ? Bt[bt_row * K + "
                    "k] : 0.0f")}
"""Each input's guard by its row alone, the row's name, and the load guarded by both indices."""


def row_alone(run, name, rtol, atol, rows_past_read):
    """A read past A (Bt), run again with NaN after it, whose C is the kernel's whose load of that
    input (or of both) is guarded by its row alone, without k < K; where ``rows_past_read(kernels)``
    (a launch without k past K - 1 read past an input) says threads past the matrix's rows loaded
    too, the guards let an element through when either index is inside (row < M || k < K)."""
    a, bt, _ = run.model
    flat = [spec.host() if hasattr(spec, "host") else spec.ravel() for spec in run.launch.args[:2]]
    sides = next((sides for sides in ((name,), ("A", "Bt")) if np.allclose(
        run.out.got, k_unguarded(*flat, len(a), a.shape[1], len(bt), sides), rtol, atol,
        equal_nan=True)), None)
    if name not in ROW_ALONE or sides is None:
        return
    if rows_past_read(run.kernel):
        loads = " and ".join(f"{side}'s" for side in sides)
        yield (f"{loads} load{'s are' if len(sides) > 1 else ' is'} guarded so that an element is "
               "loaded when either of its indices is inside, as (row < M || k < K) does: in the "
               "last phase, where k runs past K - 1, a row inside the matrix ran on into the next "
               "row, and threads whose row lies past the matrix's last read past its end at "
               "k < K (the read that crashed on the simulator)", "an element exists only when "
               "both its indices are inside: join the two tests with &&, "
               + "; ".join(ROW_ALONE[side][2] for side in sides))
    elif sides == (name,):
        guard, row, right = ROW_ALONE[name]
        yield (f"{name}'s load is guarded by its row alone, ({guard}), without k < K: in the last "
               f"phase, where k runs past K - 1, each {row} of the tile ran on into the next row "
               f"of {name}, and the last row past {name}'s end (the read that crashed on the "
               f"simulator)", f"guard {name}'s element by both its indices: {right}")


def phases_from_a_side(got, a, bt, launched):
    """Sums cut after the phases that N (or M) needs, fewer than K needs
    (``matmul_tiling.phases_from_a_side``); ``launched(a, bt)``: the exercise's run of a launch
    on a and bt (a generator, as ``KernelExercise.run``)."""
    def probe(m, k, n):
        rng = np.random.default_rng(31)
        pa, pbt = (rng.uniform(-1, 1, (rows, k)).astype(np.float32) for rows in (m, n))
        seen = matmul_tiling.result_of(launched(pa, pbt))
        return None if seen is None else (seen, lambda c: pa[:, :c].astype(np.float64) @ pbt[:, :c].T)

    yield from matmul_tiling.phases_from_a_side(
        got, lambda c: a[:, :c].astype(np.float64) @ bt[:, :c].T, (len(a), a.shape[1], len(bt)),
        TILE, probe, "TILE")


def rows_apart(flat, n, k):
    """Bt (n x k) as a kernel reads it whose rows are n elements apart in ``flat``."""
    return flat[np.arange(n)[:, None] * n + np.arange(k)]


def loop_past_a_tile(failure):
    """A tile indexed at TILE by thread (0, 0) of its block, whose loads touch only [0][0]: a
    loop over the tile's columns that ran on past them (j < K for j < TILE)."""
    err = failure.error
    if (failure.kind == "array bounds" and err.element == TILE and err.length in (TILE, TILE + 1)
            and tuple(err.thread or (1,))[:2] == (0, 0)):
        yield (f"thread (0, 0)'s index into a tile reached {TILE} in a loop: a tile holds TILE = "
               f"{TILE} columns, so the loop over its columns stops at j < TILE (the phases are "
               "what walk along K); the tiles' size is right: for (int j = 0; j < TILE; j++)")
