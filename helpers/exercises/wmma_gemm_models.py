"""The known wrong kernels of ``helpers.exercises.wmma_gemm`` (C = A B, one warp a 16 x 16 tile
of C, B stored by columns) that ``product`` models (C as such a kernel computes it): each as the
model's arguments from the case (M, K, N), with its problem and hint (``LOOKALIKES``); the block's
index added to the warp's number (``block_index_added``); the warp's number taken as the lane
(``warp_is_the_lane``), tile_col modulo 16 (``tile_col_by_16``), or C's rows stored a leading
dimension other than N apart, past C's end (``c_rows_apart_past_c``); the tile a load reads
(``tile_read``) and the elements past C that the warps of the rows of tiles past it store
(``past_by_row_m``)."""

from __future__ import annotations

import numpy as np

LD = "the leading dimension is the number of elements from one row (for B: one column) to the next"
FROM_M = ("the warps' tiles were found from M / 16, but a row of C holds N / 16 tiles: some warps' "
          "tile_col reached N / 16, and they stored past C's last column of tiles, over the tiles "
          "below", "warp w takes tile_row = warp / (N / 16), tile_col = warp % (N / 16)")
# (what the kernel did, as _product's arguments from the case; the mistake; the hint)
LOOKALIKES = [
    (lambda m, k, n: dict(b_by_rows=True, ldb=n, b_start=lambda kk, tc: kk * n + tc * 16),
     "B was read as if it were stored row after row (section 3's kernel), but here B is stored "
     "column after column", "declare b col_major and load it from B + tile_col * 16 * K + k, "
     "leading dimension K"),
    (lambda m, k, n: dict(b_by_rows=True), "B's fragment was declared row_major, but B is stored "
     "column after column", "declare b with wmma::col_major"),
    (lambda m, k, n: dict(lda=16), "A's fragments were loaded with leading dimension 16, but a row "
     "of A holds K elements", LD),
    (lambda m, k, n: dict(lda=n), "A's fragments were loaded with leading dimension N, but a row of "
     "A holds K elements", LD),
    (lambda m, k, n: dict(lda=m), "A's fragments were loaded with leading dimension M, A's number "
     "of rows (lda = rows, a column-major habit), so their rows were read M elements apart, but A "
     "is stored row after row and a row of A holds K elements", "the leading dimension of "
     "row-major A is the length of its rows, K: load_matrix_sync(a, A + tile_row * 16 * K + k, K)"),
    (lambda m, k, n: dict(ldb=16), "B's fragments were loaded with leading dimension 16, but a "
     "column of B holds K elements", LD),
    (lambda m, k, n: dict(ldb=n), "B's fragments were loaded with leading dimension N, but B is "
     "stored by columns, and a column holds K elements", LD),
    (lambda m, k, n: dict(ldb=m), "B's fragments were loaded with leading dimension M, the number "
     "of rows of A and of C, so their columns were read M elements apart, but B is stored column "
     "after column and a column of B holds K elements", "the leading dimension of column-major B "
     "is the length of its columns, K: load_matrix_sync(b, B + tile_col * 16 * K + k, K)"),
    *((lambda m, k, n, a=a, b=b: dict(lda=2 * k if a else k, ldb=2 * k if b else k),
       f"{which} loaded with leading dimension K * sizeof(half) = 2K, a count of bytes, but "
       f"load_matrix_sync's leading dimension counts elements: {holds} K elements",
       f"the leading dimension counts elements, not bytes: {fix}")
      for a, b, which, holds, fix in (
          (True, True, "A's and B's fragments were", "a row of A, and a column of B, holds",
           "load_matrix_sync(a, A + tile_row * 16 * K + k, K) and load_matrix_sync(b, B + "
           "tile_col * 16 * K + k, K)"),
          (True, False, "A's fragments were", "a row of A holds", "load_matrix_sync(a, A + "
           "tile_row * 16 * K + k, K)"),
          (False, True, "B's fragments were", "a column of B holds", "load_matrix_sync(b, B + "
           "tile_col * 16 * K + k, K)"))),
    (lambda m, k, n: dict(a_by_cols=True), "A's fragment was declared col_major, but A is stored "
     "row after row", "declare a with wmma::row_major"),
    (lambda m, k, n: dict(store_by_cols=True), "C's tiles were stored column after column "
     "(mem_col_major): each 16 x 16 tile of C is transposed",
     "store with store_matrix_sync(..., c, N, wmma::mem_row_major)"),
    (lambda m, k, n: dict(k_end=k // 16), "the loop over K stopped at K / 16: only the first "
     "steps of 16 were added", "k steps by 16 while k < K: for (int k = 0; k < K; k += 16)"),
    (lambda m, k, n: dict(reset=True), "only the last step of 16 along K was kept: the accumulator is "
     "set to 0 inside the loop", "call fill_fragment(c, 0.0f) once, before the loop over k"),
    (lambda m, k, n: dict(tile_of=lambda w: divmod(w, k // 16)), "the warps' tiles were found "
     "from K / 16, A's tiles along a row, but a row of C holds N / 16 tiles", FROM_M[1]),
    (lambda m, k, n: dict(tile_of=lambda w: divmod(w, m // 16)), *FROM_M),  # along rows...
    (lambda m, k, n: dict(tile_of=lambda w: divmod(w, m // 16)[::-1]), *FROM_M),  # ...or columns
    (lambda m, k, n: dict(tile_of=lambda w: (w // (n // 16), w % (m // 16))), "tile_col = warp % "
     "(M / 16) counts a row of C's tiles by M / 16, but a row of C holds N / 16 tiles: the warps "
     "that reached N / 16 stored past C's last column of tiles, and some tiles got no warp",
     "tile_col = warp % (N / 16), as tile_row = warp / (N / 16)"),
    (lambda m, k, n: dict(tile_of=lambda w: (w // (m // 16), w % (n // 16))), "tile_row = warp / "
     "(M / 16) counts a row of C's tiles by M / 16, but a row of C holds N / 16 tiles: some "
     "tiles got two warps, others none", "tile_row = warp / (N / 16), as tile_col = warp % (N / 16)"),
    (lambda m, k, n: dict(a_start=lambda kk, tr: kk * k + tr * 16), "A's tile was found as if A "
     "were stored column after column (A + k * K + tile_row * 16), but A is stored row after row",
     "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k"),
    (lambda m, k, n: dict(c_at=lambda w, tr, tc: (256 * w, 16)), "each warp stored its tile as "
     "256 elements in a row (C + warp * 256, leading dimension 16), but C is stored row after "
     "row, N elements a row: a tile's rows lie N apart", "store_matrix_sync(C + tile_row * 16 * "
     "N + tile_col * 16, c, N, wmma::mem_row_major)"),
    (lambda m, k, n: dict(a_start=lambda kk, tr: tr * k + kk), "A's tile started at row tile_row "
     "(A + tile_row * K + k), not at row tile_row * 16",
     "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k"),
    (lambda m, k, n: dict(b_start=lambda kk, tc: tc * k + kk), "B's tile started at column "
     "tile_col (B + tile_col * K + k), not at column tile_col * 16: tile column 1 of C multiplied "
     "B's columns 1 to 16, where its own are 16 to 31 (the tiles of C overlap by 15 columns of B)",
     "B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"),
    (lambda m, k, n: dict(b_start=lambda kk, tc: tc * 16 + kk * k), "B's tile was found as if B "
     "were stored row after row (B + tile_col * 16 + k * K), but B is stored column after column",
     "B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"),
    (lambda m, k, n: dict(tile_of=lambda w: divmod(w % 4, n // 16)), "every block's four warps "
     "took tiles 0 to 3: warp = threadIdx.x / 32 numbers a warp within its block",
     "number the warps across the grid: warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32"),
    (lambda m, k, n: dict(ldb=n, b_start=lambda kk, tc: kk * n + tc * 16), "B's tile was "
     "addressed as if B were stored row after row (B + k * N + tile_col * 16, leading dimension "
     "N): each fragment, col_major, took a column of that row-major tile, so it holds the tile "
     "transposed; but B is stored column after column", "B's tile (k / 16, tile_col) starts at B "
     "+ tile_col * 16 * K + k, leading dimension K (a column of B holds K elements)"),
    (lambda m, k, n: dict(b_start=lambda kk, tc: tc * 16 * n + kk), "B's tile started "
     "tile_col * 16 columns of N elements in (B + tile_col * 16 * N + k), but a column of B holds "
     "K", "B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"),
    *((lambda m, k, n, d=d: dict(a_start=lambda kk, tr: tr * 16 * (n if d == "N" else m) + kk),
       f"A's tile started tile_row * 16 rows of {d} elements in (A + tile_row * 16 * {d} + k), "
       f"but a row of A holds K elements, not {d} ({what}): from row 16 of C on (tile_row >= 1), "
       f"each tile multiplied rows of A that are not its own (right only where K = {d})",
       "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k")
      for d, what in (("N", "C's row length"), ("M", "the number of A's rows"))),
    (lambda m, k, n: dict(k_end=k + 16), "the loop over K ran one step too many (k <= K): its "
     "last step read A's rows and B's columns past their end", "k steps by 16 while k < K: for (int k = 0; "
     "k < K; k += 16)"),
    (lambda m, k, n: dict(k_start=16), "the loop over k started at k = 16, not 0: the first "
     "16-deep step along K (A's columns and B's rows 0 to 15) was left out of every tile of C",
     "the first step starts at k = 0 and must run too: for (int k = 0; k < K; k += 16)"),
    (lambda m, k, n: dict(k_end=k - 16), "the loop over K stopped a step short (k < K - 16): "
     "the last 16-deep step along K (A's columns and B's rows K - 16 to K - 1) was left out of "
     "every tile of C", "the last step starts at k = K - 16 and must run too: for (int k = 0; k < K; k += 16)"),
    (lambda m, k, n: dict(k_step=32), "the loop over k steps by 32, not 16: only every other "
     "16-deep step along K (k = 0, 32, 64, ...) was added into C, A's columns and B's rows 16 to "
     "31, 48 to 63, ... left out of every tile; 32 is a warp's threads, but a fragment covers 16 "
     "of K", "k steps by a fragment's 16: for (int k = 0; k < K; k += 16)"),
    (lambda m, k, n: dict(k_end=n), "the loop over k stopped at N, C's column count, not K: "
     "it ran N / 16 steps of 16 where A's rows and B's columns hold K / 16 (N and K mixed up)",
     "the loop runs along K, the inner dimension: for (int k = 0; k < K; k += 16)"),
    (lambda m, k, n: dict(tile_of=lambda w: (w // (n // 16), w % n // 16)), "tile_col = warp % N / "
     "16 is (warp % N) / 16 (% and / go left to right), not warp % (N / 16)",
     "write the parentheses: tile_col = warp % (N / 16)"),
    (lambda m, k, n: dict(a_start=lambda kk, tr: tr * 16 * k), "A's tile never moved along K: "
     "each step loaded A + tile_row * 16 * K, the first tile of its row, again",
     "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k: add k"),
    (lambda m, k, n: dict(swapped_tiles="B"), "B's tile was found from tile_row (B + tile_row "
     "* 16 * K + k), A's index: C's tile (tile_row, tile_col) takes its column of tiles of B "
     "from tile_col", "B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"),
    (lambda m, k, n: dict(swapped_tiles="A"), "A's tile was found from tile_col (A + tile_col "
     "* 16 * K + k), B's index: C's tile (tile_row, tile_col) takes its row of tiles of A from "
     "tile_row", "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k"),
    (lambda m, k, n: dict(b_start=lambda kk, tc: kk), "B's tile left out tile_col * 16 * K: every "
     "warp read B + k, the first column of tiles of B", "B's tile (k / 16, tile_col) starts at "
     "B + tile_col * 16 * K + k"),
    *((lambda m, k, n, a=a, b=b: dict(a_start=lambda kk, tr: tr * 16 * k + kk * (16 if a else 1),
                                       b_start=lambda kk, tc: tc * 16 * k + kk * (16 if b else 1)),
       f"{which} offset along K was k * 16, but k already counts elements (it steps by 16): each "
       "step after the first read its tile 16 times too far along", hint)
      for a, b, which, hint in (
          (True, True, "A's and B's tiles'", "load A + tile_row * 16 * K + k and B + tile_col * 16 * K + k"),
          (True, False, "A's tile's", "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k"),
          (False, True, "B's tile's", "B's tile (k / 16, tile_col) starts at B + tile_col * 16 * K + k"))),
]


def product(model, case, lda=None, ldb=None, b_by_rows=False, a_start=None, b_start=None,
             reset=False, a_by_cols=False, store_by_cols=False, k_end=None, tile_of=None,
             guard=0, c_at=None, swapped_tiles="", k_start=0, k_step=16, rows=None):
    """C as a kernel computes it whose warp w takes tile ``tile_of(w)`` (returning when its row
    reaches ``rows``, M / 16 unless told), loads A's tiles from ``a_start(k, tile_row)`` with
    leading dimension ``lda`` (by columns where ``a_by_cols``) and B's from ``b_start(k,
    tile_col)`` with ``ldb`` (by rows where ``b_by_rows``), its loop over K from ``k_start`` while
    k < ``k_end``, k going up by ``k_step``; the accumulator set to 0 at every step where
    ``reset``; ``swapped_tiles`` "A" (or "B"): A's tile found from tile_col where tile_row belongs
    (B's from tile_row); each tile stored transposed where ``store_by_cols``, at ``c_at(w,
    tile_row, tile_col)``, (its first element, leading dimension). Where warps store into one
    element they race, and a GPU may leave any one's value there: C's candidates, one layer a store
    into an element (the first layer the first warp's, as if each element kept its first store; NaN
    in a layer with no store left), each followed by ``guard`` rows of what was stored past C's
    end. The defaults are the right kernel's."""
    m, k, n = case
    rows = rows or m // 16
    lda, ldb, tile_of = lda or k, ldb or k, tile_of or (lambda w: divmod(w, n // 16))
    a_start = a_start or (lambda kk, tr: tr * 16 * k + kk)
    b_start = b_start or (lambda kk, tc: tc * 16 * k + kk)
    c_at = c_at or (lambda w, tr, tc: (tr * 16 * n + tc * 16, n))
    stores, (r, c) = [], np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    for w in range(-(-(m // 16) * (n // 16) // 4) * 4):  # the grid's warps
        tr, tc = tile_of(w)
        start, ldc = c_at(w, tr, tc)
        acc = np.zeros((16, 16))
        for kk in range(k_start, k if k_end is None else k_end, k_step) if tr < rows else ():
            ar, bc = (tc if swapped_tiles == "A" else tr), (tr if swapped_tiles == "B" else tc)
            acc = (0 if reset else acc) + tile_read(model[0], a_start(kk, ar), lda, not a_by_cols) \
                @ tile_read(model[1], b_start(kk, bc), ldb, b_by_rows)
        stores += [(start + r * ldc + c, acc.T if store_by_cols else acc)] * (tr < rows)
    count = np.zeros(max([(m + 32) * n, *(where.max() + 1 for where, _ in stores)]), int)
    for where, _ in stores:
        np.add.at(count, where.ravel(), 1)
    layers, seen = np.full((max(1, count.max()), count.size), np.nan), np.zeros_like(count)
    for where, tile in stores:
        layers[seen[where], where] = tile
        seen[where] += 1
    return layers[:, :(m + guard) * n].reshape(-1, m + guard, n)


def block_index_added(case, blocks, per_block, stored):
    """warp = blockIdx.x + threadIdx.x / 32: block b's warps numbered b to b + per_block - 1,
    where b * per_block on belongs, so the blocks' tiles overlap and the last tiles get no warp:
    the elements written (``stored``, 16 rows past C's end too) are those of the tiles so
    numbered (a warp whose tile_row is past M / 16 returns), and some tile was never written."""
    (m, _, n), per_row = case, case[2] // 16
    tiles = (m // 16) * per_row
    numbers = {b + j for b in range(blocks) for j in range(per_block)} & set(range(tiles))
    mask = np.zeros((m + 16, n), bool)
    for t in numbers:
        mask[t // per_row * 16:t // per_row * 16 + 16, t % per_row * 16:t % per_row * 16 + 16] = True
    missing = sorted(set(range(tiles)) - numbers)
    if blocks < 2 or not missing or not np.array_equal(mask.ravel(), stored):
        return
    first, (r, c) = missing[0], divmod(missing[0], per_row)
    at = f"tile_row {r}, tile_col {c}, C[{16 * r}][{16 * c}] on"
    which = (f"tile {first} of {tiles} ({at}) was" if len(missing) == 1 else
             f"tiles {first} to {missing[-1]} of {tiles} (the first: {at}) were")
    yield (f"{which} never computed: warp = blockIdx.x + "
           f"threadIdx.x / 32 adds the block's index where the number of its first warp belongs, "
           f"so block b's warps took the numbers b to b + {per_block - 1}: block 1's warps took "
           f"the numbers 1 to {per_block} ({per_block - 1} of them block 0's too), not "
           f"{per_block} to {2 * per_block - 1}, and the warps' numbers stop at "
           f"{blocks + per_block - 2}",
           f"a block holds blockDim.x / 32 = {per_block} warps, so block b's first warp is "
           f"number {per_block}b: warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32")


def past_by_row_m(m, n, warps, rows=1):
    """The flat indices past C (m x n) that the warps of ``warps`` whose tile_row is m / 16 to
    m / 16 + rows - 1 store."""
    per_row = n // 16
    tiles = [divmod(w, per_row) for w in range((m // 16) * per_row, warps)
             if w // per_row < m // 16 + rows]
    r, c = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    return sorted(int(i) for tr, tc in tiles for i in ((r + 16 * tr) * n + tc * 16 + c).ravel()
                  if i >= m * n)


def tile_read(memory, start, ld, row_major):
    """The 16 x 16 tile load_matrix_sync reads at ``start`` with leading dimension ``ld`` (an
    index past ``memory`` reads its last element: a kernel that reads there fails anyway)."""
    r, c = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    return np.take(memory, start + (r * ld + c if row_major else c * ld + r), mode="clip")


def warp_is_the_lane(failure):
    """A crash in a wmma call (a warp function) that lanes 0 to tiles - 1 of every warp of the
    block reached, the others never: warp = (...) % 32, the lane, so each lane took a tile of its
    own, and those whose tile_row reached M / 16 returned."""
    err, launch, block = failure.error, failure.launch, failure.block
    if failure.kind != "warp mask" or launch is None or not block or err.barrier is not None:
        return
    m, n = int(launch.args[3]), int(launch.args[5])
    tiles, warps = (m // 16) * (n // 16), int(np.prod(block)) // 32
    if not 0 < tiles < 32 or tuple(getattr(err, "waiting", None) or ()) != tuple(
            32 * w + lane for w in range(warps) for lane in range(tiles)):
        return
    yield (f"warp = (blockIdx.x * blockDim.x + threadIdx.x) % 32 is the thread's lane (its place "
           f"in its warp, 0 to 31), not the warp's number: the 32 lanes of a warp took tiles of "
           f"their own, so lanes 0 to {tiles - 1} of each warp (tiles 0 to {tiles - 1}) went on "
           f"to the wmma calls, and lanes {tiles} to 31, whose tile_row reached M / 16 = "
           f"{m // 16}, had returned: a wmma call needs the warp's 32 lanes together, on one tile",
           "the warp's number is the thread's number in the grid divided by 32: warp = "
           "(blockIdx.x * blockDim.x + threadIdx.x) / 32")



def a_tile_moved_down(failure):
    """A read past the end of A at an element of the crashing warp's tile moved k rows down:
    (tile_row * 16 + k) * K + K r + c, k a step of 16 along K, where tile_row * 16 * K + k
    belongs. A is told by its allocation's size (its elements and the zeros after them), where
    B's differs."""
    err, launch, block = failure.error, failure.launch, failure.block
    if failure.kind != "out of bounds" or err.is_write is not False or err.offset is None or \
            launch is None or not block or not err.block or not err.thread or not err.allocation:
        return
    sizes = [2 * (spec.values.size + spec.after) for spec in launch.args[:2]]
    m, k, n = (int(x) for x in launch.args[3:6])
    warp = (err.block[0] * block[0] + err.thread[0]) // 32
    tile_row, (row, column) = warp // (n // 16), divmod(err.offset // 2, k)
    down = row - tile_row * 16
    if err.allocation[1] != sizes[0] or sizes[0] == sizes[1] or column >= 16 or \
            not 16 <= down < k:
        return
    yield (f"A's tile for step k started at row tile_row * 16 + k of A, (tile_row * 16 + k) * K: "
           "k, the step along K, moved the tile down k rows of A instead of k columns along "
           f"them; warp {warp} (tile_row {tile_row}) read row {row} at k = {down // 16 * 16}, "
           f"past A's {m} rows, and the warps of tile_row 0 read wrong values without crashing",
           "A's tile (tile_row, k / 16) starts at A + tile_row * 16 * K + k: tile_row * 16 * K "
           "moves down to the tile's rows, k along them")


def tile_col_by_16(failure):
    """A read past B whose column of tiles, its element // (16 * K) (B by columns: 16 * K
    elements a column of tiles), is the crashing warp's warp % 16, past N / 16: tile_col taken
    modulo a tile's 16 columns where it is modulo the tiles a row of C holds."""
    err = failure.error
    if (failure.kind != "out of bounds" or err.is_write is not False or err.offset is None
            or not failure.launch or not failure.block or not err.block or not err.thread):
        return
    k, n = (int(x) for x in failure.launch.args[4:6])
    warp = (err.block[0] * failure.block[0] + err.thread[0]) // 32
    tile_col = err.offset // 2 // (16 * k)   # halves, from B's start
    if n // 16 <= tile_col == warp % 16 != warp % (n // 16):
        yield (f"warp {warp} read B's column of tiles {tile_col} = warp % 16, but B holds N / 16 "
               f"= {n // 16} (the read past B's end): tile_col was taken modulo 16, a tile's "
               "width, where a row of C holds N / 16 tiles",
               "tile_col = warp % (N / 16), as tile_row = warp / (N / 16)")


def c_rows_apart_past_c(failure):
    """A write past C's end at an element of the crashing warp's tile (tile_row, tile_col) =
    divmod(warp, N / 16) whose rows lie M or K apart, where N belongs: C + tile_row * 16 * N +
    tile_col * 16 + r * ld + c, r and c 0 to 15, stored with leading dimension ``ld``. C is
    the one array the kernel writes; a float is 4 bytes."""
    err, launch, block = failure.error, failure.launch, failure.block
    if failure.kind != "out of bounds" or not err.is_write or err.offset is None or \
            launch is None or not block or not err.block or not err.thread:
        return
    m, k, n = (int(x) for x in launch.args[3:6])
    warp = (err.block[0] * block[0] + err.thread[0]) // 32
    tile = divmod(warp, n // 16)
    at = err.offset // 4 - (tile[0] * 16 * n + tile[1] * 16)
    for ld in dict.fromkeys((m, k)):
        names = " or ".join(name for name, size in (("M", m), ("K", k)) if size == ld)
        if ld == n or at < 0 or at % ld >= 16 or at // ld >= 16 or err.offset % 4:
            continue
        yield (f"C's tiles were stored with leading dimension {names} = {ld}, but a row of C "
               f"holds N = {n} elements: store_matrix_sync's leading dimension is the number of "
               f"elements from one row of C to the next, so each tile's rows landed {ld} apart, "
               f"and warp {warp} (tile {tile}) wrote row {at // ld} of its tile at "
               f"C[{err.offset // 4 // n}][{err.offset // 4 % n}], past C's {m} rows",
               "the leading dimension is a row of C, N elements: store_matrix_sync(C + tile_row "
               "* 16 * N + tile_col * 16, c, N, wmma::mem_row_major)")
        return
