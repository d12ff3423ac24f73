"""Checker for exercise 3 of notebook 14: ``cuda_src/exercises/attention_tiles.cu``.

``attention_tiles(q, k, v, o, n)`` must write softmax(q k^T / sqrt(64)) v for n queries and keys,
a block of TILE threads a tile of queries, walking over every tile of keys with the online
softmax. The checker's model is the kernel's own walk, tile by tile, in float64: each usual
mistake (a tile skipped or overlapping, keys of zeros scored, a thread's own slot read at every
step, k and v mixed up, keys staged from the wrong index, a rescale forgotten or always 1, m never updated, a wrong scale, the final
division left out) is that walk with one thing changed, and is named when the output matches it. A launch on the simulator, race-checked, inputs allocated to the byte, finds a
missing barrier and a read past n whose value goes nowhere (``staged_past_n``). An index past the TILE slots of Ks or
Vs (the simulator stops there) is a tile's count of keys not capped at TILE (``_refine``). A
return for the threads past n before the barriers, or an if around them (the kernel's words), with only the last
block's rows wrong, is named (``models.returned_past_n``), on the simulator's launch too.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import attention_tiles_models as models
from helpers.exercises import near
from helpers.exercises.attention_tiles_exps import base_2
from helpers.exercises.attention_tiles_staging import staged_past_n
from helpers.exercises.attention_tiles_tile_count import walked_too_few
from helpers.exercises.common import Input, Output
from helpers.exercises.failure import shared_by_the_block
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch, on_simulator
from helpers.exercises.microscope import (accesses_of, barrier_lines, body_words, observe,
                                          observed_mistakes)
from helpers.exercises.verdict import matches

D, TILE = models.D, models.TILE
# (n,): a partial last tile, whole ones, less than a tile, a last tile of one key (so that a tile
# count rounded up from n + TILE - 2 shows), every fourth query's scores far below 0
# (``models.sunk``), and the first again on the simulator, race-checked
CASES = [(75,), (64,), (20,), (97,), (43, "sunk"), (75, "observe")]
EXPS = ("__expf", "expf", "exp", "exp2f", "exp2")


def _draw(rng):
    """The grader's cases: one of each kind the shipped cases have (none of them)."""
    return [(awkward(rng, TILE, 3 * TILE + 1, 8 * TILE),), (pick(rng, (TILE, 3 * TILE, 4 * TILE)),),
            (pick(rng, [n for n in range(1, TILE) if n != CASES[2][0]]),)]


def _where(case):
    n = case[0]
    sunk = ", every fourth query's scores far below 0" if "sunk" in case else ""
    return f"n = {n}, block = ({TILE}, 1, 1), grid = ({-(-n // TILE)}, 1){sunk}"


def walk(q, k, v, tiles=None, keys=lambda n, tile: min(TILE, n - tile * TILE),
         stage=lambda tile, t: tile * TILE + t, scale=D ** -0.5, rescale_l=True, rescale_acc=True,
         update_m=True, own_key=False, own_value=False, divide=True, query_keys=False,
         flip=False, read=None, old_p=False, reset=False):
    """The kernel's walk, tile by tile, in float64: ``tiles`` tiles, each staging key
    ``stage(tile, t)`` in slot t (zeros past n; ``read``: the key read there, if not that one) and scoring ``keys(n, tile)`` of them; the other
    keywords change one step each (``own_key``: thread t scores its own slot's key at every step,
    not slot jj's; ``query_keys``: slot jj holds key blockIdx.x * TILE + jj in every tile, zeros
    past n; ``update_m``: m = m_new after each key; ``flip``: the rescale exp(m_new - m);
    ``divide``: acc / l (True), acc (False), acc / m ("m"), or (acc, m, l) ("parts"); ``old_p``:
    each key's weight exp(s - m), against the max before it; ``reset``: m and l set back to
    -INFINITY and 0 at each tile's start)."""
    n = q.shape[0]
    lane, qs = np.arange(n) % TILE, q.astype(np.float64) * scale
    first, padded = np.arange(n) - lane, np.concatenate([k, np.zeros((TILE, D))])
    m, total, acc = np.full(n, -np.inf), np.zeros(n), np.zeros((n, D))
    for tile in range(-(-n // TILE) if tiles is None else tiles):
        m, total = (np.full(n, -np.inf), np.zeros(n)) if reset else (m, total)
        j = stage(tile, np.arange(TILE))
        key = j if read is None else read(tile, np.arange(TILE))
        ks, vs = (np.where((j < n)[:, None], a[np.minimum(key, n - 1)].astype(np.float64), 0.0)
                  for a in (k, v))
        count = np.broadcast_to(keys(n, tile), (n,))   # the keys each row scores
        for jj in range(int(count.max(initial=0))):
            s = (qs * (ks[lane] if own_key else padded[first + jj] if query_keys else ks[jj])
                 ).sum(axis=1)
            new = np.where(jj < count, np.maximum(m, s), m)  # rows past their count keep theirs
            live = jj < count
            with np.errstate(invalid="ignore", over="ignore"):   # flip: 0 * exp(inf)
                r = np.exp(np.where(live, (new - m) if flip else (m - new), 0.0))
                p = np.where(live, np.exp(s - (m if old_p else new)), 0.0)
                total = total * (r if rescale_l else 1) + p
                acc = acc * (r[:, None] if rescale_acc else 1) + p[:, None] * (
                    vs[lane] if own_value else vs[jj])
            m = new if update_m else m
    if divide == "parts":
        return acc, m, total
    with np.errstate(invalid="ignore", divide="ignore"):
        return acc / (m if divide == "m" else total)[:, None] if divide else acc


def _launch(case):
    n = case[0]
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, D)).astype(np.float16) for _ in range(3))
    q, k = models.sunk(q, k) if "sunk" in case else (q, k)
    spare = TILE * D     # after each array: a load or a store past n lands there, not wild
    after = 0 if on_simulator(case) else spare   # there, the inputs end at n: a read past faults
    return Launch((*(Input(a, after=after, junk=0.0) for a in (q, k, v)),
                   Output((n, D), np.float16, guard=spare), np.int32(n)),
                  block=(TILE, 1, 1), grid=(-(-n // TILE), 1), model=(q, k, v))


def _refine(failure):
    """An index past the TILE slots of Ks or Vs (declared [TILE][HEAD_DIM]): the loop over a
    tile's keys ran past the tile, its count not capped at TILE; a read of k or v past n at the
    key a thread stages, its staging unguarded (``staged_past_n``)."""
    yield from staged_past_n(failure)
    err = failure.error
    if failure.kind == "array bounds" and getattr(err, "length", None) == TILE and \
            (getattr(err, "element", None) or 0) >= TILE:
        yield (f"Ks and Vs hold one tile, TILE = {TILE} keys, and the loop over the tile's keys "
               f"reached slot {err.element}: a tile scores at most TILE keys, keys = min(TILE, "
               "n - tile * TILE) (n - tile * TILE alone counts every key left, the later "
               "tiles' too), and jj < keys")


def _refined(kernels):
    """``_refine``, after two races: a thread's own value __shared__, the next tile staged early."""
    def refine(failure):
        yield from shared_by_the_block(failure)
        yield from _next_tile_staged_early(failure, barrier_lines(kernels))
        yield from _refine(failure)
    return refine


def _next_tile_staged_early(failure, barriers):
    """A race on Ks or Vs between a store and a read of a later line with a barrier between the
    two in the text: not this tile's store and read (the barrier orders those) but the next
    tile's store over this tile's read, the barrier after the scoring loop left out."""
    err = failure.error
    if failure.kind != "race" or err.space != "shared" or err.array not in ("Ks", "Vs"):
        return
    store, load = sorted((err.first, err.second), key=lambda a: not a.writes)
    if not store.writes or not load.reads:
        return
    ours, theirs = (int(a.line.rsplit(":", 1)[-1]) for a in (store, load))
    between = [b for b in barriers if ours < b < theirs]
    if not between:
        return
    place = f"{err.array}[{err.element}]"
    yield (f"on the simulator the race check found a data race on {place} (shared memory): "
           f"thread {store.thread} of block {store.block} went on to stage the next tile's keys "
           f"and values into {place} ({store.line}) while thread {load.thread} still reads this "
           f"tile's ({load.line}), a write-after-read: the __syncthreads() at line {between[0]} "
           "orders a tile's stores before its reads, but nothing holds the next tile's stores "
           "back until every thread has scored this one",
           "a second __syncthreads() at the end of the tile loop's body, after the loop over the "
           "tile's keys, where every thread of the block reaches it")


def _close(got, want):
    return bool(np.allclose(got, want, rtol=1e-2, atol=2e-3, equal_nan=True))


def _mistakes(case, run):
    n, (q, k, v), got = case[0], run.model, run.out.got.astype(np.float64)
    if run.out.past.size:
        yield ("o was written past its last row",
               "only the threads whose query exists write: if (i < n)")
    if _close(got, walk(q, k, v)):
        return
    yield from models.max_from_0((q, k, v), got, walk(q, k, v), _close)
    yield from models.returned_in_a_loop(run.kernel, n, run.out.unwritten)
    yield from _query_rows(n, run.out.unwritten.any(axis=1))
    yield from models.returned_past_n(run.kernel, n, got, walk(q, k, v))
    yield from walked_too_few(run.kernel, n, got, (q, k, v), (_launch, walk, _close))
    yield from _staged_by_query_named(n, got, q, k, v)
    yield from _keys_added_for_values(run.kernel, got, q, k, v)
    yield from matches(got, ((walk(*inputs, **change), problem, hint)
                             for inputs, change, problem, hint in _walks(n, q, k, v, run.kernel)),
                       _close)
    yield from observed_mistakes(observe(run.kernel, _launch(CASES[-1])), _refined(run.kernel),
                                 wrong="o is wrong")
    if run.out.unwritten.any():
        yield ("some rows of o were never written",
               "every thread whose query i < n writes its row of o after the last tile")
    yield from near.misses("o", got, walk(q, k, v), close=near.within(1e-2, 2e-3))
    row = int(np.argwhere(~np.isclose(got, walk(q, k, v), rtol=1e-2, atol=2e-3))[0][0])
    yield (f"row {row} of o is wrong", "o = softmax(q k^T / sqrt(HEAD_DIM)) v: compare your walk "
           "over the tiles with the one in the notebook's attention_tiled")


def _walks(n, q, k, v, kernels):
    """(inputs, walk's keywords, problem, hint) of each known mistake that can show at this n."""
    whole, last = n // TILE, -(-n // TILE) - 1
    if n % TILE:
        yield ((q, k, v), dict(tiles=whole), *models.last_tile_skipped(n, body_words(kernels)))
        yield ((q, k, v), dict(keys=lambda n, tile: TILE), *models.zeros_scored(
            n, last, body_words(kernels)))
        yield from models.masked_by_the_staged_key(n, (q, k, v), last)
    else:
        yield ((q, k, v), dict(keys=lambda n, tile: TILE if tile < last else n % TILE),
               f"n = {n} is a whole number of tiles, and the last tile's keys were not scored "
               "(n % TILE is 0 there)", "score min(TILE, n - tile * TILE) keys in a tile")
    if n % TILE:
        yield ((q, k, v), dict(keys=lambda n, tile: min(TILE, n - tile * TILE + 1)), "the last, "
               f"partial tile took one key too many: it holds {n - last * TILE} keys, and key "
               f"{n}, past the end, was scored too, as the key of zeros staged there (weight "
               "exp(0 - m) in the softmax)", "a tile holds the n - tile * TILE keys left, at "
               "most TILE: keys = min(TILE, n - tile * TILE), with no + 1, then jj < keys")
    yield from models.counts(n, (q, k, v), last)
    yield ((q, k, v), dict(stage=lambda tile, t: tile + t), f"the tiles overlap: tile 1 staged "
           f"keys 1 to {TILE}, where it holds keys {TILE} to {2 * TILE - 1}",
           "thread t stages key j = tile * TILE + t")
    yield from models.factors_swapped(n, (q, k, v), last)
    yield from models.reset_every_tile(n, (q, k, v), last)
    yield ((q, k, v), dict(read=lambda tile, t: t), f"every tile staged the first tile's keys: "
           f"thread t read k[t] and v[t], keys 0 to {TILE - 1}, in every tile, where tile 1 holds "
           f"keys {TILE} to {2 * TILE - 1}", "stage the tile's key j = tile * TILE + t: Ks[t][c] "
           "= k[(size_t)j * HEAD_DIM + c], Vs[t][c] = v[(size_t)j * HEAD_DIM + c]")
    yield ((q, k, v), dict(own_key=True), "each thread scored its own staged key, Ks[t], at every "
           "step of a tile", "at step jj score the tile's key jj: s += qi[c] * Ks[jj][c]")
    yield ((q, k, v), dict(own_value=True), "each thread added its own staged value, Vs[t], at "
           "every step of a tile", "at step jj add the tile's value jj: p * Vs[jj][c]")
    yield from models.dot_over_tile((q, k, v))
    yield ((q, k, k), {}, "o is a mix of the keys, not of the values: Vs was staged from k",
           "Vs[t][c] comes from v[j * HEAD_DIM + c]")
    yield ((q, v, v), {}, "the scores are against the values, not the keys: Ks was staged from v",
           "Ks[t][c] comes from k[j * HEAD_DIM + c]")
    yield from models.row_lengths(n, q, k, v)
    yield ((q, k, v), dict(query_keys=True), "Ks was staged from the query index i: every tile "
           "held the keys of the block's own queries (and threads past n read past k)",
           "thread t stages key j = tile * TILE + t: Ks[t][c] = k[j * HEAD_DIM + c]")
    yield from _rescales((q, k, v), _against_the_old_max(kernels))
    yield ((q, k, v), dict(update_m=False), "o is the value of the last key: m was never set to "
           "m_new, so each key's rescale exp(m - m_new) was 0", "after l and acc: m = m_new")
    yield from models.scales((q, k, v), kernels)
    yield from base_2((q, k, v), kernels)
    yield ((q, k, v), dict(divide=False), "o is acc, not acc / l: the sum of the weights was not "
           "divided out", "write acc[c] / l")
    yield from _divided_by_the_max((q, k, v))


def _divided_by_the_max(inputs):
    """(inputs, walk's keywords, problem, hint) of the output divided by the running max m, the
    largest score, where the sum of the weights l belongs."""
    _, m, total = walk(*inputs, divide="parts")
    yield (inputs, dict(divide="m"), "o is acc / m, not acc / l: the output was divided by m, "
           f"the largest score, where the sum of the weights belongs (row 0: m = {m[0]:.4g}, "
           f"l = {total[0]:.4g})", "divide by the sum of the weights, l: o[(size_t)i * "
           "HEAD_DIM + c] = __float2half(acc[c] / l)")


def _against_the_old_max(kernels):
    """Which exp the kernel's source takes against the old max m: "weight" (p = exp(s - m)),
    "rescale" (exp(m_new - m)), or None (neither, or both). The two give the same NaN in every
    row (the first key's exp(+inf)), whatever the inputs: only the source tells them apart."""
    words = body_words(kernels)
    calls = {tuple(words[i + 2:i + 6]) for i in range(len(words) - 5)
             if words[i] in EXPS and words[i + 1] == "("}
    weight, rescale = (("s", "-", "m", ")") in calls, ("m_new", "-", "m", ")") in calls)
    return "weight" if weight > rescale else "rescale" if rescale > weight else None


def _rescales(inputs, against=None):
    """(inputs, walk's keywords, problem, hint) of the rescale's mistakes: left out of l, of acc
    or of both, or written the wrong way round; and the key's weight taken against the old max,
    whose NaN is the flipped rescale's (``against``: which of the two the source shows)."""
    rescale = "exp(m - m_new), with m the max before this key"
    yield (inputs, dict(rescale_l=False, rescale_acc=False), "neither l nor acc was rescaled "
           "when the max grew: was m set to m_new before the rescale was computed?",
           f"rescale = {rescale}; set m = m_new after l and acc")
    flipped = (inputs, dict(flip=True), "every row of o is NaN: the rescale was exp(m_new - m), "
               "the wrong way round: at the first key m is -INFINITY, so it is exp(+inf) = inf "
               "and l = 0 * inf is NaN (and each time the max grew, l and acc would grow by "
               "exp(m_new - m) where they must shrink)", "rescale = __expf(m - m_new), the old "
               "max less the new: at most 1, it shrinks l and acc when the max grows")
    weight = (inputs, dict(old_p=True), "every row of o is NaN: the key's weight was taken "
              "against the old max, p = exp(s - m), where it belongs against the new one, "
              "exp(s - m_new): at the first key m is -INFINITY, so p = exp(+inf) = inf, l and acc "
              "are inf from then on, and acc / l = inf / inf is NaN (later keys' weights would "
              "not be on the scale of the rescaled l and acc)", "take the weight against the new "
              "max: p = __expf(s - m_new), as the rescale __expf(m - m_new) is")
    if against is None:
        yield (inputs, dict(old_p=True), "every row of o is NaN: an exp was taken against the old "
               "max m, which is -INFINITY at the first key, so it is exp(+inf) = inf: the key's "
               "weight p = exp(s - m) (where it is exp(s - m_new)) or the rescale the wrong way "
               "round, exp(m_new - m), gives this NaN", "take both against the new max m_new: "
               "rescale = __expf(m - m_new), p = __expf(s - m_new)")
    yield from (weight, flipped) if against == "weight" else (flipped, weight)
    yield (inputs, dict(rescale_acc=False), "the output row acc was not rescaled when the max "
           "grew", "acc = acc * exp(m - m_new) + p * v, as l is")
    yield (inputs, dict(rescale_l=False), "the sum l was not rescaled when the max grew",
           "l = l * exp(m - m_new) + p")


def _keys_added_for_values(kernels, got, q, k, v):
    """o the keys' mix, with Vs staged (one key, on the simulator) and never read: the acc update
    read Ks where Vs belongs (a kernel that reads Vs, staged from k, is named by ``_walks``)."""
    want = walk(q, k, k)
    if not _close(got, want) or not models.values_never_read(
            accesses_of(kernels, _launch((1, "observe")), "values read", 16384)):
        return
    right = walk(q, k, v)
    yield ("o is a mix of the keys, not of the values: the acc update added the keys, "
           "Ks[jj][c], where the values Vs[jj][c] belong: Vs is staged but never read (o[0][0] = "
           f"{got[0, 0]:.4g}, the keys' mix {want[0, 0]:.4g}, where the values' is "
           f"{right[0, 0]:.4g})", "acc[c] = acc[c] * rescale + p * Vs[jj][c]")


def _staged_by_query(q, k, v):
    """o as a kernel whose staging of Ks and Vs is guarded by the query's i < n, not the key's
    j < n, gives: in the last, partial block, slot t of every tile is zeros where block * TILE +
    t >= n, and the block's queries score those keys as zeros; the other blocks are right. None
    where every block is whole (the same as the right o)."""
    n = q.shape[0]
    if n % TILE == 0:
        return None
    want, start = walk(q, k, v), n - n % TILE
    kept = (np.arange(n) % TILE < n - start)[:, None]
    ks, vs = np.where(kept, k, 0).astype(np.float64), np.where(kept, v, 0).astype(np.float64)
    s = q[start:].astype(np.float64) @ ks.T * D ** -0.5
    p = np.exp(s - s.max(axis=1, keepdims=True))
    want[start:] = p @ vs / p.sum(axis=1, keepdims=True)
    return want


def _staged_by_query_named(n, got, q, k, v):
    model = _staged_by_query(q, k, v)
    if model is not None and _close(got, model):
        yield (f"the last block's queries (rows {n - n % TILE} to {n - 1}) scored zeros for keys "
               f"that exist: Ks and Vs were staged under the query's test i < n, so in that block "
               f"threads t = {n % TILE} to {TILE - 1} (i >= n) stage zeros in every tile, while in "
               f"the other blocks (i < n) threads stage keys j past n, reading k and v past their "
               "end", "stage key j = tile * TILE + t under its own test: Ks[t][c] = j < n ? "
               "__half2float(k[(size_t)j * HEAD_DIM + c]) : 0.0f, the same for Vs")


def _read_past(run, name):
    """A read of k or v past n, run again with NaN after them: o as a staging guarded by i < n
    gives it."""
    if name in ("k", "v"):
        yield from _staged_by_query_named(run.launch.args[4], run.out.got.astype(np.float64),
                                          *run.model)


def _query_rows(n, unwritten):
    """Rows left unwritten where block b's threads wrote rows b * HEAD_DIM and on."""
    rows = (np.arange(-(-n // TILE))[:, None] * D + np.arange(TILE)).ravel()
    if unwritten.any() and np.array_equal(unwritten, ~np.isin(np.arange(n), rows)):
        yield (f"block 1 wrote rows {D} and on, where its queries are rows {TILE} to "
               f"{2 * TILE - 1}: the query index steps by HEAD_DIM, not TILE",
               "i = blockIdx.x * TILE + threadIdx.x")


def _observed(kernels, case):
    """What the race-checked launch on the simulator found, and a return past n before the
    barriers (a GPU's o is garbage there: only the simulator's is named)."""
    seen = observe(kernels, _launch(case))
    yield from observed_mistakes(seen, _refined(kernels))
    if seen.error is None:
        yield from models.returned_past_n(kernels, case[0], seen.outs[0].got, walk(*_launch(case).model))


EXERCISE = KernelExercise(
    stub="exercises/attention_tiles.cu", kernel="attention_tiles",
    signature="const __half *q, const __half *k, const __half *v, __half *o, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    refine=_refine, read_past=_read_past,
    before=lambda kernels: models.count_capped_with_max(kernels, _launch, walk),
    crash_hint="touch only the keys and queries that exist: j < n ? k[...] : 0.0f, if (i < n)",
    no_extern_c=True,
    success=f"attention over every key ({len(CASES) - 1} launches: partial last tiles of 11 keys "
            "and of 1, whole tiles, less than a tile, queries whose scores are all far below 0), and no "
            "race")

check_attention_tiles = EXERCISE.check_file          # (path="exercises/attention_tiles.cu")
check_attention_tiles_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same
# compiled kernel; on a GPU, simulated is the same source compiled by the simulator
