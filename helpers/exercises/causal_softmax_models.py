"""The NumPy models of notebook 14's causal softmax (one warp a row) that
``helpers.exercises.causal_softmax`` compares a kernel's output with: the right one and those of
the warp's reductions gone wrong."""

from __future__ import annotations

import numpy as np


def visible(rows, cols, ahead=0):
    """True where column c of row r takes part: c <= r (c <= r + ahead)."""
    return np.arange(cols)[None, :] <= np.arange(rows)[:, None] + ahead


def sunk(rows):
    """The rows whose visible scores are all far below 0: rows 35, 39, 43, ..."""
    return np.arange(35, rows, 4)


def late(rows):
    """The rows whose largest visible scores lie past column 31: rows 33, 37, 41, ..."""
    return np.arange(33, rows, 4)


def far(rows, cols):
    """Where the scores are about 150 above the rest of their row: the visible columns past
    1023 (only rows 1024 on see them), which 32 lanes of 32 columns each would miss."""
    return visible(rows, cols) & (np.arange(cols)[None, :] >= 1024)


def _shifted(x, m, flush=False):
    """What subtracting ``m`` (one a row) gives, its exps in float32, as a kernel's overflow
    (inf, and inf / inf is NaN) and underflow (0 / 0) do; with ``flush``, exps below float's
    smallest normal are 0 (as a GPU's __expf may flush them)."""
    seen = visible(*x.shape)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        e = np.where(seen, np.exp((x.astype(np.float64) - np.asarray(m)[:, None])
                                  .astype(np.float32)), 0).astype(np.float64)
        e = np.where(flush & (e < np.finfo(np.float32).tiny), 0, e)
        return np.where(seen, e / e.sum(axis=1, keepdims=True), 0)


def softmax(x, seen=None, shift=None, summed=None):
    """The causal softmax in float64 over the columns ``seen`` (by default the visible ones),
    less ``shift`` (by default each row's max over them), divided by the sum over the columns
    ``summed`` (by default the seen ones); a row that sees no column is 0."""
    x = x.astype(np.float64)
    seen = visible(*x.shape) if seen is None else seen
    if shift is None:
        shift = np.where(seen, x, -np.inf).max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - np.where(np.isinf(shift), 0, shift))
        total = np.where(seen if summed is None else summed, e, 0).sum(axis=-1, keepdims=True)
        return np.where(seen, e / np.maximum(total, 1e-300), 0)


def _near(got, model):
    return np.allclose(got, model, rtol=4e-3, atol=1e-4)


def _exps(x):
    """exp(x - m) over each row's visible columns (m their max), 0 in the masked ones."""
    seen = visible(*x.shape)
    x = np.where(seen, x.astype(np.float64), -np.inf)
    return np.where(seen, np.exp(x - x.max(axis=1, keepdims=True)), 0)


def _shfl_down_sums(e):
    """What each column's lane holds after warp_sum written with __shfl_down_sync: a lane whose
    source (lane + offset) is past 31 gets its own value back, so only lane 0 ends with the row's
    whole sum."""
    part = np.stack([e[:, lane::32].sum(axis=1) for lane in range(32)], axis=1)
    for offset in (16, 8, 4, 2, 1):
        source = np.arange(32) + offset
        part = part + np.where(source < 32, part[:, np.minimum(source, 31)], part)
    return part[:, np.arange(e.shape[1]) % 32]


def _shfl_down_max(x):
    """What each column's lane subtracts after a warp max written with __shfl_down_sync: lane l
    takes fmaxf with lane l + offset for offset 16, 8, 4, 2, 1 while l + offset < 32 (past 31 it
    gets its own value back), so only lane 0 ends with the row's max, the others with the max of
    part of it."""
    seen = np.where(visible(*x.shape), x.astype(np.float64), -np.inf)
    part = np.full((x.shape[0], 32), -np.inf)
    for lane in range(min(32, x.shape[1])):
        part[:, lane] = seen[:, lane::32].max(axis=1)
    for offset in (16, 8, 4, 2, 1):
        source = np.arange(32) + offset
        part = np.maximum(part, np.where(source < 32, part[:, np.minimum(source, 31)], part))
    return part[:, np.arange(x.shape[1]) % 32]


def _lanes_own_max(x):
    """What each lane subtracting only its own visible columns' max gives."""
    seen = np.where(visible(*x.shape), x.astype(np.float64), -np.inf)
    shift = np.empty(x.shape)
    for lane in range(min(32, x.shape[1])):
        shift[:, lane::32] = seen[:, lane::32].max(axis=1, keepdims=True)
    return softmax(x, shift=shift)


def max_of_row_0(x, got, kernels):
    """The max's loop reading x[c], the first row, where in[c] (the row's own) belongs: each
    row's m the max of row 0's columns 0 to last (which changes only how the exps underflow), and
    on the simulator the warps of rows past 0 loading row 0's scores."""
    last = np.minimum(np.arange(x.shape[0]), x.shape[1] - 1)
    m = np.maximum.accumulate(x[0].astype(np.float64))[last]
    if any(np.allclose(got, _shifted(x, m, flush), rtol=4e-3, atol=1e-4, equal_nan=True)
           for flush in (False, True)) and _rows_load_row_0(kernels):
        yield ("every row subtracted the max of the first row's scores (its columns 0 to last), "
               "not its own: the max's loop read x[c], and x points at the whole matrix, row 0 "
               "first; in = x + row * cols points at the row",
               "read the row's own scores in the max's loop, as the sum's loop does: m = "
               "fmaxf(m, __half2float(in[c]))")


def _loads_of_x(kernels, rows, cols, seed, key):
    """The traced loads of x (the array no thread wrote) in a launch on the simulator of ``rows``
    rows of ``cols`` random scores, one warp a block; None where the launch failed or kept no
    trace (``key`` names the observation in the microscope's cache)."""
    from helpers.exercises.common import Input, Output
    from helpers.exercises.kernel import Launch
    from helpers.exercises.microscope import accesses_of

    x = np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float16)
    kept = accesses_of(kernels, Launch((Input(x), Output((rows, cols), np.float16),
                                        np.int32(rows), np.int32(cols)), block=(32, 1, 1),
                                       grid=(rows, 1)), key, 8192)
    if kept is None:
        return None
    return kept[~kept["write"] & ~kept["shared"] & ~np.isin(kept["array"],
                                                               kept["array"][kept["write"]])]


def _rows_load_row_0(kernels, rows=4, cols=40) -> bool:
    """Whether, in a launch on the simulator of ``rows`` rows, one warp a block, the warps of
    rows past 0 loaded scores of row 0 (a trace of its loads of x, the array no thread wrote)."""
    loads = _loads_of_x(kernels, rows, cols, seed=5, key="rows' loads")
    return loads is not None and bool(((loads["block"] > 0) & (loads["index"] < cols)).any())


ROW_HINT = ("a block holds blockDim.x / 32 warps, one a row: row = blockIdx.x * (blockDim.x / 32) "
            "+ threadIdx.x / 32")


def rows_of_warps(x, got, unwritten, block, probed):
    """Whole rows never written, those written right and b * blockDim.x + w (warp w of block b),
    here and in ``probed()``'s launch, the rows written of 70 with one warp a block (rows 0, 32,
    64; a kernel whose every block takes rows 0, 1, ... writes row 0 alone)."""
    rows, warps = x.shape[0], block // 32
    written = ~unwritten.all(axis=1)
    if written.all() or not written.any() or unwritten[written].any() or \
            not _near(got[written], softmax(x)[written]):
        return
    yield from _blocks_overlapping(rows, block, written)
    ys = (np.arange(-(-rows // warps))[:, None] * block + np.arange(warps)).ravel()
    if np.array_equal(np.flatnonzero(written), ys[ys < rows]) and \
            np.array_equal(probed(), [0, 32, 64]):
        yield (f"only rows {_spans(np.flatnonzero(written))} of {rows} were written, each "
               f"right: warp w of block b took row b * blockDim.x + w = b * {block} + w, the "
               "block's threads counted where its warps belong, so the blocks past the first "
               "jumped past rows that no warp took", ROW_HINT)


def _blocks_overlapping(rows, block, written):
    """Rows b + w alone written (each right), warp w of block b's: blockIdx.x not scaled by the
    block's warps, so block b's rows start at b and overlap block b + 1's."""
    warps = block // 32
    grid = -(-rows // warps)
    ys = np.unique(np.arange(grid)[:, None] + np.arange(warps))
    if warps > 1 and np.array_equal(np.flatnonzero(written), ys[ys < rows]):
        yield (f"only rows {_spans(np.flatnonzero(written))} of {rows} were written, each right: "
               "warp w of block b took row b + w, blockIdx.x not scaled by the block's "
               f"{warps} warps, so the blocks' rows overlap (block 1 took rows 1 to {warps}, "
               f"block 0's warp 1 row 1 too) and the rows from {grid + warps - 1} on went to no "
               "warp", ROW_HINT)


def _spans(ys):
    """Sorted row numbers as spans: 0 to 19, 23, 25, 26."""
    parts = np.split(ys, np.flatnonzero(np.diff(ys) != 1) + 1)
    return ", ".join(f"{p[0]} to {p[-1]}" if p.size > 2 else ", ".join(map(str, p)) for p in parts)


def max_of_first_columns(x, got, kernels):
    """The max's loop reading in[lane] every time round, where in[c] belongs: m the max of
    columns 0 to min(31, last) (NaN or inf where a row's largest scores lie past column 31), and
    on the simulator a lane's loads at one line of the loop all of its first column."""
    last = np.minimum(np.arange(x.shape[0]), x.shape[1] - 1)
    seen = visible(*x.shape) & (np.arange(x.shape[1]) < 32)
    m = np.where(seen, x.astype(np.float64), -np.inf).max(axis=1)
    if (last >= 32).any() and any(np.allclose(got, _shifted(x, m, flush), rtol=4e-3, atol=1e-4,
                                              equal_nan=True) for flush in (False, True)) \
            and _loop_kept_to_first_column(kernels):
        yield ("each lane's max came from one column: the max's loop read in[lane], the lane's "
               "first column, every time round, so m missed the columns past 31 and exp(x - m) "
               "overflowed a float in the rows whose largest scores lie there",
               "read the loop's column, in[c], not in[lane]: m = fmaxf(m, __half2float(in[c]))")


def _loop_kept_to_first_column(kernels, rows=40, cols=40) -> bool:
    """Whether, in a launch on the simulator of ``rows`` rows, one warp a block, some lane loaded
    its row's first column (column lane) twice or more at one line, and nothing else there."""
    loads = _loads_of_x(kernels, rows, cols, seed=6, key="lanes' columns")
    if loads is None:
        return False
    first = loads["index"] == loads["block"] * cols + loads["lane"]
    groups = {}
    for key, own in zip(zip(loads["block"], loads["lane"], loads["line"]), first):
        groups.setdefault(key, []).append(bool(own))
    return any(len(own) > 1 and all(own) for own in groups.values())


def _near_nan_any(got, x, m):
    """Whether ``got`` is what subtracting ``m`` gives, its tiny exps flushed to 0 or not."""
    return any(np.allclose(got, _shifted(x, m, flush), rtol=4e-3, atol=1e-4, equal_nan=True)
               for flush in (False, True))


def max_of_column_numbers(x, got):
    """The max's loop taking the column number c where the score in[c] belongs: m the row's
    last column, min(row, cols - 1), told from no max at all (m = 0) by the rows where the two
    overflow differently."""
    rows = x.shape[0]
    last = np.minimum(np.arange(rows), x.shape[1] - 1).astype(np.float64)
    if _near_nan_any(got, x, last) and not _near_nan_any(got, x, np.zeros(rows)):
        yield ("every row subtracted its last column's number, min(row, cols - 1), not its "
               "largest score: the max's loop took fmaxf(m, c), the loop's column number c, "
               "so m missed the scores of about 100 and exp(x - m) overflowed a float",
               "take the score at column c: m = fmaxf(m, __half2float(in[c]))")


MAGNITUDE = 40  # rows and columns of the launch that ``max_of_magnitudes`` makes


def max_of_magnitudes(kernels):
    """The max taken over the scores' magnitudes, |x|: a launch on the simulator of small
    scores whose column 1 is -130, one warp a block, comes out as m = max |x| (130) gives, NaN
    in rows 1 on (every exp(x - 130) underflows to 0), row 0 right; a max that starts at 0 gets
    every row right."""
    from helpers.exercises.common import Input, Output
    from helpers.exercises.kernel import Launch
    from helpers.exercises.microscope import observe

    rows = cols = MAGNITUDE
    x = np.random.default_rng(8).standard_normal((rows, cols)).astype(np.float16)
    x[:, 1] = -130
    seen = observe(kernels, Launch((Input(x), Output((rows, cols), np.float16), np.int32(rows),
                                    np.int32(cols)), block=(32, 1, 1), grid=(rows, 1)),
                   key="max of magnitudes", racecheck=False)
    size = np.where(visible(rows, cols), np.abs(x.astype(np.float64)), -np.inf).max(axis=1)
    if seen.error is None and _near_nan_any(seen.outs[0].got.astype(np.float64), x, size):
        yield ("y is NaN in exactly the rows whose visible scores are all below -120: m came "
               "out above every score of those rows, as a max of the scores' magnitudes, "
               "fmaxf(m, fabsf(x)), gives (and each exp(x - m) underflowed to 0); a row of small "
               "scores with one of -130 came out NaN too",
               "take the max of the scores themselves, not of their magnitudes: m = fmaxf(m, "
               "__half2float(in[c])); subtracting the largest score is what keeps exp from "
               "overflowing")


def max_of_first_1024_columns(x, got, bad):
    """NaN or inf in exactly the rows that see columns past 1023 (``bad``), as a max over
    columns 0 to 1023 alone gives: 32 lanes that each take 32 columns (neighbouring, or 32
    apart) never reach column 1024, and exp(x - m) overflows where the row's scores lie there."""
    rows, cols = x.shape
    if not bad or bad != set(np.flatnonzero(far(rows, cols).any(axis=1))):
        return
    m = np.where(visible(rows, cols) & ~far(rows, cols), x.astype(np.float64), -np.inf).max(axis=1)
    if any(np.allclose(got, _shifted(x, m, flush), rtol=4e-3, atol=1e-4, equal_nan=True)
           for flush in (False, True)):
        yield (f"NaN or inf in exactly the rows that see more than 1024 columns (rows 1024 to "
               f"{rows - 1}), whose largest scores lie past column 1023: the max's loop never "
               "reached those columns (32 lanes of 32 columns each cover 1024 alone), and their "
               "exp(x - m) overflowed a float",
               "a lane's columns run to the row's last, however long the row: for (int c = "
               "lane; c <= last; c += 32) m = fmaxf(m, ...)")


def max_from_the_lane_s_column(run):
    """Each lane's max started at in[lane], its first column, whatever last is: in a row where
    lane > last that is a masked column (or the next row's, or past x's end), whose score joins
    the row's max: the odd rows' masked 150s put m above every visible score."""
    flat, x = run.launch.args[0].host().astype(np.float64), run.model
    rows, cols = x.shape
    starts = flat[np.minimum(np.arange(rows)[:, None] * cols + np.arange(32)[None, :],
                             flat.size - 1)]
    m = np.maximum(np.where(visible(rows, cols), x, -np.inf).max(axis=1), starts.max(axis=1))
    got = run.out.got.astype(np.float64)
    wrong = np.flatnonzero((m > np.where(visible(rows, cols), x, -np.inf).max(axis=1))
                           & np.isnan(got).any(axis=1))
    if not wrong.size or not _near_nan_any(got, x, m) or not _row_0_loads_every_lane(run.kernel):
        return
    r = int(wrong[0])
    lane = int(np.argmax(starts[r]))
    yield (f"each lane's max started at in[lane], its first column, also where lane > last: in "
           f"row {r} (last = {min(r, cols - 1)}) lane {lane} started at in[{lane}] = "
           f"{starts[r, lane]:.4g}, a column the row does not see, above every score it does, "
           "so each exp(x - m) underflowed to 0 and 0 / 0 made the row NaN (rows "
           f"{', '.join(map(str, wrong[:4]))}, ...; on the simulator, row 0's 32 lanes each "
           "loaded their column, in[lane], at one line, though row 0 sees column 0 alone)",
           "start the max at -INFINITY: float m = -INFINITY; the loop for (int c = lane; c <= "
           "last; c += 32) then takes in the visible columns only")


def _row_0_loads_every_lane(kernels, rows=40, cols=40) -> bool:
    """Whether, in a launch on the simulator of ``rows`` rows, one warp a block, row 0's warp had
    a line where each of its 32 lanes loaded its own column, in[lane], once, and nothing else:
    the max's start, though row 0 sees column 0 alone."""
    loads = _loads_of_x(kernels, rows, cols, seed=6, key="lanes' columns")
    if loads is None:
        return False
    row_0 = loads[loads["block"] == 0]
    return any(sorted(zip(row_0["lane"][row_0["line"] == line].tolist(),
                          row_0["index"][row_0["line"] == line].tolist()))
               == [(lane, lane) for lane in range(32)] for line in set(row_0["line"].tolist()))


def sum_without_max(x, got):
    """The sum's loop that left out the max, sum += exp(x), while the output divides exp(x - m)
    by it: each row is the softmax times exp(-m), and the sum overflows a float (inf, so y is 0)
    where the scores pass about 88. Named only where some row keeps a value of its own."""
    seen = visible(*x.shape)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        total = np.where(seen, np.exp(x.astype(np.float32)), 0).sum(axis=1, dtype=np.float32)
        model = _exps(x) / total[:, None].astype(np.float64)
    if np.allclose(got, model, rtol=4e-3, atol=1e-4, equal_nan=True) and not _near(got, softmax(x)) \
            and np.abs(model).max() > 1e-3:
        sums = np.nansum(model, axis=1)
        r = int(np.argmax(np.where(sums > 1e-3, np.abs(sums - 1), -1)))
        yield (f"the sum left out the max: it adds exp(x) where the output divides exp(x - m), so "
               f"each row is the softmax times exp(-m) (row {r}: it adds up to "
               f"{np.nansum(got[r]):.3g}, not 1), and where the scores pass about 88 the sum of "
               "exp(x) overflows to inf and the row comes out 0",
               "subtract the max in the sum too: sum += __expf(__half2float(in[c]) - m)")


def write_without_max(x, got):
    """The final write's exp without the max, __expf(x) / sum, the sum's exp(x - m): each row
    exp(m) times the softmax, inf (in float, or in half past 65504) where the scores pass 88."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.where(visible(*x.shape), np.exp(x.astype(np.float32)), 0).astype(np.float64)
        model = (e / _exps(x).sum(axis=1, keepdims=True)).astype(np.float16).astype(np.float64)
    small = np.flatnonzero(np.isfinite(model).all(axis=1) & ~np.isclose(model.sum(axis=1), 1, 1e-2))
    if small.size and np.isinf(model).any() and np.allclose(got, model, 4e-3, 1e-4, equal_nan=True):
        yield (f"the final write's exp left out the max: y = __expf(x) / sum, while the sum adds "
               f"exp(x - m), so each row is exp(m) times its softmax (row {small[0]} adds up to "
               f"{np.nansum(got[small[0]]):.4g}, not 1), and where the scores are about 100 "
               "exp(x) overflows a float and y is inf", "subtract the max in the write too, as "
               "the sum does: y = __expf(__half2float(in[c]) - m) / sum")


def unwritten_parts(x, got, unwritten, block, probed):
    """(problem, hint) of the mistakes that leave parts of y never written: exactly the masked
    columns, whole rows of warps (``rows_of_warps``), else any."""
    yield from _masked_never_written(x, got, unwritten)
    yield from _lanes_from_thread(x, got, unwritten, block)
    yield from rows_of_warps(x, got, unwritten, block, probed)
    if unwritten.any():
        yield ("some rows or columns of y were never written",
               "one warp a row, row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, its "
               "lanes over columns lane, lane + 32, ... while c < cols")


def _lanes_from_thread(x, got, unwritten, block):
    """lane = threadIdx.x, not threadIdx.x % 32: warp w's loops start at column 32 w, so its
    rows' columns before 32 w are never written, the rest a softmax over the columns from 32 w."""
    rows, cols = x.shape
    skipped = np.arange(cols)[None, :] < 32 * (np.arange(rows) % (block // 32))[:, None]
    if rows < 2 or block <= 32 or not np.array_equal(unwritten, skipped) or not _near(
            got[~skipped], softmax(x, seen=visible(rows, cols) & ~skipped)[~skipped]):
        return
    yield (f"columns 0 to {min(32, cols) - 1} of row 1 were never written (warp 1 of its block, "
           f"{block // 32} warps a block), and that warp's rows took their softmax over the "
           "columns from 32 on alone: lane = threadIdx.x, the thread's place in the block, not "
           "in its warp, so warp 1's loops start at column 32, warp 2's at 64, and so on",
           "a lane is the thread's place in its warp: int lane = threadIdx.x % 32, and every "
           "warp's loops start at column lane")


def _masked_never_written(x, got, unwritten):
    """(problem, hint) of a write loop that stops at last (c <= last), not at cols: every visible
    column written right, exactly the masked ones (c > last) never written."""
    seen = visible(*x.shape)
    if unwritten.any() and np.array_equal(unwritten, ~seen) and \
            _near(got[seen], softmax(x)[seen]):
        cols = x.shape[1]
        yield (f"only the masked columns (c > last) of every row were never written, the visible "
               f"ones right (row 0's columns 1 to {cols - 1}, row 1's 2 to {cols - 1}, ...): the "
               "write's loop stops at last (c <= last), so the zeros past the diagonal were "
               "never stored", "the write's loop runs over every column and stores 0 past last: "
               "for (int c = lane; c < cols; c += 32) y[...] = c <= last ? ... : 0")


def max_from_0(x):
    """What a max that starts at 0 gives, its exps in float32: NaN in the ``sunk`` rows, whose
    every exp(x - 0) underflows to 0 (and 0 / 0 is NaN)."""
    seen = visible(*x.shape)
    return _shifted(x, np.maximum(np.where(seen, x.astype(np.float64), -np.inf).max(axis=1), 0))
