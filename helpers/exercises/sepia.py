"""Checker for the exercise in notebook 04: ``cuda_src/exercises/sepia.cu``.

``sepia(rgb, out, width, height)`` writes each pixel of an interleaved RGB image (bytes ``3*i``
to ``3*i + 2`` of pixel ``i = y * width + x``) through the ``SEPIA`` matrix, rounded and clamped
to 255, in the same layout. Any byte can be a right answer, so each case runs twice, the output
poisoned with a different byte each time (``POISONS``). The last case runs on the simulator,
race-checked (``helpers.exercises.microscope``), whatever the backend: a kernel in which every
thread converts every pixel gives the right image, but each pixel is written by every thread.
"""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import near as near_miss
from helpers.exercises.common import Input, Output, one_further
from helpers.exercises.coverage import Grid, Words, coverage, past_the_end
from helpers.exercises.hidden import grids
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import observe, written_by_two, written_twice
from helpers.exercises.verdict import matches
from helpers.exercises.origin import Wrong

SEPIA = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
"""Row c gives output channel c (R', G', B') from the input's (R, G, B)."""
CASES = [Grid(37, 53, (16, 16)), Grid(71, 45, (32, 8))]  # odd sides, wide and tall, two blocks


OBSERVED = Grid(5, 7, (4, 4), observe=True)
"""The last case: a small image on the simulator alone, race-checked; not in CASES, which
OpenCL's port shares."""
POISONS, JUNK = (0xEF, 0x10), 0
"""The output's fill before each of the two runs (a byte that holds each run's own was never
written), and what the input's spare bytes (past the image) hold."""
ROUNDING_SLACK = 0.01
"""Where the exact sum is within this of a rounding boundary, a result one level off counts as
right (a GPU's float sum may fall on the other side; float32 sums near 300 are off by about 1e-4
at most); elsewhere it must be NumPy's exactly, so that truncating instead of rounding fails."""

CHANNEL_NAMES = ("red", "green", "blue")
INDEX_HINT = ("x = blockIdx.x * blockDim.x + threadIdx.x (the column), "
              "y = blockIdx.y * blockDim.y + threadIdx.y (the row), pixel i = y * width + x")
GUARD_HINT = ("the grid is rounded up to whole blocks, so some threads lie outside the image: "
              "start the kernel with if (x >= width || y >= height) return;")
WILD_HINT = (GUARD_HINT + "; and pixel (x, y) is i = y * width + x, its bytes 3*i to 3*i + 2")
WORDS = Words(index_hint=INDEX_HINT, guard_hint=GUARD_HINT,
              store_hint="each thread should store its three results in out[3*i], out[3*i + 1], "
                         "out[3*i + 2]")
LAYOUT_HINT = ("pixel i's red, green and blue are at 3*i, 3*i + 1 and 3*i + 2, in rgb and in out "
               "alike, and row c of the matrix gives output channel c: "
               "out[3*i] = 0.393f*r + 0.769f*g + 0.189f*b, and so on")


def draw(rng):
    """The grader's cases: two more images with odd sides, on the shipped blocks (OpenCL's too)."""
    return grids(rng, [case.block for case in CASES], 3, 120, 2)


def reference(rgb: np.ndarray, matrix=SEPIA.T, half=0.5) -> np.ndarray:
    """NumPy sepia of an ``(h, w, 3)`` uint8 image: rounded, clamped to 255, uint8 (with another
    ``matrix`` or ``half``, 0 to truncate, what a wrong kernel gives)."""
    return np.minimum(np.floor(rgb @ matrix + half), 255).astype(np.uint8)


def _launch(case):
    h, w = case.height, case.width
    rgb = np.random.default_rng(h * 1000 + w).integers(0, 256, (h, w, 3), dtype=np.uint8)
    span, size = 3 * case.span(), 3 * h * w
    return Launch((Input(rgb, span - size, JUNK), Output(
        (h, w, 3), np.uint8, span + 64 - size, poisons=POISONS), np.int32(w), np.int32(h)),
        **case.launch(), model=rgb)


def _observed(kernels, case):
    return written_twice(kernels, _launch(case), "each thread converts only its own pixel: "
                         "x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y "
                         "+ threadIdx.y, i = y * width + x, then out[3*i], out[3*i + 1], "
                         "out[3*i + 2] = ...; no loop over all the pixels", items="pixels")


SIGNED_HINT = ("the channels are unsigned char, 0 to 255, as rgb holds them: read them into "
               "float (or unsigned char): float r = rgb[3 * i], g = rgb[3 * i + 1], "
               "b = rgb[3 * i + 2]")


def signed_tone(rgb):
    """The sepia of channels read into a signed char (-128 to 127), as a GPU gives it: a sum
    below 0 converts to unsigned char as 0 (its conversion saturates)."""
    sums = rgb.view(np.int8).astype(np.float64) @ SEPIA.T
    return np.clip(np.floor(sums + 0.5), 0, 255).astype(np.uint8)


def _signed(rgb, got):
    """Channels read as signed chars: the bytes 128 and more made negative (a GPU's output)."""
    if (rgb >= 128).any() and near(got, signed_tone(rgb)) and not near(got, reference(rgb)):
        yield ("bytes of 128 and more became negative: the channels were read into a char, "
               "which holds -128 to 127, so 128 to 255 turned into -128 to -1 and the sums "
               "came out too small (below 0 stored as 0)", SIGNED_HINT)


def _refine(failure):
    """A conversion that stopped on a negative sum (its fields: the value, the type, the thread)
    which the thread's pixel gives with its channels read as signed chars."""
    err, launch = failure.error, failure.launch
    value, to_type = getattr(err, "value", None), getattr(err, "to_type", None) or ""
    rgb = getattr(launch, "model", None)
    if failure.kind != "conversion" or value is None or rgb is None or not getattr(
            err, "thread", None) or not to_type.startswith("unsigned"):
        return
    x, y = (err.block[k] * launch.block[k] + err.thread[k] for k in range(2))
    if not (y < rgb.shape[0] and x < rgb.shape[1] and rgb[y, x].max() >= 128):
        return
    sums = rgb[y, x].view(np.int8).astype(np.float64) @ SEPIA.T + 0.5
    if np.isclose(sums, value, atol=1e-2).any():
        yield (f"pixel (x = {x}, y = {y}) has channels {', '.join(map(str, rgb[y, x]))}, and its "
               f"sepia value (its sum + 0.5f) came out {value:g}, which bytes 0 to 255 never give: the channels were "
               "read into a char, which holds -128 to 127, so 128 to 255 turned into -128 to -1 "
               f"(the conversion of {value:g} to {to_type} stopped the kernel on the simulator; "
               "a GPU gives 0)", SIGNED_HINT)


def _mistakes(case, run):
    yield from _and_or_width(case, run)
    yield from _guard_on_the_thread(run)
    yield from written_mistakes(run.out, case, WORDS, WILD_HINT, WILD_HINT)
    yield from _signed(run.model, run.out.got)
    yield from _wrong_values(run.model, run.out.got)


THREAD_PROBE = Grid(12, 10, (16, 16))
"""An image smaller than its block, launched with a spare block in x and in y: a guard on
threadIdx lets through the spare blocks' threads with threadIdx.x < width, threadIdx.y < height."""


def _guard_on_the_thread(run):
    """Stores past the end of out: a launch of THREAD_PROBE with a spare block in x and y shows a
    guard on threadIdx.x and threadIdx.y, where the pixel's x and y belong."""
    if not run.out.past.size:
        return
    (gx, gy), (bx, by) = THREAD_PROBE.grid, THREAD_PROBE.block
    w, h = THREAD_PROBE.width, THREAD_PROBE.height
    y, x = np.indices(((gy + 1) * by, (gx + 1) * bx))
    index = (y * w + x)[(x % bx < w) & (y % by < h)]
    rgb, room = np.zeros((h, w, 3), np.uint8) + 200, 3 * (int(index.max()) + 1) + 64 - 3 * w * h
    launched = EXERCISE.run(run.kernel, Launch(
        (Input(rgb, room, JUNK), Output((h, w, 3), np.uint8, room, poisons=POISONS),
         np.int32(w), np.int32(h)), block=(bx, by, 1), grid=(gx + 1, gy + 1), model=rgb))
    try:
        next(launched)
        return
    except StopIteration as stop:
        seen = stop.value
    if seen is not None and set((seen.out.past // 3).tolist()) == set(index[index >= w * h].tolist()):
        yield ("threads outside the image wrote past the end of out, though there is a guard: "
               "it tests threadIdx.x and threadIdx.y, the thread's place in its block, which "
               "stay below the block's size, where the pixel's x and y belong (an image of "
               f"{w} x {h} pixels launched with a spare block in x and in y: the spare blocks' "
               f"threads with threadIdx.x < {w} and threadIdx.y < {h} wrote past its end)",
               "guard the pixel, not the thread's place in its block: "
               "if (x >= width || y >= height) return;")


def _and_or_width(case, run):
    """A guard joined with && and one comparing y with width send the same stores past the end
    on an image wider than tall whose grid has no more rows of threads than it is wide: the race
    check on the simulator (OBSERVED) tells them apart, since with && the threads past the last
    column also write the next row's first pixels, which those pixels' own threads write."""
    w, h, past = case.width, case.height, set((run.out.past // 3).tolist())
    if not past or w <= h or not past == case.unguarded(
            through=lambda x, y: (x < w) | (y < h)) == case.unguarded(
            through=lambda x, y: (x < w) & (y < w)):
        return
    if written_by_two(observe(run.kernel, _launch(OBSERVED), key="guard").race):
        yield ("the guard stops only the threads outside in both x and y (&&): those outside in "
               "one of them wrote past the end of out, and (the race check on the simulator "
               "shows) into the next row's first pixels", "a thread outside in either must "
               "return (||): " + GUARD_HINT)
    yield ("the guard compares y with width: threads below the image wrote past the end of out",
           "x goes with width, y with height: " + GUARD_HINT)


def written_mistakes(out, case, words, wild_hint, guard_hint):
    """The mistakes of where a sepia kernel wrote, from its output's ``common.Result`` (two
    launches, two poisons), in the words of CUDA's exercise or OpenCL's port."""
    unwritten = out.unwritten
    yield from one_further("out", "byte", out.past, unwritten, "pixel i's R', G', B' are bytes "
                           "3*i, 3*i + 1 and 3*i + 2 of out: out[3*i] = ..., not out[3*i + 1]")
    # A byte left unwritten is a poison in both runs, whatever other threads race to write:
    # on a GPU, a store into the next pixel's byte also makes the runs differ, a consequence.
    if (unwritten.any(axis=2) != unwritten.all(axis=2)).any():
        missing = [name for name, count in zip(CHANNEL_NAMES, unwritten.sum(axis=(0, 1))) if count]
        yield ("some pixels have only some of their three bytes written "
               f"({', '.join(missing)} missing in places)",
               "a pixel takes 3 bytes of out: write out[3*i], out[3*i + 1] and out[3*i + 2], "
               "with i = y * width + x the pixel's index (not the byte's)")
    if out.differs:
        yield ("two runs of the kernel on the same image wrote different values",
               "each output byte must depend only on its own pixel's input: "
               "read rgb[3*i ...], write out[3*i ...] for the same i")
    yield from past_the_end(out.past // 3, case, words, wild_hint)
    yield from coverage((), unwritten.all(axis=2), case, words, guard_hint)


def _wrong_values(rgb, got, block=None, models=(), first_pixel=0):
    """The mistakes the values show, once every byte of out was written (none when right);
    ``block``, for the near misses (``helpers.exercises.near``): the values as one run, in blocks
    of (size, word), where the rows of the image are the default; ``models``, the mistakes an
    exercise's own models of wrong kernels find, before the generic verdict; ``first_pixel``,
    the pixel of out where ``got`` starts."""
    exact, want = rgb @ SEPIA.T, reference(rgb)
    wrong = _differs(got, want, exact)
    if not wrong.any():
        return
    wy, wx, wc = np.argwhere(wrong)[0]
    at = f"x = {wx}, y = {wy}, {CHANNEL_NAMES[wc]}"
    if (wrong <= (exact + 0.5 >= 256)).all():
        yield (f"{int(wrong.sum())} values are wrong, all where the sum goes past 255 "
               f"({at}: got {got[wy, wx, wc]}, expected {want[wy, wx, wc]}, the unclamped sum "
               f"is {exact[wy, wx, wc]:.1f})",
               "clamp before converting: a float above 255 turned into unsigned char wraps "
               "around (300 becomes 44). Use fminf(value + 0.5f, 255.0f)")
    if not _differs(got, reference(rgb, half=0.0), exact, boundary=0.0).any():
        yield (f"{int(wrong.sum())} values are one below NumPy's, each where the sum's fraction "
               f"is .5 or more ({at}: the sum is {exact[wy, wx, wc]:.3f}, got "
               f"{got[wy, wx, wc]}): the kernel truncates instead of rounding (no + 0.5f, or "
               "the fraction already lost before it)",
               "converting a float to unsigned char drops the fraction, and so does an integer "
               "division (an int / 1000 is an int): keep the sum a float (0.393f * r + ...), "
               "then (unsigned char)fminf(value + 0.5f, 255.0f)")
    if _larger_kept(exact, got):
        yield (f"{int(wrong.sum())} of {got.size} values are wrong, every value below 255 "
               "turned into 255: fmaxf keeps the larger of its two arguments",
               "clamp with fminf(value + 0.5f, 255.0f), which keeps the smaller")
    wrapped = _differs(got, (np.floor(exact) % 256).astype(np.uint8), exact, boundary=0.0)
    for c in np.flatnonzero(wrong.any(axis=(0, 1)) & ~wrapped.any(axis=(0, 1)))[:1]:
        yield (f"the {CHANNEL_NAMES[c]} values lost their fraction, and those past 255 wrapped "
               f"around: the {CHANNEL_NAMES[c]} sum was kept in an unsigned char",
               "keep each sum a float (float r2 = ...), then round and clamp it as you store it: "
               "(unsigned char)fminf(r2 + 0.5f, 255.0f)")
    yield from copied_channel(rgb, got, exact)
    yield from mixed_up(rgb, got, LAYOUT_HINT)
    shape = (-1,) if block else (got.shape[0], -1)
    yield from near_miss.misses("out", got.reshape(shape), want.reshape(shape), block=block,
                           close=lambda a, b: np.abs(a - b) <= 1, index_hint=LAYOUT_HINT)
    yield from one_channel(rgb, got, exact)
    yield from models
    if not _differs(got, reference(rgb, half=1.0), exact, boundary=0.0).any():
        yield (f"{int(wrong.sum())} values are one above NumPy's, each where the sum's fraction "
               f"is below .5 ({at}: the sum is {exact[wy, wx, wc]:.3f}, got {got[wy, wx, wc]}): "
               "ceilf rounds every fraction up", "round to the nearest level with + 0.5f as you "
               "clamp: (unsigned char)fminf(value + 0.5f, 255.0f)")
    yield Wrong(f"{int(wrong.sum())} of {got.size} values are wrong (the first is {at}: got "
                f"{got[wy, wx, wc]}, expected {want[wy, wx, wc]})",
                LAYOUT_HINT + "; round with + 0.5f and clamp to 255", "out",
                3 * first_pixel + np.ravel_multi_index((wy, wx, wc), got.shape))


def copied_channel(rgb, got, exact):
    """One channel's bytes holding another channel's results (to a level), the other two right:
    the byte stored from another channel's sum (out[3*i + 1] from r2), or its sum computed with
    that channel's weights."""
    want = reference(rgb)
    right = ~_differs(got, want, exact)
    for c, d in itertools.permutations(range(3), 2):
        if np.delete(right, c, axis=2).all() and not right[..., c].all() and not _differs(
                got[..., c], want[..., d], exact[..., d]).any():
            y, x = np.argwhere(~right[..., c])[0]
            name, other = CHANNEL_NAMES[c], CHANNEL_NAMES[d]
            weights = " + ".join(f"{w}f * {v}" for w, v in zip(SEPIA[c], "rgb"))
            yield (f"the {name} bytes hold the {other} results, the other channels right (x = "
                   f"{x}, y = {y}: {name} {got[y, x, c]}, its {other} value, where its {name} "
                   f"value is {want[y, x, c]}): the {name} byte was stored from the {other} sum "
                   f"({'rgb'[d]}2 where {'rgb'[c]}2 belongs), or the {name} sum was computed with "
                   f"the {other} weights", f"each byte stores its own channel's sum: "
                   f"out[3*i{f' + {c}' if c else ''}] = (unsigned char)fminf({'rgb'[c]}2 + 0.5f, "
                   f"255.0f), with {'rgb'[c]}2 = {weights}")
            return


def one_channel(rgb, got, exact):
    """A single channel rounded or clamped another way, the other two right: a half of 1.5 or
    -0.5 (or 0: the sum truncated, kept in an int), or fmaxf for fminf."""
    want = reference(rgb)
    right = ~_differs(got, want, exact)
    for c in np.flatnonzero(~right.all(axis=(0, 1))):
        if not np.delete(right, c, axis=2).all():
            return
        name, x, mine = CHANNEL_NAMES[c], exact[..., c], got[..., c]
        for half, seen, mistake in (
                (1.5, "one above NumPy's", "rounded with + 1.5f"),
                (-0.5, "one below NumPy's", "rounded with - 0.5f"),
                (0.0, "one below NumPy's where the sum's fraction is .5 or more",
                 "truncated: kept in an int, or converted before + 0.5f")):
            model = np.clip(np.trunc(np.minimum(x + half, 255)), 0, 255).astype(np.uint8)
            if not _differs(mine, model, x, boundary=half % 1).any():
                yield (f"the {name} values are {seen}, the other channels right: the {name} "
                       f"sum was {mistake}",
                       f"keep the {name} sum a float, and round it with + 0.5f as you clamp it: "
                       f"out[3*i{f' + {c}' if c else ''}] = (unsigned char)fminf({'rgb'[c]}2 + 0.5f, 255.0f)")
        if _larger_kept(x, mine):
            yield (f"every {name} value below 255 turned into 255, the other channels right: "
                   f"the {name} value was clamped with fmaxf, which keeps the larger of its two "
                   "arguments", f"clamp it with fminf({'rgb'[c]}2 + 0.5f, 255.0f), which keeps "
                   "the smaller")


def _larger_kept(exact, got) -> bool:
    """Whether ``got`` is fmaxf(sum + 0.5f, 255.0f) converted: 255 where the sum is below 255.5,
    and above, a float past 255 converted (255 on a GPU, wrapped around on the simulator)."""
    wrapped = np.floor(np.maximum(exact + 0.5, 255)) % 256
    return bool(((got == 255) | (np.abs(got - wrapped) <= 1)).all())


def _other_weights(rgb, got, layout_hint):
    """A kernel whose channels are other weighted sums of r, g and b (a weight mistyped, a
    channel computed from another's result): the weights least squares finds where no channel
    is clamped, named where they explain every such pixel to a level."""
    x, y = rgb.reshape(-1, 3).astype(np.float64), got.reshape(-1, 3).astype(np.float64)
    keep = (y < 255).all(axis=1)
    if keep.sum() < 12:
        return
    weights = np.linalg.lstsq(x[keep], y[keep], rcond=None)[0].T
    if np.abs(x[keep] @ weights.T - y[keep]).max() > 1.5:
        return
    for c, (row, want) in enumerate(zip(weights, SEPIA)):
        if not np.allclose(row, want, atol=0.005):
            yield (f"the {CHANNEL_NAMES[c]} output is {row[0]:.3f} r + {row[1]:.3f} g + "
                   f"{row[2]:.3f} b, where the matrix has {want[0]} r + {want[1]} g + "
                   f"{want[2]} b", "each output channel comes from the input's r, g and b: "
                   + layout_hint)
            return


def _differs(got, want, exact, boundary=0.5):
    """Where ``got`` is not ``want``: exactly, except within ROUNDING_SLACK of the fraction where
    ``want`` steps to the next level (.5 when rounding, 0 when truncating)."""
    diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
    near_step = np.abs(exact - boundary - np.round(exact - boundary)) < ROUNDING_SLACK
    return np.where(near_step, diff > 1, diff > 0)


def mixed_up(rgb, got, layout_hint):
    """The kernels that mix up channels whose output ``got`` is, to a level (``near``): bytes read
    or stored in another order, the matrix transposed, pixel i read from byte i, other weights."""
    straight, models = (0, 1, 2), []
    for pin, pout in itertools.product(itertools.permutations(straight), repeat=2):
        model = np.empty(rgb.shape, np.uint8)
        model[..., list(pout)] = reference(rgb[..., list(pin)])
        parts = [part for part, order in (
            ("reads the input bytes as " + "".join("RGB"[c] for c in pin), pin),
            ("stores R', G', B' at bytes " + ", ".join(f"3*i + {c}" for c in pout), pout))
            if order != straight]
        models.append((model, "the result is what a kernel gives that " + " and ".join(parts)))
    models.append((reference(rgb, SEPIA), "the result is what the matrix's columns used as its "
                   "rows give"))
    yield from matches(got, [(m, problem, "channels mixed up: " + layout_hint)
                             for m, problem in models[1:]], near)
    flat = np.concatenate([rgb.ravel(), np.full(3, JUNK, np.uint8)])
    for first, step, problem in _reads(*rgb.shape[:2]):
        if near(got, reference(flat[first[..., None] + step * np.arange(3)])):
            yield problem, layout_hint
    yield from _in_place(rgb, got)
    yield from _other_weights(rgb, got, layout_hint)


def _in_place(rgb, got):
    """The channels overwritten in place, one after another (r = ...; g = ...; b = ...): each
    later channel's sum takes the earlier channels' results (unrounded floats) where the input's
    belong; in any order of the three."""
    for order in itertools.permutations(range(3)):
        v = rgb.astype(np.float64)
        for c in order:
            v[..., c] = v @ SEPIA[c]
        if near(got, np.minimum(np.floor(v + 0.5), 255).astype(np.uint8)):
            first, second, third = ("rgb"[c] for c in order)
            yield (f"the channels were overwritten in place: {first} took its sepia value "
                   f"({first} = {SEPIA[order[0]][0]}f * r + ...) before {second} and {third} were "
                   f"computed from it, and {second} before {third}, so they used the new "
                   f"{first} (and {second}) where the input's belong",
                   "keep the input's r, g and b as they are, and put each result in a variable "
                   "of its own: float r2 = 0.393f * r + 0.769f * g + 0.189f * b; float g2 = "
                   "...; float b2 = ...; then store r2, g2 and b2")
            return


def _reads(height, width):
    """(the byte each pixel's red was read from, the step to its green and blue, problem) of
    the kernels that read the input at another place."""
    y, x = np.indices((height, width))
    i = y * width + x
    yield (i, 1, "pixel i was read from bytes i, i + 1 and i + 2: the pixel's index, where its "
           "first byte is 3*i")
    yield (3 * y * width + x, 1, "pixel (x, y) was read from byte 3*y*width + x on: x was not "
           "multiplied by 3, the pixel's first byte is 3*(y*width + x)")
    yield (3 * i + 1, 1, "pixel i was read from bytes 3*i + 1 to 3*i + 3, one byte on: its red "
           "is byte 3*i")
    yield (i, height * width, "the input was read as planar, rgb[i], rgb[i + width*height], "
           "rgb[i + 2*width*height] (all the reds, then all the greens...), but it is "
           "interleaved: r, g, b of a pixel side by side")


def near(got, model) -> bool:
    """Whether the bytes ``got`` are ``model``'s to a level."""
    return bool((np.abs(got.astype(np.int16) - model.astype(np.int16)) <= 1).all())


EXERCISE = KernelExercise(
    stub="exercises/sepia.cu", kernel="sepia",
    signature="const unsigned char *rgb, unsigned char *out, int width, int height",
    cases=[*CASES, OBSERVED], draw=draw, launch=_launch, mistakes=_mistakes,
    where=lambda c: c.where(), refine=_refine,
    crash_hint="a thread went outside the image: " + WILD_HINT,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success="every pixel matches NumPy's sepia, rounded and clamped, for every size tried "
            f"({len(CASES)} images with odd sides, two block shapes), "
            "nothing written outside the image, each pixel by one thread")

check_sepia = EXERCISE.check_file          # (path="exercises/sepia.cu")
check_sepia_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
