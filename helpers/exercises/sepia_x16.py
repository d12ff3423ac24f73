"""Checker for the second exercise of notebook 04: ``cuda_src/exercises/sepia_x16.cu``.

``sepia_x16(rgb, out, n)`` is ``helpers.exercises.sepia``'s kernel on a flat image, 16 pixels a
thread: thread t loads pixels 16t to 16t + 15 as three ``uint4`` and stores three; the thread
t == n / 16 does the last n % 16 pixels one by one, the spare threads after it nothing.
"""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import sepia, sepia_x16_models, sepia_x16_tail, sepia_x16_uint4s, speed
from helpers.exercises.common import Input, Output, launch_catching
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Kernels, Launch
from helpers.exercises.microscope import traced
from helpers.exercises.verdict import Verdict, matches, not_yet
from helpers.workload import share

BLOCK = 256
CASES = [(1961, BLOCK), (8000, 64), (7, 32), (16 * 700 + 15, 128), (16 * 63 + 5, 32)]
"""(n pixels, threads a block): a tail of 9; none; a tail alone; a tail of 15, many blocks; a
tail whose thread t == n / 16 is the grid's last (no spare thread after it)."""
TARGET = 0.5
"""The fraction of a copy's bandwidth FAST takes on a GPU. The course's solution reached 62% of
it on an H200, alone on the device (67% in another run); notebook 04's rgb_to_gray_x16, which
stores one byte a pixel instead of three, 98%, and its one-pixel-a-thread rgb_to_gray 32%."""
MIN_BYTES_A_LANE = 4
"""What FAST takes on the simulator: bytes a thread's load or store carries, on average (a uint4
16, a byte 1). Notebook 04 measured on an H200: byte loads 33% of the copy, 4-byte words 86%."""
BIG_PIXELS = share(1 << 26, minimum=1 << 24)
"""The pixels of the timed image: 64 Mi for one learner (192 MiB of RGB in, as much out), far
larger than a GPU's L2 cache; a class sharing the GPU takes its share, never below 16 Mi."""
SAMPLE = 1 << 16
"""Pixels compared with NumPy at each end of the timed image (its start, and its end, where an
index that overflows or depends on the grid's size shows)."""
WORDS = 12  # a group's 48 bytes as 32-bit words: w[0] to w[11]
SPARE = 48 * 1024  # bytes of junk after the input image: reads past its end land there

BYTE_HINT = ("byte k of the words w[0], w[1], ... is (w[k >> 2] >> (8 * (k & 3))) & 0xFF, the "
             "lowest 8 bits first (byte_of and set_byte in the stub do that): pixel p's red, "
             "green and blue are bytes 3p, 3p + 1, 3p + 2")
WORD_HINT = ("load and store whole uint4 (three of each a thread), not bytes: a warp's 16-byte "
             "loads carry 16 times what its byte loads do; and keep the 16 pixels' bytes in "
             "registers (#pragma unroll, so that every index into w[] is a constant)")


def _draw(rng):
    """The grader's cases: a tail after several blocks' groups, and a tail alone."""
    many, alone = (pick(rng, [block for _, block in CASES]) for _ in range(2))
    return [(awkward(rng, 16, 16 * many + 1, 16 * many * 12), many),
            (int(rng.integers(1, 16)), alone)]


def _blocks(n, block):  # enough for n / 16 + 1 threads
    return -(-(n // 16 + 1) // block)


def _launch_on(kernel, rgb_gpu, out_gpu, n):
    return launch_catching(lambda: kernel(rgb_gpu, out_gpu, np.int32(n), block=(BLOCK, 1, 1),
                                          grid=(_blocks(n, BLOCK), 1)))


def _launch(case):
    n, block = case
    rgb = np.random.default_rng(n).integers(0, 256, (n, 3), dtype=np.uint8)
    return Launch((Input(rgb, SPARE, sepia.JUNK),
                   Output((n, 3), np.uint8, 48 * _blocks(*case) * block, poisons=sepia.POISONS),
                   np.int32(n)), block=(block, 1, 1), grid=(_blocks(*case), 1), model=rgb)


def _mistakes(case, run):
    (n, _), rgb, got = case, run.model, run.out.got
    groups = n // 16   # (first: where those stores overlap, a GPU's two runs differ)
    if groups > 1 and np.array_equal(run.out.unwritten.ravel()[:48 * groups],
                                     np.arange(48 * groups) >= 16 * groups + 32):
        yield ("the groups' results were stored at uint4 number t, not 3t: they overlap, and end "
               f"at byte {16 * groups + 32} of the {48 * groups} the groups fill",
               "16 pixels are 48 bytes, three uint4: store thread t's at numbers 3t, 3t + 1 and "
               "3t + 2 of (uint4 *)out")
    if run.out.differs:
        yield ("two runs of the kernel on the same image wrote different values",
               "each output byte must depend only on its own pixel's input")
    yield from sepia_x16_tail.past_the_end(run.out.past, n, lambda pixels: _past_with(run, pixels))
    yield from sepia_x16_tail.tail_from_its_start(run, n)
    yield from sepia_x16_tail.no_block_offset(run.out.unwritten, *case)
    yield from sepia_x16_tail.unwritten(run, n)
    yield from sepia_x16_tail.groups_as_loaded(rgb, got, n)
    yield from sepia_x16_models.unmasked(rgb, got, n)
    yield from sepia_x16_models.shifted_left(rgb, got, n)
    yield from sepia_x16_models.res_not_zeroed(rgb, got, n)
    yield from sepia_x16_models.unclamped(rgb, got, n)
    yield from _wrong_groups(rgb, got, n)
    yield from sepia_x16_tail.pixels_left_out(rgb, got, n)
    yield from sepia_x16_uint4s.uint4s_out_of_order(rgb, got, n)
    yield from sepia_x16_uint4s.uint4s_repeated(rgb, got, n)
    yield from sepia_x16_uint4s.stores_out_of_order(rgb, got, n)
    yield from sepia_x16_models.mistakes(rgb, got, n, sepia.JUNK)
    yield from _word_k_over_3(rgb, got, n)
    yield from sepia_x16_tail.copied_in_the_loop(rgb, got, n)
    whole = 16 * (n // 16)      # the groups and the tail, each on its own: a mistake in one only
    for part, block, models in ((slice(0, whole), (48, "group"), _group_models(rgb, got, n)),
                                (slice(whole, n), None, ())):
        yield from sepia._wrong_values(rgb[None, part], got[None, part], block, models,
                                       part.start)


def _past_with(run, n):
    """The bytes past out's end that ``run``'s kernel writes in a launch of n pixels with its
    block, on the same backend; None where that launch went wrong in another way."""
    launched = EXERCISE.run(run.kernel, _launch((n, run.launch.block[0])))
    try:
        next(launched)
        return None
    except StopIteration as stop:
        return None if stop.value is None else stop.value.out.past


def _wrong_groups(rgb, got, n):
    """Kernels whose whole groups are wrong in a known way (``models``), on those groups alone."""
    whole = 48 * (n // 16)
    if not whole:
        return
    flip = lambda a: a.reshape(-1, 4)[:, ::-1].ravel()  # noqa: E731 - bytes of each word reversed
    tone = lambda a: sepia.reference(a.reshape(1, -1, 3)).ravel()  # noqa: E731
    flat, k = rgb.ravel()[:whole], np.arange(whole)   # group t's loads stay within 16t + 48
    starts, byte = np.arange(n // 16)[:, None], np.arange(48)
    wrong_stride = flat[16 * starts + byte].ravel()
    planar = flat.reshape(-1, 3, 16).transpose(0, 2, 1).ravel()  # pixel p: bytes p, p + 16...
    gives = "the result is what a kernel gives that {}"
    reverse = gives.format("{} the 4 bytes of each 32-bit word in reverse order")
    words = flat.view("<u4")                        # the loads' words, little-endian
    bits_shift = ((words[k >> 2] >> (k & 3)) & 0xFF).astype(np.uint8)
    last_byte_only = np.where(k % 4 == 3, tone(flat), 0).astype(np.uint8)
    bits_set = np.bitwise_or.reduce((tone(flat).astype("<u4") << (k & 3).astype("<u4"))
                                    .reshape(-1, 4), axis=1).view(np.uint8)   # 1 bit apart
    models = [(tone(bits_shift), "the result is what a kernel gives whose byte_of shifts by k & "
               "3 bits, not 8 * (k & 3)", BYTE_HINT),
              (bits_set, "the result is what a kernel gives whose set_byte shifts by k & 3 bits, "
               "not 8 * (k & 3): each word's 4 results were ORed in 1 bit apart, one on top of "
               "another in its lowest bits, where they belong 8 bits (a byte) apart", "set_byte "
               "places its value at byte k & 3 of the word, 8 bits a byte: w[k >> 2] |= value << "
               "(8 * (k & 3))"),
              (last_byte_only, "only byte 3 of each result word holds its value: set_byte assigns "
               "the word (=) where it ORs the byte in (|=), so each byte wipes those before it", "in "
               "set_byte, OR the byte into its word: w[k >> 2] |= value << (8 * (k & 3));"),
              (tone(flip(flat)), reverse.format("reads"), BYTE_HINT),
              (flip(tone(flat)), reverse.format("stores"), BYTE_HINT),
              (flip(tone(flip(flat))), reverse.format("reads and stores"), BYTE_HINT),
              (tone(wrong_stride), gives.format("loads thread t's pixels from uint4 number t "
                                                "instead of 3t"),
               "16 pixels are 48 bytes, three uint4: thread t's are numbers 3t, 3t + 1 and "
               "3t + 2 of (const uint4 *)rgb, and the same in out"),
              (tone(flat[3 * starts + byte].ravel()), gives.format(
                  "loads thread t's 48 bytes from byte 3t of rgb, not 48t: (const uint4 *)(rgb "
                  "+ 3 * t) adds 3t bytes, then casts"),
               "cast first, then add: (const uint4 *)rgb + 3 * t moves 3t uint4 of 16 bytes, "
               "to byte 48t, where thread t's 16 pixels start"),
              (tone(planar), "pixel p of a group was read from its bytes p, p + 16 and p + 32 "
               "(as if the 48 bytes held 16 reds, then 16 greens, then 16 blues), but they are "
               "interleaved: r, g, b of a pixel side by side", BYTE_HINT)]
    yield from matches(got.ravel()[:whole], models, sepia.near)


PIXELS = np.arange(16)[:, None]
READ = STORE = 3 * PIXELS + np.arange(3)  # pixel p's byte for channel c in the group's 48
WORD_NAMES = [f"{v}.{f}" for v in "abc" for f in "xyzw"]
CHANNEL_HINT = "pixel p's red, green and blue are bytes 3p, 3p + 1 and 3p + 2 of its group's 48"


def _group(loaded, words=range(WORDS), read=READ, store=STORE, pixels=range(16)):
    """(result bytes, known) of the groups (g, 48) of a kernel whose w[] holds the loaded words
    ``words``, whose pixel p's channel c is read from byte read[p, c] and its result ORed into
    byte store[p, c] (one outside 0 to 47: read unknown, stored nowhere), for p in ``pixels``."""
    w = loaded.reshape(len(loaded), WORDS, 4)[:, list(words)].reshape(len(loaded), 48)
    ok = ((read >= 0) & (read < 48)).all(axis=1)
    tone = sepia.reference(w[:, np.clip(read, 0, 47)])
    res, known = np.zeros_like(w), np.ones(w.shape, bool)
    for p, c in itertools.product(pixels, range(3)):
        if 0 <= store[p, c] < 48:
            res[:, store[p, c]] |= tone[:, p, c]
            known[:, store[p, c]] &= ok[p]
    return res, known


def _form(a, e, p="p"):
    """a * p + e as the verdicts write it: 3p + 1, p - 2 (with p = " * p": 3 * p + 1)."""
    return f"{a if a > 1 else ''}{p if a > 1 else p.lstrip(' *')}" + (
        f" {'+-'[e < 0]} {abs(e)}" if e else "")


def _word_k_over_3(rgb, got, n):
    """byte_of's word w[k / 3], not w[k >> 2]: the groups' bytes of pixels 0 to 11 (12 to 15
    read past w[]'s 12 words, whatever a GPU holds there)."""
    groups = rgb.ravel()[:48 * (n // 16)].reshape(-1, 48)
    res, known = _group(groups, read=4 * (READ // 3) + (READ & 3))
    if len(groups) and sepia.near(got.ravel()[:groups.size].reshape(-1, 48)[known], res[known]):
        yield ("byte_of took byte k from word w[k / 3], not w[k >> 2]: a 32-bit word holds 4 "
               "bytes, not a pixel's 3, so pixel 1's red, byte 3 of its group, was read from "
               "w[1] where it lies in w[0], and pixels 12 to 15 read w[12] to w[15], past w[]'s "
               "12 words", "byte k is in word k / 4, at bits 8 * (k % 4): return (w[k >> 2] >> "
               "(8 * (k & 3))) & 0xFFu;")


def _group_models(rgb, got, n):
    """The mistakes whose model (``_group``) gives the groups' bytes ``got``, to a level, in
    every byte such a kernel computes (three in four at least)."""
    whole = 48 * (n // 16)
    if not whole:
        return
    flat = np.concatenate([rgb.ravel(), np.full(64 * (n // 16) + 64, sepia.JUNK, np.uint8)])
    mine, starts = got.ravel()[:whole].reshape(-1, 48), np.arange(n // 16)[:, None]
    for model, problem, hint in _group_kinds(flat[:whole].reshape(-1, 48), flat, starts):
        res, known = model
        if known.mean() >= 0.75 and sepia.near(mine[known], res[known]):
            yield problem, hint
            return


def _offsets():
    """(channels, a, e) of the wrong byte offsets in a group: one channel c's at a * p + e, or
    the three channels' at a * p + e + c (a pixel taken as 4 bytes, or 1; one byte off)."""
    for c, a, e in itertools.product(range(3), range(1, 5), range(-3, 6)):
        if (a, e) != (3, c):
            yield [c], a, e
    for a, e in itertools.product(range(1, 5), (-1, 0, 1)):
        if (a, e) != (3, 0):
            yield [0, 1, 2], a, e


def _group_kinds(loaded, flat, starts):
    """(model, problem, hint) of the kernels with one thing wrong in a group's loads, words,
    reads, pixel loop or stores, lazily."""
    for a, b in itertools.product(range(1, 5), range(4)):
        if (a, b) not in ((3, 0), (1, 0)):
            yield (_group(flat[16 * (a * starts + b) + np.arange(48)]), f"thread t loaded its "
                   f"three uint4 from number {_form(a, b, 't')} on, where its 48 bytes start at "
                   "uint4 3t", "16 pixels are 48 bytes, three uint4: const uint4 *src = "
                   "reinterpret_cast<const uint4 *>(rgb) + 3 * (size_t)t")
    for i, j in itertools.permutations(range(WORDS), 2):
        yield (_group(loaded, [j if k == i else k for k in range(WORDS)]),
               f"w[{i}] holds {WORD_NAMES[j]} where it should hold {WORD_NAMES[i]}",
               "unsigned int w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, ..., c.w}: word k of w[] "
               "is bytes 4k to 4k + 3 of the group")
    for (which, call, key), (cs, a, e) in itertools.product(
            (("read from", "byte_of(w", "read"), ("stored at", "set_byte(res", "store")),
            list(_offsets())):
        changed, many = READ.copy(), len(cs) > 1
        changed[:, cs] = a * PIXELS + e + np.array(cs) * many
        yield (_group(loaded, **{key: changed}), f"pixel p's "
               f"{', '.join(sepia.CHANNEL_NAMES[c] for c in cs)}{' result' * (key == 'store')}"
               f"{'s were' if many else ' was'} {which} byte{'s' * many} "
               f"{', '.join(_form(a, e + c * many) for c in cs)} of its group, where "
               f"{'they are' if many else 'it is'} byte{'s' * many} "
               f"{', '.join(_form(3, c) for c in cs)}", f"{CHANNEL_HINT}: " + "; ".join(
                   f"{call}, {_form(3, c, ' * p')}{', ...' * (key == 'store')})" for c in cs))


def _refine(failure):
    """A negative sepia sum converted to unsigned (channels read as signed chars); a group's word
    past its 12 (bytes counted as words: w[3 * p]); a uint4 access past rgb or out where thread t's uint4 number is k*t (+ 0 to 2), k not 3:
    the pointer moved by k uint4 (48t, 16t: bytes or pixels counted) where it moves by 3t."""
    err = failure.error
    yield from sepia_x16_uint4s.words_converted_from_floats(failure)
    yield from sepia_x16_models.conversion_or_shift(failure)
    if failure.kind == "array bounds" and (err.element or 0) >= WORDS:
        name = err.array or "w"
        yield (f"{name} holds {WORDS} words, not 48 bytes: read byte k with byte_of({name}, k) "
               f"(and set it with set_byte({name}, k, value))")
    t = (err.block[0] * failure.block[0] + err.thread[0]
         if getattr(err, "thread", None) and failure.block else None)
    if failure.kind == "local array overrun" and t:
        yield (f"thread {t} went past w's or res's {WORDS} words where thread 0 did not: the "
               "group's byte index grows with t, but w and res hold only this thread's 48 bytes: "
               "pixel p's red, green and blue are bytes 3p, 3p + 1 and 3p + 2, p = 0 to 15 its "
               "place in the group, not its number in the image, 16t + p")
    if failure.kind in ("return address overwritten", "local array overrun"):
        yield (f"w and res hold {WORDS} words, the 48 bytes of one group's 16 pixels: the pixel "
               "loop stops at 16, for (int p = 0; p < 16; p++), and pixel p's bytes are 3p to "
               "3p + 2, with p its place in the group, 0 to 15, not its number in the image "
               "(16t + p)")
    if failure.kind == "misaligned address" and failure.block and err.offset is not None:
        yield sepia_x16_models.misaligned_hint(err, failure.block)
    if failure.kind != "out of bounds" or not failure.block or err.offset is None:
        return
    t = err.block[0] * failure.block[0] + err.thread[0]
    word = err.offset // 16
    k = word // t if t else 0
    if k > 3 and word - k * t <= 2:
        yield (f"thread {t} {'wrote' if err.is_write else 'read'} uint4 number {word} = {k} * "
               f"{t} + {word - k * t}: (uint4 *)p + k moves k uint4 of 16 bytes, not k bytes or "
               "pixels: thread t's words start at 3t (its 48 bytes are uint4 3t, 3t + 1, 3t + 2)")


def large_image_problem(kernel, rgb, rgb_gpu, out_gpu):
    """What is wrong with the kernel's result on the large image ``rgb`` (flat, already in
    ``rgb_gpu``), or None: its first and last SAMPLE pixels compared with NumPy's, with the
    small cases' rounding slack (among 65,536 random pixels a few dozen sums are exactly .5, and
    the float weights round some of them down)."""
    n = rgb.size // 3
    error = _launch_on(kernel, rgb_gpu, out_gpu, n)
    if error:
        return f"on a large image ({n:,} pixels) the kernel failed: {error}"
    out = out_gpu.get()
    for first in sorted({0, max(n - SAMPLE, 0)}):
        part = slice(3 * first, 3 * min(first + SAMPLE, n))
        pixels = rgb[part].reshape(1, -1, 3)
        wrong = sepia._differs(out[part].reshape(1, -1, 3), sepia.reference(pixels),
                               pixels @ sepia.SEPIA.T)
        if wrong.any():
            bad = int(np.argwhere(wrong)[0][1]) + first
            return (f"on a large image ({n:,} pixels) the kernel gave wrong values (the first "
                    f"at pixel {bad:,}, of thread {bad // 16:,})")
    return None


def _big_image():
    """BIG_PIXELS random pixels (flat) on the host and on the GPU, and an output on the GPU."""
    from helpers.backend import gpuarray

    rgb = np.random.default_rng(1).integers(0, 256, 3 * BIG_PIXELS, dtype=np.uint8)
    return rgb, gpuarray.to_gpu(rgb), gpuarray.empty(3 * BIG_PIXELS, np.uint8)


def _large_image(kernel, cases_passed: Verdict) -> Verdict:
    """On a GPU, the kernel on BIG_PIXELS, once the cases passed; on the simulator, a race of
    the tail's thread with a group's named."""
    if not speed.on_gpu():   # (a NOT YET is falsy: not `or`)
        named = _tail_race(kernel)
        return cases_passed if named is None else named
    problem = large_image_problem(kernel, *_big_image())
    return not_yet(problem, "the small cases passed: look for an index that overflows or "
                   "depends on the grid's size") if problem else cases_passed


def _tail_race(kernel):
    """A not_yet for a tail loop that starts inside the groups, or run by the spare threads too
    (other races: ``_fast``)."""
    from helpers.backend import drv
    try:
        traced(Kernels(kernel, kernel), _launch(CASES[0]))
    except drv.Error as err:
        named = sepia_x16_tail.tail_race(err, CASES[0][0]) or \
            sepia_x16_tail.tail_by_spare_threads(err, *CASES[0])
        return not_yet(*named) if named else None
    return None


def _fast(kernel):
    """What keeps a right kernel from FAST: on a GPU its bandwidth on BIG_PIXELS; on the
    simulator a race in the first case, and the bytes its loads and stores carry in the second."""
    if speed.on_gpu():
        (_, rgb_gpu, out_gpu), n = _big_image(), BIG_PIXELS
        return (yield from speed.bandwidth(
            lambda: _launch_on(kernel, rgb_gpu, out_gpu, n), 6 * n, TARGET, WORD_HINT,
            f"3 bytes read and 3 written a pixel, on {n:,} pixels"))
    traced(Kernels(kernel, kernel), _launch(CASES[0]))  # a tail, spare threads: races raise
    stats = traced(Kernels(kernel, kernel), _launch(CASES[1]))
    loads, stores = (c.bytes / max(c.lanes, 1) for c in (stats.global_ld, stats.global_st))
    if min(loads, stores) < MIN_BYTES_A_LANE:
        yield (f"on the simulator your loads carry {loads:.1f} bytes a thread and your stores "
               f"{stores:.1f}, where uint4 carries 16", WORD_HINT)
    return (f"on the simulator your loads carried {loads:.1f} bytes a thread and your stores "
            f"{stores:.1f}")


EXERCISE = KernelExercise(
    stub="exercises/sepia_x16.cu", kernel="sepia_x16",
    signature="const unsigned char *rgb, unsigned char *out, int n",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes,
    where=lambda case: (f"n = {case[0]} pixels, block = ({case[1]}, 1, 1), grid = "
                        f"({_blocks(*case)}, 1)"),
    after=_large_image, fast=_fast, refine=_refine,
    crash_hint="a thread read or wrote outside the image: only threads t < n / 16 load and "
               "store whole groups (3t to 3t + 2 in uint4), the thread t == n / 16 does the "
               "tail, and the others nothing",
    success=f"every pixel matches NumPy's sepia for every size tried ({len(CASES)} images, tails "
            "of 0 to 15 pixels, spare threads), and nothing was written outside the image")

check_sepia_x16 = EXERCISE.check_file          # (path="exercises/sepia_x16.cu")
check_sepia_x16_kernel = EXERCISE.check_kernel  # (kernel): the same on a compiled kernel
