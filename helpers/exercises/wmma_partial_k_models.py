"""The NumPy models of ``helpers.exercises.wmma_partial_k``'s kernel (C = A B, one warp a 16 x 16
tile, its tiles staged in shared memory with zero guards along K): C as a staging computes it
(``staged``), and the known wrong stagings (``STAGINGS``), each with its problem and hint (and
those that need M, ``a_rows_apart``); and C's
tiles stored column after column (``c_stored_col_major``); the elements of C a store writes
(``written_by``) and the known wrong stores (``STORES``), C stored with a wrong leading dimension
(``c_ld``) and the guard that compares tile_row with N / 16 (``guard_against_n``)."""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.exercises.common import Output
from helpers.exercises.microscope import observe
from helpers.exercises.wmma_gemm_models import past_by_row_m


def B_TRANSPOSED(k, n):
    """Bs staged transposed, Bs[r][col] = B[k0 + col][tile_col * 16 + r] (the C of B's fragment
    declared col_major over a Bs staged right, too)."""
    return dict(b_keep=lambda k0, r, col: k0 + col < k,
                b_at=lambda tile, k0, r, col: (k0 + col) * n + tile[1] * 16 + r)


def b_fragment_col_major(words):
    """(problem, hint) where the kernel's words (``microscope.body_words``) declare the matrix_b
    fragment wmma::col_major: over Bs staged row after row, each step's tile of B is read
    transposed, the C of ``B_TRANSPOSED``; None where not."""
    for i in range(len(words) - 2):
        if words[i:i + 2] == ["fragment", "<"] and ">" in words[i:]:
            end = words.index(">", i)
            if "matrix_b" in words[i:end] and "col_major" in words[i:end] and end + 1 < len(words):
                name = words[end + 1]
                return (f"B's fragment {name} was declared wmma::col_major, but Bs holds the tile row "
                        f"after row (Bs[w][r][col] = B[k0 + r][tile_col * 16 + col]): "
                        f"load_matrix_sync read each step's 16 x 16 tile of B transposed, so C = A "
                        f"B^T tile by tile (C matches that exactly)",
                        "a fragment's layout is how its tile is stored, and Bs is stored row after "
                        "row: declare it row_major: wmma::fragment<wmma::matrix_b, 16, 16, 16, half, "
                        f"wmma::row_major> {name};")
    return None


STAGINGS = [  # (a wrong staging, as staged's keywords given K and N), problem (or its function
    # of M, K and N), hint
    (lambda k, n: dict(b_keep=lambda k0, r, col: k0 + col < k),
     "Bs was set to 0 where k0 + col reaches K, but B's k is its row: k0 + r",
     "stage B[k0 + r][tile_col * 16 + col] where k0 + r < K, else 0"),
    (lambda k, n: dict(a_keep=lambda k0, r, col: k0 + r < k),
     "As was set to 0 where k0 + r reaches K, but A's k is its column: k0 + col",
     "stage A[tile_row * 16 + r][k0 + col] where k0 + col < K, else 0"),
    (lambda k, n: dict(a_keep=lambda k0, r, col: (k0 + r < k) & (k0 + col < k),
                       b_keep=lambda k0, r, col: (k0 + r < k) & (k0 + col < k)),
     "the last, partial step dropped the tile's rows r >= K - k0 of A and columns col >= K - k0 of "
     "B: As's zero guard tested k0 + r too, and Bs's k0 + col too, but each guard tests the "
     "index along K of its own matrix only: A's column k0 + col, B's row k0 + r", "As[w][r][col] = k0 + col < K ? A[...] : __float2half(0.0f), and "
     "Bs[w][r][col] = k0 + r < K ? B[...] : __float2half(0.0f)"),
    (lambda k, n: dict(a_keep=lambda k0, r, col: True),
     "As took A's elements past K: nothing set them to 0 where their column k0 + col reaches K, "
     "so in the last, partial step each row of A's tile ran on into the next row of A, and A's "
     "last row past A's end (NaN here, in C's last row)",
     "the guard must test the column k0 + col against K: As[w][r][col] = k0 + col < K ? "
     "A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f)"),
    (lambda k, n: dict(b_at=lambda tile, k0, r, col: (k0 + r) * k + tile[1] * 16 + col),
     "B's rows were read K elements apart, but a row of B holds N",
     "B[k0 + r][tile_col * 16 + col] is at B[(k0 + r) * N + tile_col * 16 + col]"),
    (lambda k, n: dict(b_at=lambda tile, k0, r, col: (tile[1] * 16 + col) * k + k0 + r),
     "Bs took B[(tile_col * 16 + col) * K + k0 + r], B read as if it were stored column after "
     "column (as wmma_gemm's B is), K elements a column; but here B is K x N stored row after "
     "row, so that index is another element of B: in tile (0, 0)'s first step, Bs[w][1][0] "
     "took B's element 1, B[0][1], where B[1][0], element N, belongs",
     "B is stored row after row, N elements a row: element (k0 + r, tile_col * 16 + col) is at "
     "B[(k0 + r) * N + tile_col * 16 + col]"),
    (lambda k, n: dict(b_at=lambda tile, k0, r, col: (k0 + r) * n + tile[0] * 16 + col),
     "Bs took B's columns from tile_row, but the tile's columns of C, and of B, are tile_col's",
     "B[k0 + r][tile_col * 16 + col] is at B[(k0 + r) * N + tile_col * 16 + col]"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: (tile[1] * 16 + r) * k + k0 + col),
     lambda m, k, n: rows_from_tile_col(m, n),
     "A[tile_row * 16 + r][k0 + col] is at A[(tile_row * 16 + r) * K + k0 + col]"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: tile[0] * 16 * k + r * 16 + k0 + col),
     "As took A's rows 16 elements apart (r * 16), but a row of A holds K elements",
     "A[tile_row * 16 + r][k0 + col] is at A[(tile_row * 16 + r) * K + k0 + col]"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: (tile[0] * 16 + r) * 16 + k0 + col),
     lambda m, k, n: ("As took A's rows 16 elements apart, (tile_row * 16 + r) * 16, the staged "
                      f"tile's width, but a row of A holds K = {k} elements: row 1 of tile (0, 0) "
                      f"was staged from A's element 16, A[{16 // k}][{16 % k}], where A[1][0], "
                      f"element {k}, belongs"),
     "a row of A holds K elements, not the tile's 16: A[(tile_row * 16 + r) * K + k0 + col]"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: tile[0] * 16 + r * k + k0 + col),
     "As took A[tile_row * 16 + r * K + k0 + col]: without the parentheses only r is multiplied "
     "by K, so tile_row * 16 was added to the column, not to the row: the tiles of every row of "
     "C but the first staged A's rows 0 to 15, tile_row * 16 columns along",
     "write the parentheses: A[(tile_row * 16 + r) * K + k0 + col], the tile's row times K"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: tile[0] * 16 * k + k0 + col),
     "As took A[tile_row * 16 * K + k0 + col], with no r: all 16 rows of As held A's row "
     "tile_row * 16, the tile's first, so the 16 rows of each tile of C came out equal",
     "the row inside the tile is r: As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K "
     "+ k0 + col] : __float2half(0.0f)"),
    (lambda k, n: dict(b_at=lambda tile, k0, r, col: (k0 + r) * n + tile[1] + col),
     "Bs took B's columns from tile_col + col, but tile tile_col starts tile_col * 16 columns "
     "along", "B[k0 + r][tile_col * 16 + col] is at B[(k0 + r) * N + tile_col * 16 + col]"),
    (lambda k, n: dict(b_at=lambda tile, k0, r, col: (k0 + r) * n + col),
     "Bs took B's columns col, without tile_col * 16: every tile column of C used B's first 16 "
     "columns, so column c of C holds the values of column c % 16",
     "B[k0 + r][tile_col * 16 + col] is at B[(k0 + r) * N + tile_col * 16 + col]"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: (tile[0] * 16 + r) * k + col),
     "As took A's columns col, without k0: every step staged A's first 16 columns again",
     "A[tile_row * 16 + r][k0 + col] is at A[(tile_row * 16 + r) * K + k0 + col]"),
    (lambda k, n: dict(a_at=lambda tile, k0, r, col: (tile[0] * 16 + r) * k + 16 * k0 + col),
     "As took A's columns from k0 * 16 + col, but k0 already counts A's columns (0, 16, 32, ...): "
     "each step after the first staged its tile 16 times too far along A's rows, into later rows "
     "of A and past A's end (NaN here)", "A[tile_row * 16 + r][k0 + col] is at A[(tile_row * 16 "
     "+ r) * K + k0 + col]"),
    (B_TRANSPOSED,
     "Bs was staged transposed: Bs[r][col] took B[k0 + col][tile_col * 16 + r], but row r of "
     "the tile is B's row k0 + r", "stage Bs[w][r][col] = B[k0 + r][tile_col * 16 + col], at "
     "B[(k0 + r) * N + tile_col * 16 + col], where k0 + r < K"),
    (lambda k, n: dict(a_keep=lambda k0, r, col: k0 + r < k,
                       a_at=lambda tile, k0, r, col: (tile[0] * 16 + col) * k + k0 + r),
     "As was staged transposed: As[w][col][r] took A[tile_row * 16 + r][k0 + col], so row r of "
     "the tile holds A's column k0 + r, but row r of the tile is A's row tile_row * 16 + r",
     "stage As[w][r][col] = A[tile_row * 16 + r][k0 + col], at A[(tile_row * 16 + r) * K + k0 + "
     "col], where k0 + col < K"),
    (lambda k, n: dict(a_keep=lambda k0, r, col: True, b_keep=lambda k0, r, col: True,
                       a_at=stale(lambda k0, r, col: col, lambda tile, r, col, kk: (tile[0] * 16 + r) * k + kk, k),
                       b_at=stale(lambda k0, r, col: r, lambda tile, r, col, kk: kk * n + tile[1] * 16 + col, k)),
     "past K the last, partial step's tiles still held the step before's elements: the tiles "
     "were staged only where k0 + col < K (A) and k0 + r < K (B), an if with no else, so those "
     "products were added twice", "stage 0 past K: As[w][r][col] = k0 + col < K ? A[...] : "
     "__float2half(0.0f), and Bs[w][r][col] = k0 + r < K ? B[...] : __float2half(0.0f)"),
]


def rows_from_tile_col(m, n):
    """The problem of As staged from A's rows tile_col * 16 + r, named by the first tile whose
    tile_col is not its tile_row (row-major order), M and N given."""
    tr, tc = next(((tr, tc) for tr, tc in np.ndindex(m // 16, n // 16) if tr != tc), (0, 0))
    past = f", past A's {m} rows (NaN here)" if tc * 16 >= m else ""
    return ("As took A's rows from tile_col, but the tile's rows of C, and of A, are tile_row's: "
            f"tile (tile_row, tile_col) = ({tr}, {tc}) staged A's rows {tc * 16} to {tc * 16 + 15}"
            f"{past}, where its rows {tr * 16} to {tr * 16 + 15} belong")


def stale(along, at, k):
    """The ``at`` of a staging that leaves a tile's elements past K (k0 + ``along`` >= K) as the
    step before staged them (those of k0 - 16; none before the first: past the arrays); ``at(
    tile, r, col, kk)``: where k index kk of the tile's element (r, col) lies."""
    def where(tile, k0, r, col):
        kk = k0 + along(k0, r, col)
        return np.where(kk < k, at(tile, r, col, kk), at(tile, r, col, kk - 16) if k0 else 1 << 40)
    return where


def staged(flat_a, flat_b, m, k, n, a_keep=None, b_keep=None, a_at=None, b_at=None,
           product=np.matmul):
    """C as the solution computes it from A and B as their device arrays hold them (NaN after
    each), each step's tiles staged where ``a_keep(k0, r, col)`` (``b_keep``) holds, else 0,
    from A[a_at((tile_row, tile_col), k0, r, col)] (B[b_at(...)]); NaN past the arrays; each
    step adds ``product(As, Bs)`` of its two staged tiles."""
    a_keep = a_keep or (lambda k0, r, col: k0 + col < k)
    b_keep = b_keep or (lambda k0, r, col: k0 + r < k)
    a_at = a_at or (lambda tile, k0, r, col: (tile[0] * 16 + r) * k + k0 + col)
    b_at = b_at or (lambda tile, k0, r, col: (k0 + r) * n + tile[1] * 16 + col)
    r, col = np.indices((16, 16))
    c = np.zeros((m, n))
    for tile in np.ndindex(m // 16, n // 16):
        for k0 in range(0, k, 16):
            tiles = [np.where(keep(k0, r, col), np.append(flat, np.nan)[
                np.minimum(at(tile, k0, r, col), flat.size)], 0)
                for flat, keep, at in ((flat_a, a_keep, a_at), (flat_b, b_keep, b_at))]
            c[tile[0] * 16:tile[0] * 16 + 16, tile[1] * 16:tile[1] * 16 + 16] += product(*tiles)
    return c


def b_column_from_r(got, flat_a, flat_b, m, k, n):
    """(problem, hint) where ``got`` is the C of a Bs staged with B's column inside the tile taken
    from r, B[(k0 + r) * N + tile_col * 16 + r]: each row of Bs one element of B, repeated."""
    at = lambda tile, k0, r, col: (k0 + r) * n + tile[1] * 16 + r  # noqa: E731
    if n > 1 and np.allclose(got, staged(flat_a, flat_b, m, k, n, b_at=at), 1e-4, 1e-3,
                             equal_nan=True):
        yield ("Bs took B's column from r, B[(k0 + r) * N + tile_col * 16 + r], where col belongs: "
               "each row r of Bs held one element of B, B[k0 + r][tile_col * 16 + r], in all its "
               f"16 columns, so in tile (0, 0)'s first step Bs[w][0][1] took B[0][0] "
               f"({flat_b[0]:.4g}) where B[0][1] ({flat_b[1]:.4g}) belongs (C matches this "
               "staging exactly)", "the column inside the tile is col: Bs[w][r][col] = k0 + r < K ? "
               "B[(k0 + r) * N + tile_col * 16 + col] : __float2half(0.0f)")


def a_rows_apart(got, flat_a, flat_b, m, k, n):
    """(problem, hint) where ``got`` is the C of an As staged with A's rows N (or M) long, A[(tile_row
    * 16 + r) * N + k0 + col]: B's row length (A's number of rows) taken for A's, K."""
    for apart, name, what in ((n, "N" if m != n else "N (or M)",
                               "the length of a row of B (and of C)"), (m, "M", "A's number of rows")):
        at = lambda tile, k0, r, col, apart=apart: (tile[0] * 16 + r) * apart + k0 + col  # noqa: E731
        if apart == k or not np.allclose(got, staged(flat_a, flat_b, m, k, n, a_at=at), 1e-4,
                                         1e-3, equal_nan=True):
            continue
        past = (f"; the rows of C's last tiles reached past A's end (NaN here: A has {m} x {k} "
                f"= {m * k} elements)" if (m - 1) * apart + k > m * k else "")
        yield (f"As took A's rows {name} = {apart} elements apart, (tile_row * 16 + r) * "
               f"{name[0]}, {what}, but a row of A holds K = {k}: row 1 of tile (0, 0) was staged "
               f"from A's element {apart}, A[{apart // k}][{apart % k}], where A[1][0], element "
               f"{k}, belongs{past} (C matches this staging exactly)", f"a row of A holds K "
               f"elements, not {name[0]}: A[(tile_row * 16 + r) * K + k0 + col], where k0 + col < K")
        return


FRAGMENT_FROM = {"b": ("A", "As", lambda ta, tb: ta @ ta, "Bs"),
                 "a": ("B", "Bs", lambda ta, tb: tb @ tb, "As")}
"""A fragment loaded from the other matrix's tile: the fragment, (the matrix, its tile, what
each step multiplies, the tile it belongs to)."""


def fragment_from_other_tile(got, flat_a, flat_b, m, k, n):
    """C as a kernel computes it whose a fragment (b) was loaded from Bs (As): each step's tile
    of B (A) times itself; (problem, hint) where ``got`` is that C."""
    for frag, (matrix, tile, product, own) in FRAGMENT_FROM.items():
        if np.allclose(got, staged(flat_a, flat_b, m, k, n, product=product), 1e-4, 1e-3,
                       equal_nan=True):
            which = {"a": "A's fragment a", "b": "B's fragment b"}[frag]
            yield (f"C is each step's tile of {matrix} times itself, {tile} {tile}: {which} was "
                   f"loaded from {tile}, the tile the other fragment loads, so mma_sync "
                   f"multiplied {tile} by {tile}; {own} was staged but never loaded",
                   f"load each fragment from its own tile: wmma::load_matrix_sync({frag}, "
                   f"&{own}[w][0][0], 16)")


def is_close(got, want):
    """Whether C ``got`` is ``want`` to the exercise's tolerance."""
    return bool(np.allclose(got, want, rtol=1e-4, atol=1e-3))


def clamped(got, a, b, k):
    """C = A B plus 16 - K % 16 more products of A's last column and B's last row: the last
    step's tile elements past K took k = K - 1 (an index clamped, min(k0 + col, K - 1)), not 0."""
    extra = 16 - k % 16
    if not is_close(got, a @ b + extra * np.outer(a[:, k - 1], b[k - 1])):
        return
    yield (f"C is A B plus {extra} more products of A's last column (k = {k - 1}) and B's last "
           f"row: past K, the last step's {extra} tile columns of A and rows of B repeated "
           f"element K - 1 = {k - 1} (an index clamped to K - 1, as at an image's border) where "
           "they hold 0, so the product added A[row][K - 1] * B[K - 1][col] "
           f"{extra} times more", "past K there is no matrix: stage 0 there, As[w][r][col] = "
           "k0 + col < K ? A[(tile_row * 16 + r) * K + k0 + col] : __float2half(0.0f), and "
           "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 + col] : "
           "__float2half(0.0f)")


def steps_cut_short(got, a, b, k):
    """C as the product over the first s steps' 16 columns of A only, s short of the last whole
    step (the partial tile alone skipped is named before): the loop's bound was not K, and
    (K + 15) / 16, the count of steps, when s steps are those k0 = 0, 16, ... below it."""
    steps = -(-k // 16)
    for s in range(1, max(0, (k - 1) // 16)):   # ends before k - k % 16 (or k - 16)
        if is_close(got, a[:, :16 * s] @ b[:16 * s]):
            count = -(-steps // 16)   # the steps k0 = 0, 16, ... below (K + 15) / 16
            why = (f"its bound compares k0, a column of A, with (K + 15) / 16 = {steps}, the "
                   "number of steps: an offset checked against a count" if s == count else
                   "it stopped before k0 reached K")
            yield (f"the loop along K took {s} of its {steps} steps: C holds the products of k = "
                   f"0 to {16 * s - 1} only, as {why}", "k0 is a column of A, 0, 16, 32, ...: "
                   "loop while k0 < K, for (int k0 = 0; k0 < K; k0 += 16) (or count the steps "
                   "with a variable of their own, step < (K + 15) / 16)")


def c_stored_col_major(got, want):
    """Each 16 x 16 tile of C holds its tile of ``want`` (A B) transposed: the tile stored with
    wmma::mem_col_major, column after column, where C is row after row. Yields (problem, hint)
    with the element that is furthest off and where its right value went."""
    m, n = want.shape
    tiles = want.reshape(m // 16, 16, n // 16, 16).transpose(0, 3, 2, 1).reshape(m, n)
    if is_close(got, want) or not is_close(got, tiles):
        return
    r, c = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
    mirror = f"[{r // 16 * 16 + c % 16}][{c // 16 * 16 + r % 16}]"
    yield (f"C's tiles were stored column after column (wmma::mem_col_major): each 16 x 16 tile "
           f"of C holds its tile of A B transposed: C[{r}][{c}] = {got[r, c]:.4g} is A B's "
           f"element {mirror}, and A B's [{r}][{c}] = {want[r, c]:.4g} went to C{mirror}",
           "C is stored row after row: store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, "
           "c, N, wmma::mem_row_major)")


STORES = [  # (a wrong store, as written_by's keywords), problem, hint
    (dict(ld=16), "C's tiles were stored with a leading dimension of 16, so their rows overlap",
     "a row of C holds N elements: store_matrix_sync(C + ..., c, N, wmma::mem_row_major)"),
    (dict(start=lambda r, c, n: 16 * r + 16 * c),
     "C's tiles were stored at the wrong place: tile (tile_row, tile_col) starts 16 * tile_row "
     "rows down", "tile (tile_row, tile_col) of C starts at C + tile_row * 16 * N + tile_col * 16"),
    (dict(swapped=True), "the warps took the wrong tiles: tile_row and tile_col are swapped",
     "the warps go along a row of tiles first: tile_row = warp / (N / 16), tile_col = "
     "warp % (N / 16)"),
]


def written_by(m, n, swapped=False, start=lambda r, c, n: 16 * r * n + 16 * c, ld=None,
               whole=False):
    """The (m, n) mask of C's elements a kernel writes whose warp w takes tile_row w / (N / 16)
    and tile_col w % (N / 16) (``swapped``: the other way round) and, where its tile_row is below
    M / 16, stores its 16 x 16 tile at ``start(tile_row, tile_col, N)``, leading dimension ``ld``
    (N by default); ``whole``: flat, past C's end too."""
    written, across = np.zeros(m * n + 16 * n + 16 * (ld or n) * 16, bool), n // 16
    for warp in range(4 * -(-(m // 16) * across // 4)):
        row, col = divmod(warp, across)[::-1] if swapped else divmod(warp, across)
        if row < m // 16:
            at = start(row, col, n)
            for r in range(16):
                written[at + r * (ld or n):at + r * (ld or n) + 16] = True
    return written if whole else written[:m * n].reshape(m, n)


def c_ld(m, k, n, out):
    """C's tiles stored with leading dimension M or K, where N (a row of C) belongs: C's elements
    written, and those past its end, are those such stores cover."""
    for name, ld in (("M", m), ("K", k)):
        if ld == n or not out.past.size and not out.unwritten.any():
            continue
        mask = written_by(m, n, ld=ld, whole=True)
        if np.array_equal(mask[:m * n], ~out.unwritten.ravel()) and \
                np.flatnonzero(mask[m * n:(m + 16) * n]).tolist() == [i - m * n for i in out.past.tolist()]:
            yield (f"C's tiles were stored with leading dimension {name} = {ld}, but a row of C "
                   f"holds N = {n} elements: store_matrix_sync's leading dimension is the number "
                   f"of elements from one row of C to the next, so each tile's rows landed {ld} "
                   "apart", "store_matrix_sync(C + tile_row * 16 * N + tile_col * 16, c, N, "
                   "wmma::mem_row_major)")


def guard_against_n(run, case, launch):
    """The guard tile_row >= N / 16, N where M belongs: with N / 16 > M / 16 the warps of
    tile_rows M / 16 to N / 16 - 1 store below C, C right; told from no guard and from > by a
    launch on the simulator (``launch``, the exercise's) with M = 16, N = 48 and the warps of 6
    rows of tiles, where only tile_rows 1 and 2 store past C."""
    (m, _, n), out = case[:3], run.out
    warps = run.launch.grid[0] * run.launch.block[0] // 32
    if n // 16 <= m // 16 or out.unwritten.any() or not is_close(
            out.got.astype(np.float64), run.model[0] @ run.model[1]) or \
            out.past.tolist() != past_by_row_m(m, n, warps, rows=n // 16 - m // 16):
        return
    wide = launch((16, 5, 48))
    wide = dataclasses.replace(wide, grid=(4, 1), args=tuple(
        dataclasses.replace(a, guard=16 * 5 * 48) if isinstance(a, Output) else a for a in wide.args))
    seen = observe(run.kernel, wide, key="M = 16, N = 48, 6 rows of tiles' warps", racecheck=False)
    if seen.error is None and seen.outs and seen.outs[0].past.tolist() == past_by_row_m(16, 48, 16, 2):
        last = m + 16 * (n // 16 - m // 16) - 1
        yield (f"the warps whose tile_row is M / 16 = {m // 16} went on and stored their tiles below "
               f"C, in rows {m} to {last}: the guard compares tile_row with N / 16 = {n // 16} (a "
               "launch on the simulator with M = 16, N = 48: the warps of tile_row 1 and 2 stored "
               "below C, those of tile_row 3 = N / 16 returned), but N / 16 is the number of tiles "
               "in a row of C", "tile_row counts C's rows of tiles, of which there are M / 16: "
               "if (tile_row >= M / 16) return;")


WHOLE_TILE = {"A": ("As", "k0 + col in A", "As[w][r][col] = k0 + col < K ? A[(tile_row * 16 + r) * K + "
                    "k0 + col] : __float2half(0.0f)"),
              "B": ("Bs", "k0 + r in B", "Bs[w][r][col] = k0 + r < K ? B[(k0 + r) * N + tile_col * 16 "
                    "+ col] : __float2half(0.0f)")}


def last_tile_missing(run, case, rerun, seen):
    """C lacks the last, partial step's products: that step skipped by the loop, or taken (the
    launch on the simulator, ``seen``, staged more steps of tiles than K's whole tiles) with its
    tiles staged as zeros, by zero guards that test the whole tile (k0 + 16 <= K). Which: a launch
    (``rerun``) with A's column K - 1 all inf (B's row) gives NaN only where that tile's guard is
    right (inf times the other's 0)."""
    m, seen_k, n = (int(x) for x in seen.launch.args[3:6])
    k = case[1]
    whole = k - k % 16
    if seen.stats is None or seen.stats.shared_st.lanes <= (m // 16) * (n // 16) * 512 * (seen_k // 16):
        yield (f"the last, partial tile along K was skipped: C lacks the products of k = {whole} to "
               f"{k - 1}", "loop while k0 < K (not k0 + 16 <= K): the last step stages fewer than "
               "16 columns, and 0 after them")
        return
    inf = {side: rerun(run, case, (side, k - 1)) for side in "AB"}
    wrong = [side for side, again in inf.items()
             if again is not None and not np.isnan(again.out.got).any()] or ["A", "B"]
    arrays, indices, _ = (" and ".join(x) for x in zip(*(WHOLE_TILE[side] for side in wrong)))
    guards = (f"the zero guards of {arrays} test" if len(wrong) == 2 else f"{arrays}'s zero guard tests")
    yield (f"the last, partial step (k0 = {whole}) was taken, but its tiles were staged as zeros, "
           f"so C lacks the products of k = {whole} to {k - 1}: {guards} the whole tile (as k0 + "
           "16 <= K does), which is false for every element of the last, partial tile; an element's "
           f"k is {indices}: stage each element whose k is below K, 0 past it",
           "test each element's k: " + ", and ".join(WHOLE_TILE[side][2] for side in wrong))
