"""``sepia_x16``'s tail at the wrong pixels (``helpers.exercises.sepia_x16``): stores past the end
of out, a tail counted from its own start, from what the tail's thread stored on the simulator,
a tail loop that starts inside the groups (``tail_race``, from the simulator's race), and a tail
run by the spare threads too (``tail_by_spare_threads``, from the same race check); the
groups set apart from the tail: stored as they were loaded (``groups_as_loaded``); and the
pixels never written (``unwritten``), the groups' among them stored into rgb
(``stored_into_the_input``); and the pixel loop over only some of a group's pixels
(``pixels_left_out``); and one channel of the groups holding another's results, the tail right
(``copied_in_the_loop``)."""

from __future__ import annotations

import numpy as np

from helpers.backend import BACKEND
from helpers.exercises import sepia
from helpers.exercises.kernel import Kernels
from helpers.exercises.microscope import accesses_of
from helpers.exercises.sepia_models import copied


def tail_from_its_start(run, n):
    """The tail's pixels counted from the tail's start (sepia_pixel given 0 to n % 16 - 1, not
    16 * groups to n - 1): the tail is never written, and the tail's thread t == n / 16 stores
    the image's first n % 16 pixels, over group 0's (the same values: a GPU shows only the
    unwritten tail). Named from the bytes of out that thread stored in a trace on the simulator."""
    groups, tail = n // 16, n % 16
    pixels = run.out.unwritten.all(axis=1)
    if not groups or not tail or not np.array_equal(pixels, np.arange(n) >= 16 * groups):
        return
    if BACKEND != "simulator":   # sepia_x16 has no simulated twin on a GPU: the hint alone
        return
    block = run.launch.block[0]
    kept = accesses_of(Kernels(run.kernel, run.kernel), run.launch, "the tail's stores",
                       6 * 16 * (groups + 1) + 64 * tail + 4 * block)
    if kept is None:
        return
    stores = kept[(kept["array"] == "out") & kept["write"]
                  & (kept["block"] * block + kept["thread"] == groups)]
    if sorted(set(stores["index"].tolist())) != list(range(3 * tail)):
        return
    yield (f"the last {tail} pixels (the tail past the last whole group of 16) were never "
           f"written: the tail's thread {groups} (t == n / 16) wrote pixels 0 to {tail - 1}, the "
           f"image's first (group 0's, which thread 0 stores too), not {16 * groups} to {n - 1} "
           f"(n = {n}, groups = {groups}): sepia_pixel was given each pixel's place within the "
           f"tail, 0 to {tail - 1}, where its number in the image belongs", "pass sepia_pixel "
           f"the pixel's number in the image, not its place in the tail: {TAIL_CALL}")


def no_block_offset(unwritten, n, block):
    """t = threadIdx.x, without blockIdx.x * blockDim.x: every block converts block 0's groups
    (the same values, so a GPU's blocks agree), and the groups past them and the tail are never
    written: pixels 0 to 16 * blockDim.x - 1 written, no other (with more groups than threads a
    block, so that the grid has several blocks and the tail's thread is never reached)."""
    groups, pixels = n // 16, unwritten.all(axis=1)
    if groups <= block or not np.array_equal(unwritten.any(axis=1), pixels) or \
            not np.array_equal(pixels, np.arange(n) >= 16 * block):
        return
    blocks = -(-(groups + 1) // block)
    yield (f"only pixels 0 to {16 * block - 1} of the {n} were written, block 0's groups 0 to "
           f"{block - 1} (n = {n}: {groups} groups{f' and a tail of {n % 16}' if n % 16 else ''}, "
           f"{blocks} blocks of {block} threads): every block converted block 0's groups: t took "
           "no block offset (t = threadIdx.x, the thread's place in its block, where its number "
           f"in the grid belongs), so groups {block} to {groups - 1}"
           f"{' and the tail' if n % 16 else ''} got no thread",
           "t = blockIdx.x * blockDim.x + threadIdx.x: block b's threads then take the groups "
           "from b * blockDim.x on, and the thread t == n / 16 does the tail")


def tail_started_late(pixels, n):
    """The tail's loop started k pixels past the tail's first (``i = 16 * groups + 1``): its
    first k pixels, and no other, never written (``pixels``: each pixel's, unwritten), the tail's
    others written."""
    first = 16 * (n // 16)
    late = int(np.argmin(pixels[first:])) if first < n else 0
    if not late or not np.array_equal(pixels, (np.arange(n) >= first) & (np.arange(n) < first + late)):
        return
    which = (f"pixel {first}, the tail's first, was" if late == 1 else
             f"pixels {first} to {first + late - 1}, the tail's first {late}, were")
    yield (f"{which} never written, while the tail's other {n - first - late} were (n = {n}, "
           f"groups = n / 16 = {n // 16}, so the tail is pixels 16 * groups = {first} to "
           f"{n - 1}): the tail's loop starts {late} past 16 * groups", "start the tail's loop at "
           "its first pixel: for (int i = 16 * groups; i < n; i++)")


def past_the_end(past, n, past_with=lambda n: None):
    """The stores past the end of out: the threads after the tail's, or a tail loop too long.
    ``past_with(n)``: the bytes past out's end the same kernel writes with n pixels (None where
    that launch went wrong otherwise): with whole groups alone, none where the groups were
    counted rounded up, (n + 15) / 16, which takes a whole group only where a tail is left."""
    if not past.size:
        return
    groups = n // 16
    if (past >= 48 * (groups + 1)).any():
        yield (f"threads after the last whole group wrote past the end of out (as far as byte "
               f"{int(past.max())}; out has {3 * n})",
               "only the threads t < n / 16 have a whole group of 16 pixels: the grid is rounded "
               "up to whole blocks, so keep the else-if (t == groups) for the tail and let the "
               "threads after it do nothing")
    if n % 16 and past.tolist() == list(range(3 * n, 48 * (groups + 1))):
        whole = 16 * max(groups, 1)
        if (clean := past_with(whole)) is not None and not clean.size:
            yield (f"thread {groups} (t == n / 16) wrote a whole group of 16 pixels where only "
                   f"{n % 16} are left, past the end of out, but with n = {whole}, whole groups "
                   "alone, no thread wrote past it: the uint4 path was taken by the threads "
                   f"t < (n + 15) / 16 = {groups + 1}, the number of groups rounded up as for a "
                   f"grid's size, where n / 16 = {groups} whole groups belong: thread {groups} "
                   "took a whole group, where thread n / 16 converts the last n % 16 pixels "
                   "one at a time", "count whole groups only, groups = n / 16 (the "
                   "int division rounds down), not (n + 15) / 16: the uint4 path is for "
                   "t < groups, and thread groups converts the last n % 16 pixels one by one")
        yield (f"thread {groups} (t == n / 16) wrote a whole group of 16 pixels where only "
               f"{n % 16} are left, past the end of out",
               "the uint4 loads and stores are for t < n / 16 only (t < groups, not <=, with "
               "groups = n / 16 rounded down): thread n / 16 converts the tail one pixel at a "
               "time")
    yield (f"the kernel wrote past the end of out (as far as byte {int(past.max())}; out has "
           f"{3 * n})", "the tail's pixels are 16 * groups to n - 1: stop the loop at n")


def tail_race(err, n):
    """(problem, hint) for a race (``err``, the simulator's) between the tail's thread
    t == n / 16 and a group's thread on a pixel of that group, the tail's first: a tail loop
    that starts at k * groups (k = 1, or 15: the group count where its first pixel belongs),
    not 16 * groups; None for another race."""
    groups = n // 16
    if getattr(err, "kind", None) != "race" or err.array != "out" or err.element is None \
            or not groups:
        return None
    sides = sorted((err.first, err.second), key=lambda a: a.thread[0] != groups)
    pixel, owner = err.element // 3, sides[1].thread[0]
    if (sides[0].thread[0] != groups or owner >= groups or sides[0].line == sides[1].line
            or pixel // 16 != owner or pixel % groups or not 0 < pixel < 16 * groups):
        return None
    k = pixel // groups
    return (f"the tail's thread {groups} (t == n / 16) wrote pixel {pixel} (out[{err.element}]), "
            f"which thread {owner} stores too, in its group of pixels "
            f"{16 * owner} to {16 * owner + 15}: the tail loop starts at i = "
            f"{'k * ' if k > 1 else ''}groups = {pixel}".replace("k * ", f"{k} * ")
            + f", where the tail's first pixel is 16 * groups = {16 * groups} (n = {n}, "
            f"groups = {groups})",
            "the tail is the pixels after the last whole group: start its loop at 16 * groups, "
            "as the stub's tail loop does, for (int i = 16 * groups; i < n; i++)")


def tail_by_spare_threads(err, n, block):
    """(problem, hint) for a race (``err``, the simulator's) on a pixel of the tail between two
    threads past the last whole group, at the same line: the tail's branch taken by the spare
    threads after t == n / 16 too (else if (t >= groups), or a bare else), so each ran the tail
    loop (``block``: the launch's threads a block); None for another race."""
    groups = n // 16
    if getattr(err, "kind", None) != "race" or err.array != "out" or err.element is None:
        return None
    first, second = sorted(a.block[0] * block + a.thread[0] for a in (err.first, err.second))
    pixel = err.element // 3
    if first < groups or err.first.line != err.second.line or \
            not 16 * groups <= pixel < n:
        return None
    which = "first" if pixel == 16 * groups else f"pixel {pixel - 16 * groups + 1}"
    return (f"threads {first} and {second} both ran the tail loop: each wrote pixel {pixel} "
            f"(out[{err.element}]), the tail's {which} (the tail is pixels 16 * groups = "
            f"{16 * groups} to {n - 1}, n = {n}, groups = {groups}): the spare threads after "
            "t == groups took the tail's branch too", "one thread converts the tail: else if "
            "(t == groups), and the threads after it do nothing")


ONE_PIXEL_HINT = ("thread t must convert pixels 16t to 16t + 15: load their 48 bytes as the "
                  "three uint4 at index 3t, 3t + 1 and 3t + 2 of (const uint4 *)rgb, as "
                  "rgb_to_gray_x16 does, and store the 48 results the same way into out")

def unwritten(run, n):
    """The pixels of out never written, by what they tell: none, one a thread, the tail, the
    tail from a late start, a third of each group, the groups stored into rgb."""
    unwritten = run.out.unwritten
    if not unwritten.any():
        return
    groups, index, pixels = n // 16, np.arange(n), unwritten.all(axis=1)
    if unwritten.all() and groups:  # (with none, every pixel is the tail's: see below)
        yield "nothing was written: out still holds its poison", ONE_PIXEL_HINT
    if groups and np.array_equal(pixels, (index >= groups) & (index < 16 * groups)):
        yield (f"only pixels 0 to {groups - 1} of the {16 * groups} in whole groups were "
               "written: each thread converted one pixel (pixel t), not its 16", ONE_PIXEL_HINT)
    if np.array_equal(pixels, index >= 16 * groups):
        yield (f"the last {n - 16 * groups} pixels (the tail past the last whole group of 16) "
               "were never written",
               "the thread t == n / 16 must convert pixels 16 * (n / 16) to n - 1, one by one: "
               + TAIL_CALL)
    yield from tail_started_late(pixels, n)
    flat = unwritten.ravel()[:48 * groups].reshape(max(groups, 1), -1)
    if groups and not flat[:, :16].any() and flat[:, 16:].all():
        yield ("in every group only the first 16 of the 48 result bytes were written",
               "16 pixels give 48 bytes, three uint4: store all three, at index 3t, 3t + 1 and "
               "3t + 2 of (uint4 *)out")
    yield from stored_into_the_input(run, n)
    first = int(np.flatnonzero(unwritten.any(axis=1))[0])
    yield (f"{int(unwritten.sum())} of {3 * n} bytes of out were never written (the first in "
           f"pixel {first}, of thread {min(first // 16, groups)})",
           ONE_PIXEL_HINT + "; and the thread t == n / 16 does the tail")


def groups_as_loaded(rgb, got, n):
    """Every whole group's 48 bytes of out equal to its 48 of rgb: the three uint4 stored hold
    the loaded words (w[], or a, b, c), not the results set_byte put into res[]. Whether the
    tail, which sepia_pixel converts byte by byte, is right is said too."""
    whole = 48 * (n // 16)
    if not whole or not np.array_equal(got.ravel()[:whole], rgb.ravel()[:whole]):
        return
    tail, want = slice(16 * (n // 16), n), sepia.reference(rgb[None])[0]
    right = n % 16 and sepia.near(got[tail], want[tail])
    yield (f"the whole groups' pixels came out unchanged, each equal to its input (pixel 0: rgb = "
           f"out = {tuple(int(v) for v in rgb[0])}, where sepia gives "
           f"{tuple(int(v) for v in want[0])})" + (f", while the tail's {n % 16} pixels, which "
                                                    "sepia_pixel converts, are sepia" if right
                                                    else "") +
           ": the three uint4 stored hold the loaded words, not the results that set_byte put "
           "into res[]", "store the results: dst[0] = make_uint4(res[0], res[1], res[2], "
           "res[3]), dst[1] = make_uint4(res[4], ..., res[7]), dst[2] = make_uint4(res[8], ..., "
           "res[11])")


def copied_in_the_loop(rgb, got, n):
    """The whole groups' bytes of one channel holding another channel's results (``copied``),
    their other channels right, and the tail's pixels (sepia_pixel's) right where there is a
    tail: the 16-pixel loop's set_byte of that channel was given the other's sepia_channel, its
    weights (a line copied from another, its weights left as they were)."""
    whole = 16 * (n // 16)
    groups, tail = rgb[None, :whole], rgb[None, whole:]
    found = copied(groups, got[None, :whole], groups @ sepia.SEPIA.T) if whole else None
    if found is None or sepia._differs(got[None, whole:], sepia.reference(tail),
                                       tail @ sepia.SEPIA.T).any():
        return
    c, d, _, p = found
    (name, other), at = (sepia.CHANNEL_NAMES[k] for k in (c, d)), f"3 * p + {c}" if c else "3 * p"
    weights = [", ".join(f"{w}f" for w in sepia.SEPIA[k]) for k in (c, d)]
    yield (f"in the 16-pixel loop the {name} bytes hold the {other} results" + (
        f", the tail's pixels right (pixels {whole} to {n - 1}, which sepia_pixel converts)"
        if whole < n else "") + f", the other channels right (pixel {p}: {name} {got[p, c]}, its "
        f"{other} value, where its {name} value is {sepia.reference(groups)[0, p, c]}): "
        f"the {name} byte, set_byte(res, {at}, sepia_channel(r, g, bl, ...)), was given the "
        f"{other} result: its sepia_channel takes the {other} weights, {weights[1]}",
        f"{name}'s weights are {weights[0]}, as in sepia_pixel: set_byte(res, {at}, "
        f"sepia_channel(r, g, bl, {weights[0]}));")


TAIL_CALL = "sepia_pixel(rgb, out, i) with i the pixel's number in the image, 16 * groups to n - 1"


def stored_into_the_input(run, n):
    """No byte of the whole groups written into out, where the same launch again, on a fresh copy
    of rgb, leaves each group's 48 bytes of rgb holding their sepia: the groups' stores went
    through a pointer into rgb (dst cast from rgb, the load's line copied, not from out)."""
    from helpers.backend import gpuarray
    from helpers.exercises.common import device_arguments, launch_failure

    groups, launch, rgb = n // 16, run.launch, run.model
    if not groups or not run.out.unwritten.ravel()[:48 * groups].all():
        return
    args = device_arguments(launch.args, gpuarray)
    kernel = getattr(run.kernel, "device", run.kernel)
    if launch_failure(lambda: kernel(*args, block=launch.block, grid=launch.grid)) is not None:
        return
    after, whole = args[0].get()[:3 * n].reshape(n, 3), 16 * groups
    want = sepia.reference(rgb[None])[0]
    if (after[:whole] != rgb[:whole]).any() and sepia.near(after[:whole], want[:whole]):
        yield (f"the results of the {groups} whole groups of 16 pixels were stored into rgb, the "
               f"input, not into out: after the launch rgb's pixels 0 to {whole - 1} hold their "
               f"sepia (pixel 0: {tuple(int(v) for v in after[0])}, its input "
               f"{tuple(int(v) for v in rgb[0])}), and out's were never written: the pointer "
               "the three uint4 are stored through, dst, was cast from rgb",
               "store into out: uint4 *dst = reinterpret_cast<uint4 *>(out) + 3 * (size_t)t; "
               "(a C cast such as (uint4 *)rgb throws rgb's const away; reinterpret_cast "
               "cannot, so the compiler refuses reinterpret_cast<uint4 *>(rgb))")


PIXEL_LOOP = "for (int p = 0; p < 16; p++): a group's pixels are 0 to 15"
LOOP_BOUNDS = {12: (": the pixel loop ran to 12, the number of words in w[] and res[], where a "
                    "group has 16 pixels", PIXEL_LOOP),
               6: (": a loop over the pixels' red bytes k = 0, 3, 6, ... stopped at 16, the "
                   "number of pixels, where a group has 48 bytes", "loop while k < 48 (16 "
                   "pixels x 3 bytes), or over the pixels p < 16 with bytes 3 * p, 3 * p + 1 "
                   "and 3 * p + 2")}
"""The pixels 0 to end - 1 converted, the loop's bound a count of something else: the words of
w[], or the pixels where k steps over the 48 bytes by 3 (k < 16 stops after pixel 5)."""


def pixels_left_out(rgb, got, n):
    """The pixel loop over only some of a group's 16 pixels (from 0 to 2, up to 1 to 16): the
    others' result bytes are left 0 (res[] starts at 0); the bound named after ``LOOP_BOUNDS``."""
    whole = 48 * (n // 16)
    if not whole:
        return
    loaded, mine = rgb.ravel()[:whole].reshape(-1, 48), got.ravel()[:whole].reshape(-1, 48)
    tone, pixel = sepia.reference(loaded.reshape(-1, 16, 3)).reshape(-1, 48), np.arange(48) // 3
    for first, end in ((f, e) for f in range(3) for e in range(16, f, -1) if (f, e) != (0, 16)):
        if sepia.near(mine, np.where((pixel >= first) & (pixel < end), tone, 0)):
            why, hint = LOOP_BOUNDS.get(end, ("", PIXEL_LOOP))
            yield (f"only pixels {first} to {end - 1} of each group were converted, the others "
                   "are 0" + why, hint)
            return
