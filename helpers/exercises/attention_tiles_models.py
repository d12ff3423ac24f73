"""The models of notebook 14's tiled attention that ``helpers.exercises.attention_tiles`` names
a kernel's mistakes with: counts of a tile's keys taken from another tile, from the query, from
the thread or shared out evenly (``counts``), and the values added in the acc update read from Ks,
the keys, where Vs belongs (``values_from_the_keys``), and the score's dot product over the
first TILE numbers of the head alone (``dot_over_tile``), the scores' wrong scales (``scales``),
the running max and sum set back at each tile (``reset_every_tile``), the threads past n
returned before the barriers (``returned_past_n``), the count capped with max
(``count_capped_with_max``), a return in the loop over a tile's keys (``returned_in_a_loop``),
the inputs whose scores sink far below 0 (``sunk``) that show a max started at 0,
and the keys or values staged with a wrong row length (``row_lengths``)."""

from __future__ import annotations

import re

import numpy as np

D, TILE = 64, 32


def counts(n, inputs, last):
    """(inputs, walk's keywords, problem, hint) of a count of keys a tile taken from another
    tile: the last one's in every tile, the block's own query tile's."""
    hint = "count the keys of the tile at hand: min(TILE, n - tile * TILE)"
    block = np.arange(n) // TILE
    if n > TILE:
        yield (inputs, dict(keys=lambda n, tile: np.where(block >= tile, min(TILE, n - tile *
                                                                             TILE), 0)),
               "block b walked only the tiles of keys 0 to b, its own tile and those before it, "
               "as a causal mask's walk does (tiles = blockIdx.x + 1): its queries never saw the "
               "keys of the tiles after it, and attention here has every query attend to every "
               "key", "every block walks all the tiles of keys: tiles = (n + TILE - 1) / TILE")
        counts = [max(min(TILE, n - t * D), 0) for t in range(last + 1)]
        yield (inputs, dict(keys=lambda n, tile: min(TILE, n - tile * D)), f"the tiles scored "
               f"{', '.join(map(str, counts))} keys, where they hold "
               f"{', '.join(str(min(TILE, n - t * TILE)) for t in range(last + 1))}: the count "
               "took tile t's first key as t * HEAD_DIM, where it is key t * TILE (a key is "
               "HEAD_DIM numbers of k, but a tile holds TILE keys)",
               "a tile's keys are counted in keys: keys = min(TILE, n - tile * TILE)")
    if n > TILE:
        yield (inputs, dict(keys=lambda n, tile: min(TILE, n) - tile * TILE), f"o is the attention "
               f"over the first {TILE} keys alone, tile 0's: tiles 1 and up scored no key, their "
               "count came out 0 or less, as min(TILE, n) - tile * TILE does (the tile's first key "
               "taken off after the min)", "each tile scores the keys it holds, at most TILE: "
               "keys = min(TILE, n - tile * TILE), tile * TILE inside the min")
    if n % TILE:
        yield (inputs, dict(keys=lambda n, tile: n - last * TILE), f"every tile scored "
               f"{n - last * TILE} keys, the last tile's count: TILE - (tiles * TILE - n) is the "
               "same for every tile", hint)
    yield from even_split(n, inputs, last)
    yield (inputs, dict(keys=lambda n, tile: min(TILE, n - tile * TILE) - 1), "the last key of "
           f"every tile (keys {TILE - 1}, {2 * TILE - 1}, ... and {n - 1}) was never scored: the "
           "tile's count of keys came out one short, the last key's place in the tile, not the "
           "number of keys, and jj < keys stops before it", "count the tile's keys, at most "
           "TILE: keys = min(TILE, n - tile * TILE), then jj runs while jj < keys")
    yield (inputs, dict(keys=lambda n, tile: min(TILE, n - tile * TILE - 1)), f"the last key, "
           f"key {n - 1}, was never scored, the other {n - 1} were: the last tile's count of keys "
           "came out one short, counted up to the last key's index, n - 1, not to n",
           "a tile holds the n - tile * TILE keys left, at most TILE: keys = min(TILE, n - tile "
           "* TILE), then jj runs while jj < keys")
    yield (inputs, dict(keys=lambda n, tile: np.minimum(TILE, n - np.arange(n) // TILE * TILE)),
           "each block scored as many keys in every tile as its own query tile holds: the count "
           "was taken from blockIdx.x, the tile of queries, not from the tile of keys", hint)
    yield (inputs, dict(keys=lambda n, tile: np.minimum(TILE, n - np.arange(n))),
           "each thread counted every tile's keys from its own query row i, min(TILE, n - i): "
           "the rows near the end scored fewer keys than each tile holds, the others TILE keys "
           "of the last tile too, the zeros staged past n among them", "count from the tile's "
           "first key, tile * TILE, the same count for every thread: min(TILE, n - tile * TILE)")
    yield (inputs, dict(keys=lambda n, tile: np.minimum(TILE, n - tile * TILE - np.arange(n) % TILE)),
           "each thread counted the tile's keys from its own staged key j = tile * TILE + t, "
           "min(TILE, n - j): near the end of the keys the later threads scored fewer keys than "
           "the tile holds", "count from the tile's first key, the same count for every thread: "
           "min(TILE, n - tile * TILE)")


def even_split(n, inputs, last):
    """Every tile's count of keys n / tiles, the keys shared out evenly over the tiles: wrong
    where the last tile is partial (whole tiles hold n / tiles = TILE keys each)."""
    share, holds = n // (last + 1), [min(TILE, n - t * TILE) for t in range(last + 1)]
    if any(share != h for h in holds):
        yield (inputs, dict(keys=lambda n, tile: share), f"every tile scored {share} keys, n / "
               f"tiles = {n} / {last + 1}, the keys shared out evenly over the tiles, where the "
               f"tiles hold {', '.join(map(str, holds))}: each tile holds TILE keys but the last, "
               "which holds the keys left over", "count the keys of the tile at hand, from its "
               "first key, tile * TILE: keys = min(TILE, n - tile * TILE)")


def values_never_read(accesses):
    """Whether a trace of the kernel (``microscope.accesses_of``'s records; None: no trace) shows
    the shared Vs staged and never read: the acc update took its values from another array (a
    kernel that read Ks there gives o as a kernel that staged Vs from k does, the keys' mix)."""
    if accesses is None:
        return False
    vs = accesses[accesses["shared"] & (accesses["array"] == "Vs")]
    return bool(vs["write"].any() and vs["write"].all())


def factors_swapped(n, inputs, last):
    """(inputs, walk's keywords, problem, hint) of key j = tile + t * TILE: the tile's and the
    thread's factors swapped, so a tile stages keys TILE apart."""
    tile = min(1, last)   # tile 1's keys, or tile 0's where there is one tile only
    swapped = [int(j) for j in tile + np.arange(TILE) * TILE if j < n]
    yield (inputs, dict(stage=lambda tile, t: tile + t * TILE), f"tile {tile} staged keys "
           f"{', '.join(map(str, swapped))} in slots 0 to {len(swapped) - 1} (zeros in the rest, "
           f"past n = {n}), where it holds keys {tile * TILE} to {min(n, tile * TILE + TILE) - 1}: "
           "thread t staged key j = tile + t * TILE, the tile's and the thread's factors swapped",
           "a tile's keys follow one another: thread t stages key j = tile * TILE + t")


def reset_every_tile(n, inputs, last):
    """(inputs, walk's keywords, problem, hint) of m and l set back to -INFINITY and 0 at the
    start of each tile: at the tile's first key the rescale exp(m - m_new) is exp(-inf) = 0,
    which wipes acc, so only the last tile's keys reach o."""
    if last:
        yield (inputs, dict(reset=True), f"o is the attention over the last tile's keys alone "
               f"(keys {last * TILE} to {n - 1} of the {n}): the running max and sum m and l "
               "started afresh at each tile (m = -INFINITY, l = 0 inside the tile loop), so at "
               "each tile's first key the rescale exp(m - m_new) = exp(-inf) = 0 wiped acc, what "
               "the tiles before had added", "set m = -INFINITY and l = 0 once, before the loop over the "
               "tiles, as acc: they carry the row's running max and sum from tile to tile")

def dot_over_tile(inputs):
    """(inputs, walk's keywords, problem, hint) of the score's dot product bounded by TILE where
    HEAD_DIM belongs (c < TILE): q's numbers past the first TILE left out of every score."""
    q, k, v = inputs
    cut = q.copy()
    cut[:, TILE:] = 0
    score = lambda c: float((q[0, :c].astype(np.float64) * k[0, :c]).sum()) * D ** -0.5  # noqa: E731
    yield ((cut, k, v), {}, f"each score summed only the first {TILE} of the HEAD_DIM = {D} "
           f"products qi[c] * Ks[jj][c]: the dot product's loop ran while c < TILE, but a query "
           f"and a key hold HEAD_DIM = {D} numbers each (TILE = {TILE} counts the keys of a "
           f"tile), so row 0's score against key 0 came out {score(TILE):.4g}, where it is "
           f"{score(D):.4g}", "a score is the dot product over the whole head: for (int c = 0; "
           "c < HEAD_DIM; ++c) s += qi[c] * Ks[jj][c]")


def last_tile_skipped(n, words):
    """(problem, hint) of a walk over n // TILE tiles, the last, partial one skipped: a tile
    count of n / TILE, or of ceil(n / TILE) where the kernel's ``words`` (its body's) have it,
    whose integer division has rounded down before ceil sees it."""
    whole = n // TILE
    problem = (f"the last, partial tile was skipped: o is the attention over the first "
               f"{whole * TILE} of the {n} keys")
    ceil = next((words[i] for i in range(len(words) - 5) if words[i] in ("ceil", "ceilf")
                 and words[i + 1:i + 6] in (["(", "n", "/", name, ")"] for name in ("TILE",
                                                                                     str(TILE)))),
                None)
    if ceil is None:
        return problem, "walk over (n + TILE - 1) / TILE tiles, not n / TILE"
    return (f"{problem}: {ceil}(n / TILE) takes the ceiling of an integer division: n / TILE = "
            f"{n} / {TILE} is already {whole}, rounded down, before {ceil} sees it",
            "round up in integers: (n + TILE - 1) / TILE tiles (n + TILE - 1 reaches the next "
            "multiple of TILE whenever n is not one)")


def zeros_scored(n, last, words):
    """(problem, hint) of TILE keys scored in every tile, the last one's missing keys among them
    (keys of zeros): a count with no limit, or, in the kernel's ``words`` (its body's), one that
    takes off the tile's number, min(TILE, n - tile), where its first key, tile * TILE, belongs
    (tile a name the body multiplies by TILE elsewhere): TILE in every tile wherever n > TILE."""
    missing, holds, text = (last + 1) * TILE - n, n - last * TILE, " ".join(words)
    problem = (f"the {missing} missing keys of the last tile were scored, as keys of zeros: each "
               "took a share exp(0 - m) of the softmax")
    for count in re.finditer(rf"(?:(\w+) = )?(min \( (?:(?:TILE|{TILE}) , n - (\w+)|n - (\w+) , "
                             rf"(?:TILE|{TILE})) \))", text):
        name, tile = count[1] or "keys", count[3] or count[4]
        if re.search(rf"\b{tile} \* TILE\b|\bTILE \* {tile}\b", text) and tile != "n":
            expr = count[2].replace(" ( ", "(").replace(" , ", ", ").replace(" )", ")")
            return (f"{name + ' = ' if count[1] else 'the count '}{expr} takes off the tile's "
                    f"number, {tile}, where the tile's first key, {tile} * TILE, belongs: the "
                    f"last tile ({tile} = {last}, n = {n}) counted min({TILE}, {n - last}) = "
                    f"{TILE} keys where it holds {n} - {last * TILE} = {holds}, so {problem}",
                    f"count from the tile's first key: {name} = min(TILE, n - {tile} * TILE)")
    return problem, "score only the keys that exist: min(TILE, n - tile * TILE) in a tile"


def masked_by_the_staged_key(n, inputs, last):
    """(inputs, walk's keywords, problem, hint) of TILE keys scored in every tile, a key masked
    (s = -INFINITY) where j = tile * TILE + t >= n, j the key thread t staged, not the one it
    scores: in the last, partial tile the threads with t < n - tile * TILE scored its zero keys
    too, the others none of its keys (exp(-inf - m) = 0 adds nothing)."""
    here = n - last * TILE
    if not 0 < here < TILE or last == 0:
        return
    yield (inputs, dict(keys=lambda n, tile: np.where(tile * TILE + np.arange(n) % TILE < n, TILE,
                                                      0)),
           f"in the last tile (keys {last * TILE} to {n - 1}) the mask if (j >= n) tests j = tile "
           "* TILE + t, the key this thread staged, not the key it scores, tile * TILE + jj: the "
           f"queries with t < {here} scored the {TILE - here} zero keys {n} to "
           f"{(last + 1) * TILE - 1} as keys with a score of 0, and those with t >= {here} masked "
           "every key of the tile", "test the scored key, tile * TILE + jj >= n, or score only "
           "the keys the tile holds: keys = min(TILE, n - tile * TILE), then jj < keys")


def _scalings(words):
    """The statements of the kernel's ``words`` that multiply by 1 / sqrt(HEAD_DIM): by rsqrtf
    or by a name set from it (or from 1 / sqrtf) alone, each as "target op ... * factor"."""
    factors = set()
    for i in range(1, len(words) - 1):
        rhs = words[i + 1:next((e for e in range(i + 1, len(words)) if words[e] in ";,"),
                               len(words))]
        if words[i] == "=" and words[i - 1].isidentifier() and words[i - 1] not in rhs and \
                ("rsqrtf" in rhs or "sqrtf" in rhs and "/" in rhs):
            factors.add(words[i - 1])
    places = []
    for j, word in enumerate(words):
        if word not in factors | {"rsqrtf"} or (words[j - 1] not in ("*", "*=")
                                                 and words[j + 1:j + 2] != ["*"]):
            continue
        op = max((i for i in range(j) if words[i] in ("=", "*=", "+=")), default=None)
        if op is None:
            continue
        start, depth = op - 1, 0
        while words[start] == "]" or depth:
            depth += {"]": 1, "[": -1}.get(words[start], 0)
            start -= 1
        factor = word if word in factors else "rsqrtf(HEAD_DIM)"
        target = "".join(words[start:op])
        places.append(f"{target} *= {factor}" if op == j - 1 and words[op] == "*=" else
                      f"{target} {words[op]} ... * {factor}")
    return places


def scales(inputs, kernels):
    """(inputs, walk's keywords, problem, hint) of the scores' scale other than 1 / sqrt(HEAD_DIM):
    1 / sqrt(HEAD_DIM) applied twice (in the kernel's words), none, 1 / HEAD_DIM, 1 / sqrt(TILE),
    sqrt(HEAD_DIM) (q divided by rsqrtf's result), 0."""
    from helpers.exercises.microscope import body_words

    places = _scalings(body_words(kernels))
    if len(places) >= 2:
        yield (inputs, dict(scale=1 / D), "the scores were scaled twice by 1 / sqrt(HEAD_DIM), "
               f"which makes 1 / HEAD_DIM: once by {places[0]} and again by {places[1]}",
               "scale once, either q as it is loaded or each score, not both: keep "
               f"{places[0]} and drop {places[1]} (or the other way round)")
    for scale, name in ((1.0, "not scaled by 1 / sqrt(HEAD_DIM)"), (1 / D, "scaled by 1 / HEAD_DIM, "
                        "not 1 / sqrt(HEAD_DIM)"), (TILE ** -0.5, "scaled by 1 / sqrt(TILE), not "
                        "1 / sqrt(HEAD_DIM)")):
        yield (inputs, dict(scale=scale), f"the scores were {name}",
               "multiply q (or each score) by rsqrtf(HEAD_DIM)")
    yield (inputs, dict(scale=D ** 0.5), f"the scores were {D} times too large: q was "
           f"multiplied by sqrt(HEAD_DIM) = {D ** 0.5:g} (as q / scale does, scale = "
           f"rsqrtf(HEAD_DIM) being 1 / {D ** 0.5:g} already, or q * sqrtf(HEAD_DIM)), where it "
           f"belongs multiplied by 1 / sqrt(HEAD_DIM) = 1 / {D ** 0.5:g}: rsqrtf is a reciprocal "
           "square root",
           "rsqrtf(x) is 1 / sqrt(x): multiply q by it, scale = rsqrtf((float)HEAD_DIM) and qi[c] "
           "= __half2float(q[(size_t)i * HEAD_DIM + c]) * scale")
    yield (inputs, dict(scale=0.0), "every score was 0, each key weighted alike: the scale "
           "was 0 (1 / 8 is an integer division, and its result 0)",
           "multiply q by rsqrtf(HEAD_DIM) (or 1.0f / 8: a float)")


def returned_past_n(kernels, n, got, want):
    """(problem, hint) of the threads past the last query kept from the tile loop's
    __syncthreads() (the kernel's words, ``barrier_if``): by a return before them, or by an if
    around them, where only rows of the last, partial block of o are wrong (``got`` against
    ``want``): those threads staged no key or value, so the block's queries scored slots no
    thread of the block filled."""
    from helpers.exercises.barrier_if import barriers_in_thread_ifs, returns_before_barriers

    first, last = n - n % TILE, n // TILE
    rows = np.flatnonzero(~np.isclose(got.astype(np.float64), want, rtol=1e-2, atol=2e-3).all(axis=1))
    if not n % TILE or not rows.size or rows[0] < first:
        return
    if found := returns_before_barriers(kernels):
        line, cond, barrier = found[0]
        did, fix = f"return at line {line}, before the __syncthreads() at line {barrier}", "keep it to the end"
        skipped = ""   # a barrier waits for no thread that has returned (notebooks 06 and 09)
    elif found := barriers_in_thread_ifs(kernels):
        barrier, cond, _ = found[0]
        text = " ".join(cond).replace(" . ", ".")
        did, fix = (f"skip the tile loop inside if ({text}), and with it the __syncthreads() at "
                    f"line {barrier}", f"take the tile loop out of the if ({text})")
        skipped = ", and the others wait at barriers those threads never reach"
    else:
        return
    text = " ".join(cond).replace(" . ", ".")
    who = (f"threads {n % TILE} to {TILE - 1} of the last block (block {last}, queries {n} to "
           f"{first + TILE - 1}, i >= n)" if cond[1:] in ([">=", "n"], ["<", "n"]) else
           f"the threads with {text}")
    wrong = f"rows {rows[0]} to {rows[-1]} of o are" if rows.size > 1 else f"row {rows[0]} of o is"
    yield (f"{wrong} wrong, the last block's queries: {who} {did}: they staged no key or value "
           f"for any tile, so the block's queries scored slots Ks[{n % TILE}] to Ks[{TILE - 1}] "
           "(and Vs's) that no thread of the block filled, though those keys exist in every tile "
           f"but the last{skipped}", "a thread "
           f"past n still stages its tile's key and reaches every barrier: {fix}, "
           "and guard only its query's load (qi[c] = i < n ? ... : 0.0f) and its store of o "
           "(if (i < n))")


def count_capped_with_max(kernels, launch, walk):
    """A tile's count of keys capped with max where min belongs, keys = max(TILE, n - tile *
    TILE), told by two launches on the simulator (``launch(case)``, ``walk``: the model): a lone
    partial tile of 11 keys scored TILE of them (its staged zeros too), and with n = TILE + 11
    tile 0 scored past its TILE slots of Ks (the simulator stops there). None for another kernel,
    or where the kernels have no simulated twin."""
    from helpers.exercises.microscope import observe
    from helpers.exercises.verdict import not_yet

    short, long = (11, "observe"), (TILE + 11, "observe")
    if not hasattr(kernels, "simulated"):
        return None
    seen = observe(kernels, launch(short), key="a lone partial tile", racecheck=False)
    if seen.error is not None or not np.allclose(
            seen.outs[0].got.astype(np.float64), walk(*launch(short).model, keys=lambda n, t: TILE),
            rtol=1e-2, atol=2e-3):
        return None
    err = observe(kernels, launch(long), key="a tile and 11 keys", racecheck=False).error
    if getattr(err, "kind", None) != "array bounds" or getattr(err, "length", None) != TILE or \
            (getattr(err, "element", None) or 0) < TILE:
        return None
    return not_yet(
        "keys = max(TILE, n - tile * TILE) counts at least TILE keys in every tile: max takes the "
        "larger of the two, so a tile with more than TILE keys left counts them all, past its "
        f"TILE = {TILE} slots of Ks and Vs, and a partial last tile counts TILE, its staged zeros "
        f"too (launches on the simulator: with n = {TILE + 11} tile 0's loop over its keys read "
        f"slot {err.element}, past Ks's {TILE}; with n = 11, one tile, its "
        f"{TILE - 11} zero keys were scored)", "cap the count with min: keys = min(TILE, n - "
        "tile * TILE), the keys left but at most TILE")



def returned_in_a_loop(kernels, n, unwritten):
    """(problem, hint) of o never written, not one row, where a return lies in the body of a loop
    in the kernel's words: the loop over a tile's keys left with return at a key past n (the
    bounds guard of the earlier kernels), which ends the thread, not the loop, so in the last,
    partial tile every thread returned before its store of o. None for any other kernel."""
    from helpers.exercises.barrier_if import loops_in
    from helpers.exercises.microscope import kernel_words, source_line
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if not n % TILE or not unwritten.all() or (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    try:
        loops = loops_in(tokens, words, body, end)
        at, (loop, head, _) = next((r, max(lp for lp in loops if lp[1] < r <= lp[2]))
                                   for r in range(body, end) if words[r] == "return"
                                   and any(lp[1] < r <= lp[2] for lp in loops))
        ifs = [(i, closing(tokens, i + 1)) for i in range(head + 1, at) if words[i] == "if"]
    except (Unreadable, ValueError, IndexError, StopIteration):
        return
    said = lambda a, b: " ".join(source[tokens[a].start:tokens[b].end].split())  # noqa: E731
    guard = next((f", if ({said(i + 2, shut - 1)}) return;" for i, shut in ifs
                  if words[shut + 1:shut + 3] in (["return", ";"], ["{", "return"])), "")
    yield (f"o was never written (not one of its {n} rows): every thread left the kernel at the "
           f"return at line {source_line(source, tokens[at].start)}{guard}, inside the loop "
           f"{said(loop, head)} (line {source_line(source, tokens[loop].start)}): at the first "
           f"key past the end, in the last, partial tile (keys {n - n % TILE} to "
           f"{n - 1}), return ended the thread, not the loop, before it reached the store of o "
           "after the tiles", "a key past the end ends the loop over the tile's keys, not the "
           "kernel: break there (or loop while jj < keys, keys = min(TILE, n - tile * TILE)), "
           "so that every thread still reaches the store of o")


def sunk(q, k):
    """The sunk case's q and k: every key's numbers shifted by -1.5625 (its sum about -100) and
    every fourth query's numbers all 16, so that its scores q.k / sqrt(64), twice a key's sum, all
    lie far below 0 (about -200), where exp(s) underflows to 0 in float; the other queries'
    scores shift by a constant of their own, which the softmax cancels."""
    k, q = (k.astype(np.float32) - 1.5625).astype(np.float16), q.copy()
    q[3::4] = 16
    return q, k


def max_from_0(inputs, got, want, close):
    """(problem, hint) where o is NaN in exactly the rows whose scores all lie below -88 (each
    exp(s) 0 in float) and ``close`` to ``want`` elsewhere: the running max started at 0, above
    those scores, so it never moved and every weight exp(s - 0) underflowed to 0."""
    q, k, _ = (a.astype(np.float64) for a in inputs)
    top = (q @ k.T * D ** -0.5).max(axis=1)
    low = top < -88
    if not low.any() or not np.array_equal(np.isnan(got).any(axis=1), low) or \
            not close(got[~low], want[~low]):
        return
    rows = ", ".join(map(str, np.flatnonzero(low)[:3])) + ", ..." * bool(low.sum() > 3)
    yield (f"o is NaN in exactly the rows whose scores are all far below 0 (rows {rows}: the "
           f"largest of their scores is {top[low].max():.0f}), and right in the others: the running max started at 0, above every score of those rows, so it "
           "never moved off 0, each weight exp(s - m) = exp(s - 0) underflowed to 0 in float, "
           "and o = acc / l = 0 / 0 is NaN", "start the running max at -INFINITY, below every "
           "score: float m = -INFINITY, l = 0.0f (the first key's score then becomes m)")


def row_lengths(n, q, k, v):
    """(inputs, {}, problem, hint) of keys or values staged as k[j * TILE + c] or k[j + c]."""
    at = np.arange(n)[:, None] + np.arange(D)
    yield ((q, k.ravel()[at + np.arange(n)[:, None] * (TILE - 1)], v), {}, "the keys were "
           "staged TILE elements apart, k[j * TILE + c], where key j is HEAD_DIM elements long",
           "Ks[t][c] comes from k[j * HEAD_DIM + c]")
    for inputs, names in (((q, k.ravel()[at], v.ravel()[at]), "kv"), ((q, k.ravel()[at], v), "k"),
                          ((q, k, v.ravel()[at]), "v")):
        yield (inputs, {}, f"the {' and '.join({'k': 'keys', 'v': 'values'}[a] for a in names)} "
               f"were staged from {' and '.join(a + '[j + c]' for a in names)}: key j starts at "
               f"element j * HEAD_DIM, so key j read elements j to j + {D - 1}, mostly key 0's "
               "(the row length HEAD_DIM was left out)", "a key is HEAD_DIM elements long: " +
               ", ".join(f"{a.upper()}s[t][c] = {a}[(size_t)j * HEAD_DIM + c]" for a in names))
