"""Checker for exercise 3 of notebook 14: ``cuda_src/exercises/attention_tiles.cu``.

``attention_tiles(q, k, v, o, n)`` must write softmax(q k^T / sqrt(64)) v for n queries and keys,
a block of TILE threads a tile of queries, walking over every tile of keys with the online
softmax. The checker's model is the kernel's own walk, key by key, in float64: each usual mistake
(the last tile skipped, the missing keys of the last tile scored, a rescale forgotten, the scale
or the final division left out) is that walk with one thing changed, and is named when the
output matches it. A launch on the simulator, race-checked, inputs allocated to the byte, finds a
missing barrier and a read past n whose value goes nowhere.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch, on_simulator
from helpers.exercises.microscope import observe, observed_launch, observed_mistakes

D, TILE = 64, 32
CASES = [(75,), (64,), (20,), (75, "observe")]  # (n,): a partial last tile, whole ones, < 1 tile


def _draw(rng):
    """The grader's cases: one of each kind the shipped cases have (none of them)."""
    return [(awkward(rng, TILE, 3 * TILE + 1, 8 * TILE),), (pick(rng, (TILE, 3 * TILE, 4 * TILE)),),
            (pick(rng, [n for n in range(1, TILE) if n != CASES[2][0]]),)]


def _where(case):
    n = case[0]
    return f"n = {n}, block = ({TILE}, 1, 1), grid = ({-(-n // TILE)}, 1)"


def walk(q, k, v, keys=None, scale=D ** -0.5, rescale_l=True, rescale_acc=True, divide=True):
    """The online softmax over the first ``keys`` keys (more than n: zero keys and values past n)
    in the kernel's order, in float64; the keywords change one step each."""
    n = q.shape[0]
    keys = n if keys is None else keys
    kz, vz = (np.vstack([a.astype(np.float64), np.zeros((max(0, keys - n), D))]) for a in (k, v))
    qs = q.astype(np.float64) * scale
    m, total, acc = np.full(n, -np.inf), np.zeros(n), np.zeros((n, D))
    for j in range(keys):
        s = qs @ kz[j]
        new = np.maximum(m, s)
        r, p = np.exp(m - new), np.exp(s - new)
        total = total * (r if rescale_l else 1) + p
        acc = acc * (r[:, None] if rescale_acc else 1) + p[:, None] * vz[j]
        m = new
    with np.errstate(invalid="ignore", divide="ignore"):
        return acc / total[:, None] if divide else acc


def _launch(case):
    n = case[0]
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, D)).astype(np.float16) for _ in range(3))
    spare = TILE * D     # after each array: a load or a store past n lands there, not wild
    after = 0 if on_simulator(case) else spare   # there, the inputs end at n: a read past faults
    return Launch((*(Input(a, after=after, junk=0.0) for a in (q, k, v)),
                   Output((n, D), np.float16, guard=spare), np.int32(n)),
                  block=(TILE, 1, 1), grid=(-(-n // TILE), 1), model=(q, k, v))


def _close(got, want):
    return bool(np.allclose(got, want, rtol=1e-2, atol=2e-3, equal_nan=True))


def _mistakes(case, run):
    n, (q, k, v), got = case[0], run.model, run.out.got.astype(np.float64)
    if run.out.past.size:
        yield ("o was written past its last row",
               "only the threads whose query exists write: if (i < n)")
    if _close(got, walk(q, k, v)):
        return
    whole, tiles = n // TILE * TILE, -(-n // TILE) * TILE
    if n % TILE and _close(got, walk(q, k, v, keys=whole)):
        yield (f"the last, partial tile was skipped: o is the attention over the first {whole} "
               f"of the {n} keys", "walk over (n + TILE - 1) / TILE tiles, not n / TILE")
    if n % TILE and _close(got, walk(q, k, v, keys=tiles)):
        yield (f"the {tiles - n} missing keys of the last tile were scored, as keys of zeros: "
               "each took a share exp(0 - m) of the softmax",
               "score only the keys that exist: min(TILE, n - tile * TILE) in a tile")
    named = [("the output row acc was not rescaled when the max grew", dict(rescale_acc=False),
              "acc = acc * exp(m - m_new) + p * v, as l is"),
             ("the sum l was not rescaled when the max grew", dict(rescale_l=False),
              "l = l * exp(m - m_new) + p"),
             ("the scores were not scaled by 1 / sqrt(HEAD_DIM)", dict(scale=1.0),
              "multiply q (or each score) by rsqrtf(HEAD_DIM)"),
             ("o is acc, not acc / l: the sum of the weights was not divided out",
              dict(divide=False), "write acc[c] / l")]
    for problem, change, hint in named:
        if _close(got, walk(q, k, v, **change)):
            yield problem, hint
    yield from observed_mistakes(observe(run.kernel, _launch(CASES[-1])), wrong="o is wrong")
    if run.out.unwritten.any():
        yield ("some rows of o were never written",
               "every thread whose query i < n writes its row of o after the last tile")
    row = int(np.argwhere(~np.isclose(got, walk(q, k, v), rtol=1e-2, atol=2e-3))[0][0])
    yield (f"row {row} of o is wrong", "o = softmax(q k^T / sqrt(HEAD_DIM)) v: compare your walk "
           "over the tiles with the one in the notebook's attention_tiled")


EXERCISE = KernelExercise(
    stub="exercises/attention_tiles.cu", kernel="attention_tiles",
    signature="const __half *q, const __half *k, const __half *v, __half *o, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    simulated="runs the race check", observed=observed_launch(_launch), observed_as="race-checked",
    crash_hint="touch only the keys and queries that exist: j < n ? k[...] : 0.0f, if (i < n)",
    no_extern_c=True,
    success=f"attention over every key ({len(CASES) - 1} launches: a partial last tile, whole "
            "tiles, less than a tile), and no race")

check_attention_tiles = EXERCISE.check_file          # (path="exercises/attention_tiles.cu")
check_attention_tiles_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same
# compiled kernel; on a GPU, simulated is the same source compiled by the simulator
