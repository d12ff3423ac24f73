"""The readers of ``helpers.exercises.wmma_partial_k``'s failed launches (its ``_refine`` and the
simulator's launch): a warp with no tile that went on staging and read past A
(``warp_without_tile``), a staging loop that ran past the tile's 256 elements
(``rows_past_the_tile``), a staged tile loaded with a leading dimension other than its 16
(``tile_loaded_apart``), and a tile loaded straight from A with A's K, not a multiple of 8 halves
(``loaded_in_place``)."""

from __future__ import annotations

import re

STAGED = ("staged A's rows tile_row * 16 + r", "the return for warps past the last tile is gone "
          "(guarding the store alone leaves the staging to them)", "keep if (tile_row >= M / 16) "
          "return; before the loop: the whole warp leaves, so __syncwarp() and the wmma calls "
          "still see all 32 lanes of every warp that stays")
"""``warp_without_tile``'s words for this exercise: what the warp did, why, the hint."""


def warp_without_tile(failure, words=STAGED):
    """(problem, hint) of a read past an input by a warp whose tile_row is past C's last row of
    tiles (warp / (N / 16) >= M / 16): the warp had no tile, yet went on staging (its return
    taken out, the store alone guarded), A's rows tile_row * 16 + r past M; None otherwise.
    ``words``: what it did, why and the hint (wmma_gemm's: it loaded A's tiles)."""
    err, launch = failure.error, failure.launch
    if (failure.kind != "out of bounds" or err.is_write is not False or not launch
            or not failure.block or not err.block or not err.thread):
        return None
    m, _, n = (int(x) for x in launch.args[3:6])
    warp = (err.block[0] * failure.block[0] + err.thread[0]) // 32
    tile_row, first = warp // (n // 16), err.thread[0] // 32 * 32
    a = launch.args[0]   # its size with the junk after it, or alone (microscope.exact)
    if tile_row < m // 16 or (err.allocation or (0, 0))[1] not in (a.host().nbytes, a.values.nbytes):
        return None   # a warp with a tile, or a read past another array than A
    did, why, hint = words
    return (f"warp {warp} (threads {first} to {first + 31} of block {err.block[0]}) has no tile "
            f"(tile_row = {tile_row}, M / 16 = {m // 16}), yet it {did} = {tile_row * 16} to "
            f"{tile_row * 16 + 15}, past A's {m}, and read past its end: {why}", hint)


def rows_past_the_tile(lane, row):
    """(problem, hint) of a tile's row index past its 16 (``row``, by ``lane``): the staging loop
    ran i past 255; lane 0 first at i = 256, a bound one too many."""
    i = "i = 256: r = i / 16 = 16" if (lane, row) == (0, 16) else f"r = i / 16 = {row}"
    return (f"lane {lane} staged {i}, a row past the tile's 16 (rows 0 to 15 hold i = 0 to 255): "
            "the staging loop ran i on past the tile's last element, 255 (i <= 256 is one too "
            "many)", "a tile has 256 elements, i = 0 to 255: for (int i = lane; i < 256; i += 32)")


def tile_loaded_apart(kernels, seen):
    """(problem, hint) of a read past the staged tiles in shared memory (``seen``: the simulator's
    launch) on a line of the learner's source (``error_line``, shared with matmul_wide) that loads
    a fragment from As or Bs with a leading dimension other than the staged tile's 16, M, K or N
    (the matrix's, as in wmma_gemm), or a number: its rows lie that far apart, so the warps read
    into the next warps' tiles and the last past the array; None otherwise."""
    from helpers.exercises.matmul_wide_models import error_line

    err, launch = seen.error, seen.launch
    if getattr(err, "kind", None) != "out of bounds" or getattr(err, "space", None) != "shared" or \
            err.is_write or not launch:
        return None
    number, text = error_line(kernels, err) or (None, "")
    found = re.search(r"load_matrix_sync\s*\(\s*(\w+)\s*,\s*(&?\s*(As|Bs)\b[^,]*),\s*(\w+)\s*\)", text)
    sizes = dict(zip("MKN", (int(x) for x in launch.args[3:6])))
    ld = found and (sizes.get(found.group(4)) or (int(found.group(4)) if found.group(4).isdigit() else 0))
    if not found or not ld or ld == 16:
        return None
    frag, pointer, tile, said = found.group(1), found.group(2).strip(), found.group(3), found.group(4)
    said = f"{said} = {ld}" if said in sizes else said
    return (f"line {number} loads {frag} from {pointer}, a 16 x 16 tile staged in shared memory, "
            f"with leading dimension {said}: its rows were read {ld} halves apart, so the warps "
            f"read into the next warps' tiles and past {tile} (on the simulator thread "
            f"{err.thread[0]} of block {err.block[0]} read past {tile}'s end); {said} is a row "
            "of the matrix in global memory, not of the staged tile",
            f"the staged tile's rows are 16 halves apart: load_matrix_sync({frag}, {pointer}, 16)")


def loaded_in_place(failure):
    """(problem, hint) of a wmma rule broken (the simulator's "warp matrix" error, with no rule of
    its own) on a line of the learner's source (``error_line``) that loads a fragment with a
    leading dimension M, K, N or a number that is not a multiple of 8 halves (16 bytes), from no
    staged tile: a tile loaded straight from its matrix in global memory, whose rows of K halves
    are not; None otherwise."""
    from helpers.exercises.matmul_wide_models import error_line

    err, launch = failure.error, failure.launch
    if failure.kind != "warp matrix" or getattr(err, "rule", None) or not launch or \
            not failure.kernel:
        return None
    number, text = error_line(failure.kernel, err) or (None, "")
    found = re.search(r"load_matrix_sync\s*\(\s*(\w+)\s*,\s*([^,]+),\s*(\w+)\s*\)", text)
    sizes = dict(zip("MKN", (int(x) for x in launch.args[3:6])))
    said = found.group(3) if found else ""
    ld = sizes.get(said) or (int(said) if said.isdigit() else 0)
    frag, pointer = (found.group(1), found.group(2).strip()) if found else ("", "")
    if not ld or ld % 8 == 0 or re.search(r"\b(As|Bs)\b", pointer):   # not a staged tile's
        return None
    said = f"{said} = {ld}" if said in sizes else said
    return (f"line {number} loads fragment {frag} straight from {pointer}, in global memory, with "
            f"leading dimension {said}: load_matrix_sync takes a leading dimension only in "
            f"multiples of 8 halves (16 bytes), which {said} is not, so the simulator stopped the "
            "launch there (on a GPU such a load is undefined)",
            "stage every tile in shared memory, the whole ones too, as the last one, and load "
            "it from there, its rows 16 halves apart: load_matrix_sync(a, &As[w][0][0], 16), "
            "load_matrix_sync(b, &Bs[w][0][0], 16)")
