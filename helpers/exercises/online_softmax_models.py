"""The NumPy model of ``helpers.exercises.online_softmax``'s kernel (one warp a row, each lane's
running pair merged by a butterfly of shuffles), right and with its known mistakes (``pairs``),
the butterfly with one offset left out (``missing_offset``), the store left to the block's
thread 0 (``first_warps_alone``), row 0 read by every row (``row_0_everywhere``), each lane's
max started at in[lane], past a short row's end (``max_from_the_lane_s_value``), and the crashes
named from their fields (``refined``: the row from the lane, the lanes with no column returned,
the merge inside the column loop)."""

from __future__ import annotations

import types

import numpy as np

OFFSETS = (16, 8, 4, 2, 1)
OWN_RESCALED = (True, "own max", "swapped", "wrong way", "own only", "partner max", "late", "crossed")
"""The merges of ``pairs`` that rescale the lane's own sum by exp(m - m_new) (or its mistake)."""


def _partner(offset, xor):
    """Each lane's partner at ``offset``: lane ^ offset (the lane itself where that is past the
    warp), or with ``xor`` false lane ``offset`` itself for every lane, as __shfl_sync reads."""
    lanes = np.arange(32)
    return np.where(lanes ^ offset < 32, lanes ^ offset, lanes) if xor else np.full(32, offset)


def pairs(x, loop=True, merge=True, fresh=True, m2_from="m", offsets=(16, 8, 4, 2, 1), grown=True,
          l2_from="l", base2=(), merged=np.maximum, xor=True, kept=None):
    """(m, l) of each row as the kernel computes them, in float64; ``loop`` and ``merge``: whether
    the running sum and the merged sums are rescaled to the new max (``loop="value"``: by
    exp(m - v), against the value; ``loop="ratio"``: by m / m_new, linearly; ``loop="term"``:
    the new term rescaled instead of the sum; ``loop="after"``: the sum rescaled after the new
    term was added; ``merge="partner"``: the partner's only, as when m = m_new came first; ``merge="own max"``: the partner's sum by exp(m - m_new), the lane's
    own max; ``merge="partner max"``: the lane's own sum by exp(m2 - m_new); ``merge="crossed"``: that, and the partner's by exp(m - m_new)); ``fresh``: each value's exp taken against the new max
    (else the old, exp(v - m); "apart": exp(v) / exp(m_new), in float32; "one": 1 whatever v;
    "raw": exp(v), unshifted, in float32; "flipped": exp(m_new - v));
    ``merge="swapped"``: each term's -INFINITY test made on the other's max;
    ``merge="own kept"``: the lane's own sum kept as it is, the partner's brought to the
    lane's old max, exp(m2 - m);
    ``merge="larger"``: the sum of the pair with the larger max kept, unscaled, the other
    dropped; ``merge="smaller"``: the two sums added, then rescaled once by exp(min(m, m2) -
    m_new); ``merge="wrong way"``: both sums rescaled by exp(m_new - m) and exp(m_new - m2); ``m2_from``: what the partner's max is shuffled from ("l": its
    sum); ``l2_from``: what the partner's sum is shuffled from ("m": its max); ``offsets``: the butterfly's (a lane whose partner is past the warp gets its own
    value back); ``grown``: whether a value that raises the max adds its exp (1) too;
    ``merge="own only"``: the lane's own sum rescaled, the partner's added as it is; ``merge=
    "no parentheses"``: m == -INF ? 0 : (l * e + m2 == -INF ? 0 : l2 * e2), C's parse; ``merge="late"``: l2 shuffled after the partner rescaled its sum to m_new, so rescaled twice; ``base2``: where the exps are 2 to the power ("term": the loop's new term, "scale": its rescale, "merge"), as exp2f takes; ``merged``: the merge's max (np.minimum: fminf); ``kept="partner"``: m = m2 after each merge, l rescaled to the merged max; ``xor``: whether the partner is lane ^ offset (else lane offset itself, as __shfl_sync reads it)."""
    x = x.astype(np.float64)
    term_exp, scale_exp, merge_exp = (np.exp2 if part in base2 else np.exp for part in ("term", "scale", "merge"))
    ms, ls = np.full((x.shape[0], 32), -np.inf), np.zeros((x.shape[0], 32))
    for c in range(x.shape[1]):
        lane, v = c % 32, x[:, c]
        new = np.maximum(ms[:, lane], v)
        with np.errstate(over="ignore", invalid="ignore"):
            term = (np.exp(v.astype(np.float32)) / np.exp(new.astype(np.float32)) if fresh == "apart"
                    else np.exp(v.astype(np.float32)) if fresh == "raw"
                    else np.exp(new - v) if fresh == "flipped"
                    else term_exp(v - (new if fresh else ms[:, lane])))
            term = term if grown else np.where(v > ms[:, lane], 0, term)
            term = np.ones_like(v) if fresh == "one" else term
            term = term * np.exp(ms[:, lane] - new) if loop == "term" else term
            scale = (ms[:, lane] / new if loop == "ratio"
                     else scale_exp(ms[:, lane] - (v if loop == "value" else new))
                     if loop and loop != "term" else 1)
            ls[:, lane] = (ls[:, lane] + term) * scale if loop == "after" else ls[:, lane] * scale + term
        ms[:, lane] = new
    for offset in offsets:
        partner = _partner(offset, xor)
        m2 = (ls if m2_from == "l" else ms)[:, partner]
        l2 = (ms if l2_from == "m" else ls)[:, partner]
        new = merged(ms, m2)
        with np.errstate(invalid="ignore", over="ignore"):
            own_test, their_test = (m2, ms) if merge == "swapped" else (ms, m2)
            way, mine = (-1 if merge == "wrong way" else 1), (m2 if merge in ("partner max", "crossed") else ms)
            own = (np.where(own_test == -np.inf, 0, merge_exp(way * (mine - new)))
                   if merge in OWN_RESCALED
                   else np.where(ms == -np.inf, 0, 1.0) if merge == "own kept" else 1)
            power = {"own max": ms - new, "crossed": ms - new, "own kept": m2 - ms, "late": 2 * (m2 - new)}.get(
                merge, m2 - new)
            theirs = (np.where(their_test == -np.inf, 0, merge_exp(way * power))
                      if merge and merge != "own only" else 1)
            ls = (np.where(m2 > ms, ls[:, partner], ls) if merge == "larger"
                  else (ls + l2) * merge_exp(np.minimum(ms, m2) - new) if merge == "smaller"
                  else np.where((ms == -np.inf) | (m2 == -np.inf), 0, l2 * theirs) if merge == "no parentheses"
                  else ls * own + np.where(their_test == -np.inf, 0, l2 * theirs))
        ms = m2 if kept == "partner" else new
    return ms[:, 0], ls[:, 0]



def rescales(x, sums):
    """A sum not rescaled, or rescaled by the wrong max, in the loop or the merge: told by the sums
    of pairs() with that step changed."""
    if np.allclose(sums, pairs(x, loop=False)[1], rtol=1e-3):  # the merge rescales: written
        yield ("row_sum is too large in the rows whose max is not first: the running sum was not "
               "rescaled when a lane's max grew, though the merge rescales: exp(m - m_new) is "
               "missing from the loop, "
               "or is 1 because m was raised to the new max before l's update (m = v, or m = "
               "m_new, too early)", "in the loop, m_new = fmaxf(m, v), then l = l * exp(m - "
               "m_new) + exp(v - m_new) while m is still the old max, and only then m = m_new")
    if np.allclose(sums, pairs(x, loop=False, merge=False)[1], rtol=1e-3):
        yield ("row_sum is too large in the rows whose max is not first: the running sum was not "
               "rescaled when a lane's max grew", "in the loop, l = l * exp(m - m_new) + exp(v - "
               "m_new)")
    if np.allclose(sums, pairs(x, merge=False)[1], rtol=1e-3):
        yield ("row_sum is too large: the lanes' sums were added without rescaling them to the "
               "merged max", "in the merge, l = l * exp(m - m_new) + l2 * exp(m2 - m_new)")
    if np.allclose(sums, pairs(x, merge="own max")[1], rtol=1e-3):
        yield ("row_sum is wrong: in the merge the partner's sum l2 was rescaled by exp(m - m_new), "
               "from the lane's own max, not the partner's", "l2 was taken against the partner's "
               "max m2: l = l * exp(m - m_new) + l2 * exp(m2 - m_new)")
    if np.allclose(sums, pairs(x, merge="partner")[1], rtol=1e-3):
        yield ("row_sum is too large: in the merge each lane's own sum was not rescaled to the "
               "merged max, only the partner's: the factor exp(m - m_new) is missing from l's "
               "term, or is 1 because m = m_new came before it",
               "in the merge, l = l * exp(m - m_new) + l2 * exp(m2 - m_new), both terms from the "
               "old m and m2, and only then m = m_new")

def missing_offset(x, m, sums, want_m, want_l):
    """The butterfly without one of its offsets (offset < 16 counting up, offset > 1 counting
    down, ...): lane 0 merged only the lanes that differ from it in the other offsets' bits, so
    row_max and row_sum are those of their columns alone (``want_m``, ``want_l``: the right
    pairs). Yields (problem, hint)."""
    for left_out in OFFSETS:
        model_m, model_l = pairs(x, offsets=tuple(o for o in OFFSETS if o != left_out))
        if np.allclose(model_m, want_m) and np.allclose(model_l, want_l, rtol=1e-3) or \
                not np.allclose(m, model_m) or not np.allclose(sums, model_l, rtol=1e-3):
            continue
        met = [lane for lane in range(32) if not lane & left_out]
        never = [lane for lane in range(32) if lane & left_out]
        lanes = ("lanes 0 to 15 alone, so the columns of lanes 16 to 31 (c % 32 >= 16)"
                 if left_out == 16 else f"lanes {', '.join(map(str, met[:4]))}, ... alone, so "
                 f"the columns of lanes {', '.join(map(str, never[:4]))}, ... (lane & {left_out})")
        off = ~np.isclose(m, want_m)
        r = int(np.argmax(off if off.any() else ~np.isclose(sums, want_l, rtol=1e-3)))
        yield (f"the butterfly never took offset {left_out}: lane 0 merged {lanes}, half the "
               f"warp's, never met its pair: row {r} got row_max = {m[r]:.6g}, row_sum = "
               f"{sums[r]:.6g}, expected {want_m[r]:.6g}, {want_l[r]:.6g}",
               "the butterfly takes the five offsets 16, 8, 4, 2, 1: counting down, start at "
               "16, for (int offset = 16; offset > 0; offset /= 2); counting up, offset <= 16, "
               "for (int offset = 1; offset <= 16; offset *= 2)")


def shuffled_from_lane_offset(x, m, sums, want_m, want_l):
    """The butterfly's shuffles written __shfl_sync(mask, v, offset), not __shfl_xor_sync: every
    lane reads lane ``offset`` itself, so lane 0 merges lanes 0 and the offsets alone, the later
    offsets' lanes more than once. Yields (problem, hint)."""
    model_m, model_l = pairs(x, xor=False)
    if np.allclose(model_m, want_m) and np.allclose(model_l, want_l, rtol=1e-3) or \
            not np.allclose(m, model_m) or not np.allclose(sums, model_l, rtol=1e-3):
        return
    times = np.eye(32, dtype=int)
    for offset in OFFSETS:
        times = times + times[offset]
    met = np.flatnonzero(times[0])
    off = ~np.isclose(m, want_m)
    r = int(np.argmax(off if off.any() else ~np.isclose(sums, want_l, rtol=1e-3)))
    yield (f"the butterfly's shuffles were __shfl_sync(0xffffffffu, m, offset), which hands every "
           f"lane the value of lane offset itself, the same lane for all, not of its partner "
           f"lane ^ offset: lane 0 merged only lanes {', '.join(map(str, met))} (lane 16's pair counted "
           f"{times[0][16]} times), never the rest: row {r} got row_max = {m[r]:.6g}, row_sum = "
           f"{sums[r]:.6g}, expected {want_m[r]:.6g}, {want_l[r]:.6g}",
           "the butterfly's partner is lane ^ offset: float m2 = __shfl_xor_sync(0xffffffffu, "
           "m, offset), and l2 = __shfl_xor_sync(0xffffffffu, l, offset)")


def first_warps_alone(case, m_out, l_out, wants):
    """The store left to the block's thread 0 (threadIdx.x == 0, not lane == 0): only the rows
    of each block's first warp written, their pairs right, the others never."""
    rows, per_block = case[0], case[2] // 32
    first = np.arange(rows) % per_block == 0
    if per_block < 2 or any(not np.array_equal(out.unwritten, ~first) for out in (m_out, l_out)) \
            or not all(np.allclose(out.got[first], want[first], rtol=1e-3)
                       for out, want in zip((m_out, l_out), wants)):
        return
    yield (f"only the first warp of each block stored its row's pair (rows 0, {per_block}, "
           f"{2 * per_block}, ..., right; the other {int((~first).sum())} of the {rows} rows "
           "never written): the store was guarded by threadIdx.x == 0, the block's thread 0, "
           f"where each warp's lane 0 was meant (a block holds {per_block} warps, one a row)",
           "lane 0 of every warp stores its row's pair: if (lane == 0) { row_max[row] = m; "
           "row_sum[row] = l; }, with lane = threadIdx.x % 32")


def row_0_everywhere(m, sums, want_m, want_l):
    """Every row's pair is row 0's: the loop read x[c], not its own row's in[c]."""
    r = int(np.argmax(~np.isclose(want_m, want_m[0]) | ~np.isclose(want_l, want_l[0], rtol=1e-3)))
    if r == 0 or not np.allclose(m, want_m[0]) or not np.allclose(sums, want_l[0], rtol=1e-3):
        return
    yield (f"every row's pair is row 0's (row {r} got row_max = {m[r]:.6g}, row 0's max; its own "
           f"is {want_m[r]:.6g}): the loop read row 0's column c, x[c] (or in[c] with in = x, "
           "without the row's offset), where its own row's in[c], in = x + row * cols, belongs", "read the row through its own pointer: float v = __half2float(in[c]), "
           "with in = x + row * cols")


def row_from_the_lane(failure):
    """(problem, hint) of a crash in a shuffle where lanes 0 to k - 1 of every warp of the block
    waited, k = rows - blockIdx.x * (blockDim.x / 32), no barrier: row = blockIdx.x * (blockDim.x
    / 32) + threadIdx.x % 32, each lane of a warp a row of its own, and those past the last
    returned (row from threadIdx.x alone leaves only warp 0's lanes: 2 warps or more tell)."""
    err, block, launch = failure.error, failure.block, failure.launch
    waiting = tuple(getattr(err, "waiting", None) or ())
    if failure.kind != "warp mask" or launch is None or not block or err.barrier is not None \
            or not err.block:
        return
    warps, bx, rows = int(np.prod(block)) // 32, err.block[0], int(launch.args[3])
    k = rows - bx * warps
    if warps < 2 or not 0 < k < 32 or \
            waiting != tuple(32 * w + lane for w in range(warps) for lane in range(k)):
        return
    yield (f"the row came from the lane: row = blockIdx.x * (blockDim.x / 32) + threadIdx.x % 32 "
           f"gives each lane of a warp a row of its own, so in block {bx} lanes 0 to {k - 1} of "
           f"each warp (rows {bx * warps} to {rows - 1}) went on to the shuffles and the others, "
           f"past the last row ({rows - 1}), had returned: the shuffles' mask 0xffffffff names "
           "lanes that never came", "a warp works one row, the warp's number in the block, its "
           "lanes the row's columns: row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32 "
           "(lane = threadIdx.x % 32, the place in the warp)")


def merged_in_the_loop(failure):
    """(problem, hint) of a crash in a shuffle where lanes 0 to k - 1 of every warp of the block
    waited, k = cols % 32, no barrier: those lanes have one column more than the others, and
    called the shuffle once more, so the butterfly merge lies inside the column loop, whose turns
    differ from lane to lane (and merging at every turn folds the merged sums in again)."""
    err, block, launch = failure.error, failure.block, failure.launch
    if failure.kind != "warp mask" or launch is None or not block or err.barrier is not None:
        return
    warps, cols, k = int(np.prod(block)) // 32, int(launch.args[4]), int(launch.args[4]) % 32
    if not k or tuple(getattr(err, "waiting", None) or ()) != tuple(
            32 * w + lane for w in range(warps) for lane in range(k)):
        return
    turns, at = cols // 32, str(err.line or "?").rsplit("/", 1)[-1]
    more, rest = (f"lane{'s 0 to' if k > 1 else ''} {k - 1}", f"lane{'s' if k < 31 else ''} " +
                  (f"{k} to 31" if k < 31 else "31"))
    yield (f"{more} of each warp, which have one column more than the others (cols = {cols}: "
           f"{more} take {turns + 1} columns, {rest} take {turns}), called the merge's "
           f"__shfl_xor_sync at {at} without the others: the butterfly merge is inside the loop "
           f"over the columns, whose turns differ from lane to lane, so {rest} had left the "
           "loop before the last merge (and a merge at every turn folds "
           "the lanes' merged sums in again and again)", "finish each lane's loop over its "
           "columns first, then merge the 32 pairs (m, l) once, after the loop: close the column "
           "loop before for (int offset = 16; offset > 0; offset /= 2)")


def no_column_returned(failure):
    """(problem, hint) of a crash in a shuffle where lanes 0 to cols - 1 of every warp of the
    block waited, cols < 32, and the kernel's text returns at an if that tests cols: the lanes
    with no column left before the merge, whose mask names them."""
    from helpers.exercises.microscope import kernel_words, source_line
    from helpers.sim.compile.kernel_text import closing

    err, block, launch = failure.error, failure.block, failure.launch
    if failure.kind != "warp mask" or launch is None or not block or err.barrier is not None:
        return
    warps, cols = int(np.prod(block)) // 32, int(launch.args[4])
    simulated = getattr(failure.kernel, "simulated", failure.kernel)
    if not 0 < cols < 32 or tuple(getattr(err, "waiting", None) or ()) != tuple(
            32 * w + lane for w in range(warps) for lane in range(cols)) or \
            (text := kernel_words(types.SimpleNamespace(simulated=simulated))) is None:
        return
    source, tokens, words, body, end = text
    for k, close in ((k, closing(tokens, k + 1)) for k in range(body, end) if words[k] == "if"):
        if "cols" not in words[k + 2:close] or words[close + 1:close + 3] != ["return", ";"]:
            continue
        guard, at = source[tokens[k].start:tokens[close + 2].end], str(err.line or "?")
        yield (f"lane{f's {cols} to 31' if cols < 31 else ' 31'} of each warp, which have no "
               f"column (cols = {cols}), returned at line {source_line(source, tokens[k].start)}"
               f", {guard}, and never called the merge's __shfl_xor_sync "
               f"({at.rsplit('/', 1)[-1]}), whose mask 0x{err.mask:08x} names all 32 lanes: "
               f"lane{f's 0 to {cols - 1}' if cols > 1 else ' 0'} waited there for them",
               f"no return for a lane with no column (drop {guard}): its loop runs no turn and "
               "its pair stays (-INFINITY, 0), which the merge counts as 0, so every lane can "
               "reach the shuffles")


def refined(failure):
    """The crashes named from their fields: the row from the lane, a return, the merged loop."""
    yield from row_from_the_lane(failure)
    yield from no_column_returned(failure)
    yield from merged_in_the_loop(failure)


def outputs_swapped(m, sums, want_m, want_l):
    """Lane 0's stores swapped: row_max[row] = l; row_sum[row] = m; each output holds the other's
    right values, exactly."""
    if np.allclose(m, want_l, rtol=1e-3) and np.allclose(sums, want_m):
        yield (f"row_max holds each row's sum and row_sum its max: row_max[0] = {m[0]:.6g}, row "
               f"0's sum of exp(x - m), and row_sum[0] = {sums[0]:.6g}, its max: lane 0 stored "
               "the two the wrong way round",
               "lane 0 stores the max into row_max and the sum into row_sum: row_max[row] = m; "
               "row_sum[row] = l;")


def block_not_times_warps(case, written):
    """row = blockIdx.x + threadIdx.x / 32 (the block number not multiplied by the warps a block
    holds): block b's warps took rows b to b + warps - 1, so the blocks' rows overlap (each row's
    warps store the same pair) and only rows 0 to blocks + warps - 2 were written. ``written``:
    the rows written, all right (``_written_rows``), or None."""
    rows, _, block = case
    warps = block // 32
    blocks = -(-rows // warps)
    last = min(rows, blocks + warps - 1) - 1
    if warps < 2 or last >= rows - 1 or written != list(range(last + 1)):
        return
    took = "1 and 2" if warps == 2 else f"1 to {warps}"
    yield (f"only rows 0 to {last} were written, rows {last + 1} to {rows - 1} never: the blocks' "
           f"rows overlap, each block starting one row after the one before (block 1's warps "
           f"took rows {took}), as the block's first row is blockIdx.x times 1, not times the "
           f"warps a block holds (blockDim.x / 32 = {warps})",
           "a block holds blockDim.x / 32 warps, one a row: row = blockIdx.x * (blockDim.x / 32) "
           "+ threadIdx.x / 32")


def lane_is_the_warp(case, m_out, l_out, x):
    """lane = threadIdx.x / 32, the warp's number in its block: all 32 threads of warp w got lane
    w, so they read the same columns w, w + 32, ..., and only warp 0 of each block (lane 0, every
    thread of it) stored its row's pair: the max of columns 0, 32, ... and 32 times their sum
    (the butterfly merged 32 copies of one pair); the other rows never written."""
    rows, cols, block = case
    warps, xs = block // 32, x.astype(np.float64)[:, ::32]
    first = np.arange(rows) % warps == 0
    m = xs.max(axis=1)
    sums = 32 * np.exp(xs - m[:, None]).sum(axis=1)
    if any(not np.array_equal(out.unwritten, ~first) for out in (m_out, l_out)) or \
            not np.allclose(m_out.got[first], m[first]) or \
            not np.allclose(l_out.got[first], sums[first], rtol=1e-3):
        return
    left = np.flatnonzero(~first)
    unwritten = (f", and rows {', '.join(map(str, left[:3]))}, ... were never written (only "
                 f"warp 0 of each block of {warps} warps has a lane 0)" if left.size else "")
    yield (f"lane = threadIdx.x / 32 is the warp's number in its block, not the thread's place "
           f"in its warp: all 32 threads of warp w got lane w, so they all read the same columns "
           f"w, w + 32, ...{unwritten}; row_sum[0] = {l_out.got[0]:.6g}, 32 times the sum over "
           f"columns 0, 32, 64, ... alone (32 copies of one pair merged), row_max[0] = "
           f"{m_out.got[0]:.6g} their max", "the lane is the thread's place in its warp: int lane "
           "= threadIdx.x % 32 (threadIdx.x / 32 is the warp's number, which picks the row)")



def max_not_kept(m, sums):
    """m = m_new left out of the column loop: each lane's m stayed -INFINITY, so its l = l *
    exp(-INFINITY - v) + exp(v - v) ended at 1, and the merge, which counts a pair whose max is
    -INFINITY as 0, left row_max = -INFINITY and row_sum = 0 in every row, whatever the values
    (on a GPU too: __expf(-INFINITY) is 0). A loop that never ran leaves the same pairs, and
    without the simulator's trace (none on a GPU here) the two look alike: both are named."""
    if not np.isneginf(m).all() or (sums != 0).any():
        return
    yield ("row_max[0] = -inf, row_sum[0] = 0, and so in every row: each lane's running max m "
           "stayed -INFINITY through its column loop, so the merge counted every lane's sum, "
           "whose max was -INFINITY, as 0: m_new = fmaxf(m, v) was never stored back into m "
           "(m = m_new missing from the loop's body; or the loop never ran)",
           "end the loop's body with m = m_new; after l's update, so that the lane's max follows "
           "its values: for (int c = lane; c < cols; c += 32) { ...; l = l * exp(m - m_new) + "
           "exp(v - m_new); m = m_new; }")


def stored_at_the_block(case, m_out, l_out, wants):
    """Lane 0 stored at row_max[blockIdx.x] (one block a row in mind): only slots 0 to blocks - 1
    written, slot b holding the pair of one of block b's warps' rows (which landed last), the
    others never. ``wants``: each row's (m, l)."""
    rows, _, block = case
    warps, written = block // 32, np.arange(rows) < -(-rows // (block // 32))
    if warps < 2 or written.all() or \
            any(not np.array_equal(out.unwritten, ~written) for out in (m_out, l_out)):
        return
    for b in np.flatnonzero(written):
        mine = range(b * warps, min(rows, (b + 1) * warps))
        if not any(np.isclose(m_out.got[b], wants[0][r]) and
                   np.isclose(l_out.got[b], wants[1][r], rtol=1e-3) for r in mine):
            return
    last = int(written.sum()) - 1
    yield (f"only row_max[0] to row_max[{last}] and row_sum[0] to row_sum[{last}] were written, "
           f"each by both warps of its block (slot b holds the pair of one of block b's rows "
           f"{warps} * b to {warps} * b + {warps - 1}), rows "
           f"{last + 1} to {rows - 1} never: lane 0 stores at row_max[blockIdx.x], the block's "
           "number, where its warp's row belongs (a block holds blockDim.x / 32 warps, one a row)",
           "row_max[row] = m; row_sum[row] = l;")


def max_from_the_lane_s_value(x, m, sums):
    """Each lane's max started at its value in[lane], not -INFINITY: right for a lane with a
    column (its first), but in a row shorter than 32 the lanes cols to 31 have none, and their
    in[lane] lies past the row's end (the next rows' values, the junk after x for the last): the
    merge takes it as a max (their l = 0 adds nothing), and the sum is taken against it."""
    rows, cols = x.shape
    if cols >= 32:
        return
    flat = np.append(x.ravel(), np.zeros(32, x.dtype)).astype(np.float64)
    xs, want_m = x.astype(np.float64), x.astype(np.float64).max(axis=1)
    model_m = np.maximum(want_m, flat[np.arange(rows)[:, None] * cols + np.arange(cols, 32)].max(axis=1))
    model_l = np.exp(xs - model_m[:, None]).sum(axis=1)
    if np.allclose(model_m, want_m) or not np.allclose(m, model_m) or \
            not np.allclose(sums, model_l, rtol=1e-3):
        return
    r = int(np.argmax(~np.isclose(m, want_m)))
    past = "the next rows' values" + (", and past x's end" if r * cols + 31 >= rows * cols else "")
    yield (f"row_max[{r}] = {m[r]:.6g} is no value of row {r} (its max is {want_m[r]:.6g}): each "
           f"lane's max started at its value in[lane], but in a row of cols = {cols} lanes "
           f"{cols} to 31 have no column, and their in[lane] lies past row {r}'s end ({past}): "
           "the merge took that value as the row's max",
           "start every lane's max at -INFINITY, below every value, and its sum at 0: float m "
           "= -INFINITY, l = 0.0f; a lane with no column then counts nothing in the merge")
