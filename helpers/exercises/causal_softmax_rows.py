"""Models of the causal softmax's rows read from the wrong place of x, of a warp_sum whose loop
stopped before its last shuffles, and of a sum taken before the lanes' maxima were combined
(``helpers.exercises.causal_softmax``); the row guard that lets row == rows through
(``written_past_the_last_row``); a max's loop by fminf (``max_by_fminf``); exp(m - x), the max
subtracted the wrong way round (``max_subtracted_reversed``). The hints for a crash in a shuffle
are in ``causal_softmax_shuffles``."""

from __future__ import annotations

import numpy as np

from helpers.exercises.causal_softmax_models import _near, _shifted, max_of_row_0, softmax, visible


def rows_misread(x, got, unwritten, kernels):
    """The rows read or stored at the wrong place of x or y, in the order a learner reads them."""
    yield from row_start_without_cols(x, got)
    yield from stored_rows_apart(x, got, unwritten)
    yield from max_of_row_0(x, got, kernels)
    yield from stored_from_row_0(x, got)


def max_subtracted_reversed(x, got):
    """Both exps taking m - x, the max less the score: y is the softmax of -x (exps in float32,
    which overflow where m - x passes about 88, in the rows of scores about 100 and a 0)."""
    seen, xs = visible(*x.shape), x.astype(np.float64)
    high, low = np.where(seen, xs, -np.inf), np.where(seen, xs, np.inf)
    m = high.max(axis=1)
    if not np.allclose(got, _shifted(-x, -m), rtol=4e-3, atol=1e-4, equal_nan=True):
        return
    r = int(np.argmax(np.isfinite(got).all(axis=1) & (low.min(axis=1) < m)))  # finite, spread
    top, low = int(np.argmax(high[r])), int(np.argmin(low[r]))
    yield (f"exp(m - x) has the subtraction the wrong way round: y is the softmax of -x, so the "
           f"largest score got the smallest weight (row {r}: x[{r}][{top}] = {xs[r, top]:.4g}, "
           f"its max, got y = {got[r, top]:.4g}, x[{r}][{low}] = {xs[r, low]:.4g} got "
           f"{got[r, low]:.4g}), and m - x grows with the spread of the scores until exp "
           "overflows a float (NaN or inf in the rows whose scores are about 100 and a 0)",
           "exp(x - m), the score minus the max, in the sum and in the store: "
           "__expf(__half2float(in[c]) - m), at most exp(0) = 1")


def row_start_without_cols(x, got):
    """Row r read from element r of x (in = x + row, the row's length left out): its columns are
    x's flat elements r to r + cols - 1, the next rows' scores for most of them."""
    rows, cols = x.shape
    flat = x.ravel()
    if rows < 2 or cols < 2:
        return
    shifted = np.stack([flat[r:r + cols] for r in range(rows)])
    if not _near(got, softmax(shifted)):
        return
    yield (f"row r read its scores from x[r] on, not row r's start x[r * cols]: in = x + row "
           f"leaves out the row's length, so row 1 took x[1] to x[{cols}], columns 1 to "
           f"{cols - 1} of row 0 and column 0 of row 1 (cols = {cols}); only row 0 came out right",
           "row r starts r whole rows into x: in = x + (size_t)row * cols")


def stored_rows_apart(x, got, unwritten):
    """Row r stored at y[r * rows + c] (the store's row length rows, where a row of y is cols
    long): with rows < cols the rows overlap, each element holds the value of one of the rows
    that stored there (whichever landed last), and the elements past the last row's end are never
    written."""
    rows, cols = x.shape
    if rows < 2 or rows >= cols:
        return
    want, size = softmax(x).ravel(), rows * cols
    written, ok, flat = np.zeros(size, bool), np.zeros(size, bool), got.ravel()
    for r in range(rows):
        at = r * rows + np.arange(cols)
        written[at] = True
        ok[at] |= np.isclose(flat[at], want[r * cols:(r + 1) * cols], rtol=4e-3, atol=1e-4)
    if not np.array_equal(written, ~unwritten.ravel()) or not ok[written].all():
        return
    end = (rows - 1) * rows + cols
    yield (f"row r was stored r * rows elements into y, not r * cols: y[(size_t)row * rows + c] "
           f"put row 1 at elements {rows} to {rows + cols - 1} of y, over row 0's columns "
           f"{rows} to {cols - 1}, where row 1 starts at element {cols}, and elements {end} to {size - 1} were never written",
           "a row of y is cols elements long, as a row of x is: y[(size_t)row * cols + c]")


def sum_shuffles_cut_short(x, got):
    """warp_sum's loop stopped before its last shuffles: with offsets 16 down to u only (u = 2,
    4, 8, 16), lane l ends with the sum of the lanes l' with l' % u == l % u, 32 / u of them, and
    each column's y is divided by its lane's part."""
    from helpers.exercises.causal_softmax_models import _exps, visible

    e, cols, lanes = _exps(x), x.shape[1], np.arange(32)
    part = np.stack([e[:, lane::32].sum(axis=1) for lane in lanes], axis=1)
    matched = []
    for u in (2, 4, 8, 16, 32):   # 32: no shuffle at all, each lane its own part (named before)
        sums = np.stack([part[:, lanes % u == lane % u].sum(axis=1) for lane in lanes], axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            model = np.where(visible(*x.shape), e / sums[:, np.arange(cols) % 32], 0)
        matched += [u] if _near(got, model) else []
    if len(matched) != 1 or matched[0] == 32:   # none, or not told apart by this case
        return
    u, r = matched[0], int(np.argmax(~np.isclose(got.sum(axis=1), 1, rtol=1e-2)))
    skipped = " and ".join(str(o) for o in (8, 4, 2, 1) if o < u)
    yield (f"row {r} adds up to {got[r].sum():.4g}, not 1: each lane's sum holds only "
           f"{32 // u} of the warp's 32 lanes (every {'second' if u == 2 else f'{u}th'} lane, "
           f"its own among them), as warp_sum's loop stopped before its shuffle"
           f"{'s' if u > 2 else ''} at offset {skipped}: its test ends the loop at offset {u}, "
           f"so the lanes {skipped} apart are never added in", "warp_sum's loop runs down to "
           "offset 1, whose shuffle adds the neighbouring lane: for (int offset = 16; offset > "
           "0; offset /= 2)")


TINY = 1e-30
"""A lane group's part of the sum below this is made of denormal floats (scores about 100 below
the max): the model leaves its columns out, which a GPU's __expf and the simulator round apart."""


def sum_shuffles_started_late(x, got):
    """warp_sum's loop started below offset 16: with offsets s, s / 2, ..., 1 only (s = 8, 4, 2,
    1), lane l ends with the sum of its own group of 2 s neighbouring lanes (l // 2s the same),
    and each column's y is divided by its lane's group's part (where that part is not ``TINY``)."""
    from helpers.exercises.causal_softmax_models import _exps

    e, cols, lanes = _exps(x), x.shape[1], np.arange(32)
    part = np.stack([e[:, lane::32].sum(axis=1) for lane in lanes], axis=1)
    matched = []
    for s in (8, 4, 2, 1):
        sums = np.stack([part[:, lanes // (2 * s) == lane // (2 * s)].sum(axis=1)
                         for lane in lanes], axis=1)
        own = sums[:, np.arange(cols) % 32]
        with np.errstate(divide="ignore", invalid="ignore"):
            model = np.where(visible(*x.shape), e / own, 0)
        kept = ~visible(*x.shape) | (own > TINY)   # a part of denormals: no backend agrees on it
        matched += [s] if _near(got[kept], model[kept]) else []
    if len(matched) != 1:   # none, or not told apart by this case
        return
    s, r = matched[0], int(np.argmax(~np.isclose(got.sum(axis=1), 1, rtol=1e-2)))
    skipped = " and ".join(str(o) for o in (16, 8, 4, 2) if o > s)
    yield (f"row {r} adds up to {got[r].sum():.4g}, not 1: each lane's sum holds only {2 * s} of "
           f"the warp's 32 lanes (lanes 0 to {2 * s - 1} or {32 - 2 * s} to 31, its own "
           f"{'half' if s == 8 else f'group of {2 * s}'}), as warp_sum's loop started at offset "
           f"{s}: its shuffle{'s' if s < 8 else ''} at offset {skipped}, which add{'' if s < 8 else 's'} the "
           "lanes farther apart, never ran", "warp_sum's loop starts at offset 16, half the "
           "warp's 32 lanes, and halves it down to 1: for (int offset = 16; offset > 0; offset /= 2)")


def sum_maxed(kernels, rows=40, cols=40):
    """The lanes' parts of the sum combined with warp_max, not warp_sum: each y is exp(x - m)
    over the largest lane's part. Below row 32 every lane sees one column at most, so that part
    is exp(0) = 1 (y looks never divided); a launch on the simulator of ``rows`` rows, one warp
    a block, where lanes 0 to r - 32 of row r see two columns, tells them apart."""
    from helpers.exercises.causal_softmax_models import _exps, visible
    from helpers.exercises.common import Input, Output
    from helpers.exercises.kernel import Launch
    from helpers.exercises.microscope import observe

    x = np.random.default_rng(9).standard_normal((rows, cols)).astype(np.float16)
    seen = observe(kernels, Launch((Input(x), Output((rows, cols), np.float16), np.int32(rows),
                                    np.int32(cols)), block=(32, 1, 1), grid=(rows, 1)),
                   key="sum of the lanes' parts", racecheck=False)
    e = _exps(x)
    part = np.stack([e[:, lane::32].sum(axis=1) for lane in range(32)], axis=1).max(axis=1)
    if seen.error is not None:
        return
    got = seen.outs[0].got.astype(np.float64)
    if _near(got, e) or not _near(got, np.where(visible(rows, cols), e / part[:, None], 0)):
        return
    yield (f"y is exp(x - m) divided by the largest lane's part of the sum, not by the whole "
           f"sum: the lanes' parts were combined with a max (sum = warp_max(sum)), not added; "
           f"in rows below 32 each lane sees one column at most, so that part is exp(0) = 1 and "
           f"y came out exp(x - m); on the simulator, {rows} rows of one warp a block gave row "
           f"{rows - 1} adding up to {got[rows - 1].sum():.4g}, not 1",
           "add the lanes' parts: sum = warp_sum(sum), whose shuffles add, as warp_max's take "
           "fmaxf")


def stored_from_row_0(x, got):
    """The store's exp reading x[c], the first row, where in[c] (the row's own) belongs, its max
    and sum right: y[r][c] = exp(x[0][c] - m_r) / sum_r, in float32 (an overflow is inf) then
    FP16. Yields the first wrong output past row 0 as the values that show it."""
    seen = visible(*x.shape)
    xs = x.astype(np.float64)
    m = np.where(seen, xs, -np.inf).max(axis=1, keepdims=True)
    total = np.where(seen, np.exp(xs - m), 0).sum(axis=1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp((xs[:1] - m).astype(np.float32)).astype(np.float64)
        model = np.where(seen, e / total, 0).astype(np.float16).astype(np.float64)
    if x.shape[0] < 2 or not np.allclose(got, model, rtol=4e-3, atol=1e-4, equal_nan=True):
        return
    want = softmax(x)
    r, c = np.argwhere(~np.isclose(got, want, rtol=4e-3, atol=1e-4))[0]
    yield (f"every row's y was computed from the first row's scores: the store's exp read x[c], "
           f"and x points at the whole matrix, row 0 first: y[{r}][{c}] = {got[r, c]:.4g} is "
           f"exp(x[0][{c}] - m) / sum, where exp(x[{r}][{c}] - m) / sum = {want[r, c]:.4g} "
           "belongs", "in = x + row * cols points at the row: read the "
           "row's own score in the store as in the max and the sum, __expf(__half2float(in[c]) - "
           "m) / sum")


def sum_stepped_by_one(x, got):
    """The sum's loop stepped by c++, not c += 32: lane l adds every column from l to last, so
    column c is in the sums of lanes 0 to min(c, 31), counted min(c + 1, 32) times over."""
    from helpers.exercises.causal_softmax_models import _exps

    e, rows = _exps(x), x.shape[0]
    total = (e * np.minimum(np.arange(x.shape[1]) + 1, 32)[None, :]).sum(axis=1, keepdims=True)
    last = min(rows - 1, x.shape[1] - 1)
    if last < 1 or not _near(got, e / total):
        return
    r = rows - 1
    yield (f"row {r} adds up to {got[r].sum():.4g}, not 1: the sum's loop steps by c++, not by "
           f"the warp's 32 lanes, so lane l added every column from l to last and column c was "
           f"counted min(c + 1, 32) times in the warp's sum (in row {r}, column 0 "
           f"once, column {last} {min(last + 1, 32)} times)", "step the sum's loop by the warp's 32 lanes, as the "
           "max's: for (int c = lane; c <= last; c += 32)")


def sum_of_exp_less_max(x, got):
    """The sum's parenthesis closed before - m, sum += __expf(x) - m: each visible column adds
    exp(x) - m (float32: inf where the scores pass about 88, so that row comes out 0), while the
    write divides exp(x - m) by it."""
    from helpers.exercises.causal_softmax_models import _exps

    seen, e = visible(*x.shape), _exps(x)
    m = np.where(seen, x.astype(np.float64), -np.inf).max(axis=1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        terms = np.exp(x.astype(np.float32)).astype(np.float64) - m
        total = np.where(seen, terms, 0).sum(axis=1, keepdims=True)
        model = (e / total).astype(np.float16).astype(np.float64)
    finite = np.flatnonzero(np.isfinite(total[:, 0]) & ~np.isclose(model.sum(axis=1), 1, 1e-2))
    if not finite.size or not np.allclose(got, model, 4e-3, 1e-4, equal_nan=True):
        return
    r = int(finite[0])
    yield (f"the sum subtracted the max after the exponential: sum += __expf(x) - m adds exp(x) - "
           f"m for each visible column, not exp(x - m) (row {r}: the sum came out "
           f"{total[r, 0]:.4g} where the sum of exp(x - m) is {e[r].sum():.4g}, and the row adds "
           f"up to {np.nansum(got[r]):.4g}, not 1); where the scores are about 100, exp(x) "
           "overflows a float, the sum is inf and the row comes out 0",
           "subtract inside the exponential, as the write does: sum += "
           "__expf(__half2float(in[c]) - m)")


def lanes_alike(x, got, unwritten, block):
    """Every lane of a warp given the same lane number L (threadIdx.x & 32: 0 or 32; or
    threadIdx.x / 32, the warp's number): each row's written columns are L, L + 32, ... alone,
    all 32 lanes taking the same ones, so the warp's sum is 32 times theirs (the model)."""
    rows, cols = x.shape
    warps, c = max(block // 32, 1), np.arange(cols)
    starts = {}
    for r in range(rows):
        done = np.flatnonzero(~unwritten[r])
        if not done.size or starts.setdefault(r % warps, int(done[0])) != done[0] or \
                not np.array_equal(done, np.arange(done[0], cols, 32)):
            return
    if not unwritten.any() or rows < 2:
        return
    model = np.zeros(x.shape)
    for r in range(rows):
        taken = c[(c >= starts[r % warps]) & ((c - starts[r % warps]) % 32 == 0) & (c <= r)]
        if taken.size:
            e = np.exp(x[r, taken].astype(np.float64) - x[r, taken].max())
            model[r, taken] = e / (32 * e.sum())
    if not _near(got[~unwritten], model[~unwritten]):
        return
    shown = sorted(starts.items())[:2]
    said = " and ".join(f"{lane} in warp {w}" for w, lane in shown)
    cut = " and ".join(f"row {w} " + ("wrote columns " if not k else "columns ") +
                       ", ".join(map(str, range(lane, cols, 32))) for k, (w, lane) in
                       enumerate(shown))
    how = (", as threadIdx.x & 32 gives: & 32 keeps the one bit of 32, where & 31 keeps the "
           "five bits of the lane" if all(lane == (32 * w) & 32 for w, lane in starts.items())
           else "")
    yield (f"every lane of a warp took the same columns: lane was {said}, the same in all 32 "
           f"lanes{how}, so {cut} alone, the other columns were never written, and warp_sum "
           "counted each of those columns 32 times",
           "a lane is the thread's place in its warp, 0 to 31: int lane = threadIdx.x % 32 (or "
           "threadIdx.x & 31), and lane l takes columns l, l + 32, ...")


def _summed_before_the_max(x):
    """y where each lane adds its columns' exp(x - m_l), m_l the max of its own columns, and
    the warp adds those parts, the output's exp(x - m) taking the row's max m."""
    seen, xs = visible(*x.shape), x.astype(np.float64)
    lane, total = np.arange(x.shape[1]) % 32, np.zeros((x.shape[0], 1))
    with np.errstate(invalid="ignore", over="ignore"):
        for own in (seen & (lane == k) for k in range(32)):
            m = np.where(own, xs, -np.inf).max(axis=1, keepdims=True)
            total += np.where(own, np.exp(xs - m), 0).sum(axis=1, keepdims=True)
        m = np.where(seen, xs, -np.inf).max(axis=1, keepdims=True)
        return np.where(seen, np.exp(xs - m) / np.maximum(total, 1e-300), 0)


def sum_before_the_max(x, got, kernels, rows=40, cols=40):
    """m = warp_max(m) after the sum's loop: each lane's part of the sum taken against its own
    columns' max. Below row 32 each lane sees one column at most, whose part is exp(0) = 1 (the
    sum counts the columns); a launch on the simulator of ``rows`` rows, one warp a block, where
    lanes 0 to r - 32 of row r see two columns, confirms it."""
    from helpers.exercises.common import Input, Output
    from helpers.exercises.kernel import Launch
    from helpers.exercises.microscope import observe

    if not _near(got, _summed_before_the_max(x)):
        return
    probe = np.random.default_rng(9).standard_normal((rows, cols)).astype(np.float16)
    seen = observe(kernels, Launch((Input(probe), Output((rows, cols), np.float16),
                                    np.int32(rows), np.int32(cols)), block=(32, 1, 1),
                                   grid=(rows, 1)), key="sum of the lanes' parts", racecheck=False)
    if seen.error is not None or not _near(seen.outs[0].got.astype(np.float64),
                                           _summed_before_the_max(probe)):
        return
    r = int(np.argmax(~np.isclose(got.sum(axis=1), 1, rtol=1e-2)))
    yield (f"row {r} adds up to {got[r].sum():.4g}, not 1: each lane added its columns' exp(x - "
           "m) against the max of its own columns, not the row's: m = warp_max(m) came after the "
           "sum's loop, so the lanes' parts were taken against different maxima and do not add "
           "up to the row's sum (below row 32 each lane sees one column at most, its part "
           f"exp(0) = 1; on the simulator, {rows} rows of one warp a block matched this too)",
           "combine the lanes' maxima before the sum: m = warp_max(m) right after the max's "
           "loop, then the sum's loop over exp(x - m), then sum = warp_sum(sum)")


def written_past_the_last_row(x, past, kernels):
    """Elements stored past y (``past``), the guard's mistake first."""
    if len(past):
        yield from guard_lets_row_rows_through(x, past, kernels)
        yield ("y was written past its last row",
               "the warps past the last row must leave: if (row >= rows) return;")


def guard_lets_row_rows_through(x, past, kernels, rows=3, cols=40):
    """Elements stored past y, all in row ``rows`` (one past the last), y's guard holding that
    row: the row guard lets row == rows through. A launch on the simulator of ``rows`` rows, one
    warp a block and three warps past the last row, y's guard holding their rows, tells
    if (row > rows) (row ``rows`` alone stored past y) from no guard (every warp's row)."""
    from helpers.exercises.common import Input, Output
    from helpers.exercises.kernel import Launch
    from helpers.exercises.microscope import observe

    row = range(x.size, x.size + x.shape[1])
    if not set(np.asarray(past).tolist()) <= set(row):
        return
    probe = np.random.default_rng(5).standard_normal((rows, cols)).astype(np.float16)
    seen = observe(kernels, Launch((Input(probe, after=4 * cols), Output(
        (rows, cols), np.float16, guard=3 * cols), np.int32(rows), np.int32(cols)),
        block=(32, 1, 1), grid=(rows + 3, 1)), key="warps past the last row", racecheck=False)
    if seen.error is not None or not len(seen.outs[0].past) or \
            not set(seen.outs[0].past.tolist()) <= set(range(rows * cols, (rows + 1) * cols)):
        return
    yield (f"the warp of row {x.shape[0]} = rows, one past the last row, was not stopped: it "
           f"stored its row past the end of y (a launch on the simulator with three "
           "warps past the last row: the two after it returned), so the guard if (row > rows) "
           "lets row == rows through", "rows run 0 to rows - 1: return where row >= rows (>=, "
           "not >): if (row >= rows) return;")


def max_by_fminf(kernels):
    """Every visible y NaN, and the kernel's body (its simulated twin's words) calls fminf: the
    max's loop took the smaller, so m stayed at its -INFINITY start (a start at +INFINITY, which
    gives the same NaN, is named after this)."""
    from helpers.exercises.microscope import body_words

    if "fminf" in body_words(kernels):
        yield ("every visible y is NaN: m stayed -INFINITY, below every score: the max's loop "
               "takes fminf, the smaller of the two, and fminf(-INFINITY, x) is -INFINITY, so "
               "each exp(x - m) overflowed to inf, the sum too, and inf / inf is NaN",
               "the max keeps the larger: m = fmaxf(m, __half2float(in[c]))")
