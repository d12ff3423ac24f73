"""The NumPy models of ``helpers.exercises.matvec_warp``'s kernel (y = A x, one warp a row):
each column's weight in a row's sum that the mistakes that leave columns out give
(``weighted``), the lanes' sums and warp_sum's shuffles over them, and the known mistakes whose
y is not a weight a column (``models``), each with its problem and hint."""

from __future__ import annotations

import os

import numpy as np

from helpers.exercises import unset

JUNK = np.float32(1000.0)  # past A and x: far from their values (a NaN read would store poison)


def sum_unset(kernels, got, want):
    """A local the simulator's compiler saw read before anything is stored in it (its records:
    ``helpers.exercises.unset``), y being wrong: the lanes' sums started from whatever their
    registers held, not 0 (on the simulator 0xFE bytes, -1.7e38 as a float)."""
    for record in unset.reads(kernels)[:1]:
        r, name = int(np.argmax(~np.isclose(got, want, rtol=1e-4, atol=1e-4))), record.name
        where = f" (declared at line {record.declared})" if record.declared else ""
        yield (f"{name}{where} is read before anything is stored in it: each lane's sum starts "
               "from whatever its register held (on a GPU anything, on the simulator 0xFE bytes, "
               f"-1.7e38 as a float), not 0, and the column loop adds onto that: y[{r}] = "
               f"{got[r]:.6g}, NumPy's is {want[r]:.6g}", f"give {name} a value where it is "
               f"declared, before the column loop adds to it: float {name} = 0.0f;")


def weights(cols, lanes=range(32), step=32):
    """Each column's weight in a row's sum if warp_sum keeps ``lanes``' sums, c += step."""
    weight = np.zeros(cols)
    for lane in lanes:
        weight[lane:cols:step] += 1
    return weight


def weighted(cols, grid, warps):
    """(weight, problem, hint) of the mistakes that give each column a weight in a row's sum."""
    yield (weights(cols, [0]), "each y[row] is lane 0's sum only: warp_sum adds nothing, or "
           "its result was dropped", "in warp_sum, for offset = 16, 8, 4, 2, 1: v += "
           "__shfl_down_sync(0xffffffff, v, offset); and keep its result: v = warp_sum(v)")
    yield (weights(cols, range(16)), "each y[row] holds lanes 0 to 15's sums only",
           "warp_sum starts at offset 16, half the warp, not 8")
    yield (weights(cols, range(0, 32, 2)), "each y[row] holds the even lanes' sums only",
           "warp_sum runs down to offset 1 (offset > 0, not offset > 1)")
    yield (weights(cols, [0, 1, 2, 4, 8, 16]), "each y[row] holds the sums of lanes 0, 1, 2, 4, "
           "8 and 16 only: each step of warp_sum shuffled the lane's first value, not the sum "
           "being built, so lane 0 added lanes 16, 8, 4, 2 and 1's own sums but none they had "
           "gathered", "shuffle the running sum at each step, the same variable the step adds "
           "to: v += __shfl_down_sync(0xffffffff, v, offset)")
    yield (weights(cols, [0]) + 31 * weights(cols, [16]), "each y[row] is lane 0's sum plus 31 "
           "times lane 16's and no other lane's: every step of warp_sum shuffled by 16, not by "
           "its offset, so lane 0 added lane 16's v at each of the 5 steps while lane 16, with no "
           "lane 32 to read from, added its own v to itself (2, 4, 8 and 16 times its sum): lane "
           "16's sum came in 1 + 2 + 4 + 8 + 16 = 31 times", "shuffle by the loop's offset, "
           "which halves at each step (16, 8, 4, 2, 1): v += __shfl_down_sync(0xffffffff, v, "
           "offset)")
    yield (weights(cols, step=1), "lane l added every column from l to the end: its loop "
           "steps by 1, so the lanes' stretches overlap", "step by the warp's width, c += 32")
    yield (np.arange(cols) >= cols - 32, "each y[row] holds only the row's last 32 products: "
           "v = A[...] * x[c] replaced each lane's sum at each turn of the loop, where it adds",
           "add each product to the lane's sum: v += A[row * cols + c] * x[c]")
    left = f"the last {cols % 32} columns were" if cols % 32 > 1 else "the last column was"
    yield (np.arange(cols) < cols // 32 * 32, f"{left} not added (past the last multiple of "
           "32): the loop ran cols / 32 turns, which rounds down",
           "for (int c = lane; c < cols; c += 32): every column below cols, whatever cols is")
    if cols > 32:
        yield (np.arange(cols) < 32, "each y[row] holds only columns 0 to 31 of its row, which "
               f"has cols = {cols}: each lane added one product, its own column's (lane l "
               "column l), and the warp's 32 lanes cover only the row's first 32 columns",
               "loop each lane along the row, 32 columns a turn: for (int c = lane; c < cols; "
               "c += 32) v += A[row * cols + c] * x[c]")
    yield (weights(cols, step=32 * grid), "lane l stepped by blockDim.x * gridDim.x (a "
           "grid-stride loop), not by 32: most of the row's columns were skipped",
           "the warp's 32 lanes share a row: step by the warp's width, c += 32")
    yield (weights(cols, step=32 * warps), "lane l stepped by blockDim.x * blockDim.y (the "
           "block's threads), not by 32: most of the row's columns were skipped",
           "the warp's 32 lanes share a row: step by the warp's width, c += 32")
    yield (weights(cols, step=warps), f"lane l stepped by blockDim.y = {warps} (the block's "
           "warps, one a row), not by 32: the lanes' columns overlap, so each column was added "
           "by several lanes", "the warp's 32 lanes share a row: step by the warp's width, c += 32")
    if cols > 32 * 32:
        yield (np.arange(cols) < 32 * 32, f"columns 1024 to {cols - 1} were never added: each "
               "lane summed a fixed stretch of 32 neighbouring columns (lane * 32 to lane * 32 + "
               "31), and 32 lanes of 32 columns cover only 1024 (the lanes also read floats 32 "
               "apart at each step, so their reads are not coalesced)", "let the lanes take "
               "turns along the row, for (int c = lane; c < cols; c += 32): every column below "
               "cols, whatever cols is, and the warp reads 32 neighbouring floats at each step")


def x_parts(x):
    """(32,): the sum of x[c] over the columns c = l, l + 32, ... of each lane l."""
    return np.array([x[lane::32].sum() for lane in range(32)])


def lane_sums(a, x):
    """(rows, 32): lane l's sum of A[row][c] * x[c] over c = l, l + 32, ..."""
    parts = np.zeros((a.shape[0], 32))
    for lane in range(32):
        parts[:, lane] = a[:, lane::32] @ x[lane::32]
    return parts


def shfl_sync_sum(parts, offsets=(16, 8, 4, 2, 1)):
    """Lane 0's value after warp_sum's steps written with __shfl_sync: every lane adds the v of
    lane ``offset`` itself."""
    for offset in offsets:
        parts = parts + parts[:, offset:offset + 1]
    return parts[:, 0]


def shfl_down_sum(parts, offsets, delta=lambda lanes, offset: offset, lane=0):
    """Lane ``lane``'s value after warp_sum's __shfl_down_sync steps through ``offsets``, each
    lane's delta ``delta(lanes, offset)``: as on a GPU, only the delta's low 5 bits count, and a
    lane whose source is past 31 gets its own value back."""
    lanes = np.arange(32)
    for offset in offsets:
        source = lanes + (delta(lanes, offset) & 31)
        parts = parts + np.where(source < 32, parts[:, np.minimum(source, 31)], parts)
    return parts[:, lane]


def _first_offsets(parts):
    """(y, problem, hint) of warp_sum's shuffles started at another offset than 16, half the
    warp, and halved from there: 32, or 31, the highest lane's number (``parts``: the lanes'
    sums)."""
    yield (shfl_down_sum(parts, (32, 16, 8, 4, 2, 1)), "every y[row] is 2 times the row's sum: "
           "warp_sum's first shuffle, offset 32, reaches past the warp (lanes 0 to 31), where "
           "__shfl_down_sync hands each lane its own v back, so that step doubled every lane's "
           "sum", "start at offset 16, half the warp: for (int offset = 16; offset > 0; "
           "offset /= 2)")
    yield (shfl_down_sum(parts, (31, 15, 7, 3, 1)), "warp_sum's offsets were 31, 15, 7, 3, 1: "
           "halving from 31, the highest lane's number, where half the warp, 16, belongs: a lane "
           "whose source lay past lane 31 got its own v back, doubling it, so lane 0's total "
           "holds some lanes' sums twice and leaves others out (lanes 2, 5, 6, ...)",
           "start at half the warp and halve down to 1: for (int offset = 16; offset > 0; "
           "offset /= 2)")


def models(a, x):
    """(y, problem, hint) of the known mistakes that are not a weight a column (``weights``)."""
    rows, cols = a.shape
    by_column = a.ravel()[np.arange(cols)[None, :] * rows + np.arange(rows)[:, None]]
    yield (by_column @ x, "A was read down its columns, A[c * rows + row]: A is stored row after "
           "row", "row `row` of A starts at A[row * cols]: A[row * cols + c]")
    flat = np.concatenate([a.ravel(), np.full(rows * max(rows, 32) + cols, JUNK)])
    for apart, name, what in ((rows, "rows", ""), (32, "32", "32 is the warp's width, the "
                                                    "lanes that share a row, but ")):
        yield (flat[np.arange(rows)[:, None] * apart + np.arange(cols)] @ x, f"A's rows were "
               f"read {name} floats apart, A[row * {name} + c]: {what}a row of A holds cols "
               "floats", "row `row` of A starts at A[row * cols]: A[row * cols + c]")
    yield (flat[np.arange(rows)[:, None] + np.arange(cols)] @ x, f"A was read at A[row + c]: "
           f"row was not multiplied by cols = {cols}, a row's length, so row `row` began at A[row] "
           f"(y[1] added A[1] to A[{cols}], row 0 shifted by one) where it starts at A[row * cols]",
           "A[row * cols + c]: skip cols floats for each row above")
    parts = lane_sums(a, x)
    yield from _first_offsets(parts)
    yield (parts[:, 31], "each y[row] is lane 31's sum alone: warp_sum's v = "
           "__shfl_down_sync(...) replaced v with the lane above's at each step, where it adds "
           "it", "v += __shfl_down_sync(0xffffffff, v, offset)")
    padded = np.concatenate([x, np.full(max(rows - cols, 0), JUNK)])
    yield (a.sum(axis=1) * padded[:rows], "x was read at the row, x[row], where each product "
           "takes the column's element: y[row] came out x[row] times the sum of row row of A",
           "v += A[row * cols + c] * x[c]: A's column c meets x's element c")
    yield ((a * x[np.arange(cols) % 32]).sum(axis=1), "A's elements were multiplied by x[lane], "
           "not x[c]", "v += A[row * cols + c] * x[c]: the column's own element of x")
    yield ((a[:, :32] * x_parts(x)[:min(cols, 32)]).sum(axis=1), "A was read at the lane's "
           "column, A[row * cols + lane], at every turn, while x[c] moved on: each lane "
           "multiplied one element of A by its columns' x", "v += A[row * cols + c] * x[c]: "
           "A's element and x's move on together")
    yield (shfl_down_sum(parts, (16, 8, 4, 2, 1), lambda lanes, offset: lanes + offset),
           "warp_sum gave __shfl_down_sync a lane number, lane + offset, where it takes a "
           "distance: each lane read the v that many lanes above it (the distance counted "
           "modulo 32), not lane + offset's", "the third argument is how "
           "many lanes above: v += __shfl_down_sync(0xffffffff, v, offset)")
    yield (shfl_down_sum(parts, range(16, 0, -1)), "warp_sum's offset steps down by 1 "
           "(offset--): offsets 16, 15, 14, ..., 1 add the lanes' values into each other again "
           "and again", "halve the offset at each step: for (int offset = 16; offset > 0; "
           "offset /= 2)")
    for width in (16, 8, 4, 2):
        yield (shfl_down_sum(parts, (16, 8, 4, 2, 1), lambda lanes, offset, w=width: np.where(
            lanes % w + offset < w, offset, 32)), f"warp_sum's __shfl_down_sync was given a width "
            f"of {width}: it then shuffles within groups of {width} lanes, so lane 0 added lanes 0 "
            f"to {width - 1} only, and each step whose offset reached past the group handed every "
            "lane its own v back, doubling it", "drop the width argument (it is 32 by default, "
            "the whole warp): v += __shfl_down_sync(0xffffffff, v, offset)")
    yield (shfl_sync_sum(parts),
           "warp_sum uses __shfl_sync, which hands every lane the v of lane `offset` itself",
           "use __shfl_down_sync(0xffffffff, v, offset), the v of the lane offset places above")
    yield (shfl_sync_sum(parts, range(1, 32)), "warp_sum added __shfl_sync(0xffffffff, v, i) "
           "for i = 1 to 31 into v itself: every step hands each lane lane i's v, which the steps "
           "before had already grown, so the lanes' sums are added again and again",
           "add with __shfl_down_sync, halving the offset: for (int offset = 16; offset > 0; "
           "offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset)")


def lane_0_doubled(kernels, launch, parts, got):
    """(problem, hint) of y = 32 times lane 0's sum (``parts``: the lanes' sums), told apart by a
    trace of ``launch`` on the simulator: the lanes of row 0's warp all read the same elements of
    A (the column loop from c = 0, every lane's sum lane 0's), or each its own (warp_sum's
    shuffle handed lane 0 its own v back at each of its 5 steps, as __shfl_up_sync does)."""
    from helpers.exercises.microscope import accesses_of

    if not np.allclose(got, 32 * parts[:, 0], rtol=1e-4, atol=1e-4):
        return
    kept = accesses_of(kernels, launch, "loads of A", 4096)
    if kept is None:
        return
    row_0 = kept[(kept["array"] == "A") & ~kept["write"] & (kept["block"] == 0) &
                 (kept["warp"] == 0)]
    first = {int(lane): int(row_0["index"][row_0["lane"] == lane][0]) for lane in (0, 1)
             if (row_0["lane"] == lane).any()}
    said = f"y[0] = {got[0]:.6g} = 32 x {parts[0, 0]:.6g}"
    if len(first) == 2 and first[0] == first[1]:
        yield (f"each y[row] is 32 times lane 0's sum: every lane of a warp read the same elements "
               f"of A (on the simulator lanes 0 and 1 of row 0 both read A[{first[0]}]): the "
               "column loop starts at c = 0, not at the lane's own column, so the 32 lanes added "
               f"the same products and warp_sum summed 32 copies ({said})",
               "lane l starts at its own column: for (int c = lane; c < cols; c += 32)")
    elif len(first) == 2:
        yield (f"each y[row] is 32 times lane 0's own sum, the products of its columns 0, 32, 64, "
               f"... alone, though the lanes read their own columns: lane 0 got its own v back at "
               "each of warp_sum's 5 steps and doubled it (2 ** 5 = 32), so the other lanes' sums "
               f"never reached it ({said}); __shfl_up_sync does that: it reads lane l - offset, "
               "and below lane 0 there is none, so lane 0 keeps its own v",
               "take the value from offset lanes above, so the sums flow down to lane 0: "
               "v += __shfl_down_sync(0xffffffff, v, offset)")


def read_past_the_row(seen, cols, traced=40):
    """Lanes that read past the row's end on the column loop's last step: in ``seen``, a trace of
    A 8 x ``traced`` (``accesses_of``), the reads of x past its ``traced`` are exactly lanes
    traced % 32 to 31 at c + lane with c = the last multiple of 32 (the columns walked in chunks
    of 32 from 0, c + lane never checked against cols); told for the case's ``cols``."""
    if seen is None or not cols % 32:
        return
    reads = seen[(seen["array"] == "x") & ~seen["write"] & ~seen["shared"]]
    past = reads[reads["index"] >= traced]
    if not len(past) or set(past["lane"].tolist()) != set(range(traced % 32, 32)) or \
            (past["index"] - past["lane"] != traced // 32 * 32).any():
        return
    k, last = cols % 32, cols // 32 * 32
    yield (f"on the last step of the column loop (cols = {cols}: c = {last}) lanes {k} to 31 "
           f"read columns c + lane = {cols} to {last + 31}, past the row's {cols} (x[{cols}] is "
           f"past x's end, and A[row * cols + {cols}] is the next row's first element): c + lane "
           f"is never checked against cols (a trace of A 8 x {traced} shows it: at c = "
           f"{traced // 32 * 32} lanes {traced % 32} to 31 read x[{traced}] to "
           f"x[{traced // 32 * 32 + 31}])", "guard the step with if (c + lane < cols), or start "
           "each lane at its own column: for (int c = lane; c < cols; c += 32) v += A[row * "
           "cols + c] * x[c];")


def in_an_int(a, x, got):
    """(problem, hint) where y holds whole numbers that a sum kept in an int gives: the lanes'
    sums cut to their whole part (toward 0) before warp_sum adds them, or the row's sum after it.
    A lane's sum that lies within a float's rounding of a whole number may be cut the other way
    than the model's: a row may miss by 1, most rows match."""
    if not (np.isfinite(got).all() and np.array_equal(got, np.trunc(got))):
        return
    parts = lane_sums(a, x)
    for model, problem, hint in (
            (np.trunc(parts).sum(axis=1), "warp_sum added the lanes' sums in an int, so each "
             "lane's sum lost its fraction (cut toward 0) before the shuffles added them",
             "shuffle and add warp_sum's float v itself, v += __shfl_down_sync(0xffffffff, v, "
             "offset), and return v"),
            (np.trunc(parts.sum(axis=1)), "the row's sum was cut to an int (toward 0) after "
             "warp_sum added the lanes: it returned an int, or its result was kept in one",
             "warp_sum returns a float, __device__ float warp_sum(float v), and its result goes "
             "into a float, v = warp_sum(v)")):
        if np.abs(got - model).max() <= 1 and np.mean(got == model) >= 0.9:
            yield f"y holds whole numbers: {problem}", f"the sum is kept in an int: keep it a float: {hint}"


def float4_off_a_row(failure):
    """A float4 load from A that a GPU refuses as a misaligned address (on the simulator's bounds
    check a MisalignedAddressError: its element of A, its thread and line) a whole number of
    float4 past the start of its row, A + row * cols, that start itself no multiple of 16 bytes:
    float4 loads from rows that start 16-byte aligned only where cols is a multiple of 4."""
    err, launch = failure.error, failure.launch
    if failure.kind != "misaligned address" or getattr(err, "size", None) != 16 or \
            err.array != "A" or err.element is None or err.thread is None or launch is None:
        return
    cols = int(launch.args[4])
    row = err.element // cols
    start = row * cols
    if start % 4 == 0 or (err.element - start) % 4:
        return
    yield (f"lane {err.thread[0]} of the warp of row {row} loaded a float4 from A[{err.element}] "
           f"at {os.path.basename(err.line or '?')}, byte {4 * err.element}, {err.misalignment} "
           "past a multiple of 16 (on a GPU a \"misaligned address\"): a float4 must start at a "
           f"multiple of 16 bytes, and row {row} starts at A + row * cols = A + {start}, byte "
           f"{4 * start}, {4 * start % 16} past one: a row starts at a multiple of 16 bytes only "
           f"where cols is a multiple of 4, and here cols = {cols}",
           "load 4 floats at a time only where cols % 4 == 0, where every row starts at a "
           "multiple of 16 bytes, and one float at a time otherwise: for (int c = lane; c < "
           "cols; c += 32) v += A[row * cols + c] * x[c];")
