"""Mistakes of ``depth_range`` read from the kernel's text or modelled from the range it gave
(``helpers.exercises.depth_range``): the range of the pixels or the values a slip leaves."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import accesses_of, kernel_words, observe

NULLS = ("0", "NULL", "nullptr")


def pointer_tested(kernels):
    """The hole test on the pointer, if (depth == 0) (or 0 == depth, or NULL for 0), where the
    value read belongs: a pointer to the image is never 0, so no hole is skipped. Called only
    where the range shows exactly that (the nearest 0, the farthest right)."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for j in range(body + 2, end - 2):
        if words[j] != "==" or words[j - 2] in ("*", "[") or words[j + 2] == "[":
            continue
        if {words[j - 1], words[j + 1]} & {"depth"} and {words[j - 1], words[j + 1]} & set(NULLS):
            said = source[tokens[j - 1].start:tokens[j + 1].end]
            yield (f"the nearest depth came out 0, the farthest right: no hole was skipped. "
                   f"if ({said}) compares the pointer depth with 0, not the pixel's value d: "
                   "it is never true (depth points at the image), so every hole's 0 went into "
                   "atomicMin", "test the value read, not the pointer: if (d == 0) return;")
            return


def guard_lets_n_through(kernels, launch, junk):
    """A guard that lets thread i = n through (i > n where i >= n belongs), or one inverted (i < n
    where i >= n belongs): on the simulator (``launch``, a small image, traced) thread n alone, of
    the threads past the end, read depth, at depth[n], the first element past the last pixel
    (``junk``, the farthest range kept); or every thread past the end read depth and none below n."""
    kept = accesses_of(kernels, launch, "past n", 4096)
    if kept is None:
        return
    n, total = launch.model.size, launch.block[0] * launch.grid[0]
    read = kept[(kept["array"] == "depth") & ~kept["write"]]
    past = read[read["index"] >= n]

    def threads(of):
        return set((of["block"].astype(int) * launch.block[0] + of["thread"]).tolist())

    if threads(read) == set(range(n, total)) and n < total:
        yield (f"the bounds guard is inverted: if (i < n) return; sends away every thread with a "
               f"pixel and lets only those past the end through, which read what lies past depth "
               f"({junk}): a trace of a small image of n = {n} pixels has "
               f"threads {n} to {total - 1} alone read depth, and no pixel looked at",
               "return when i >= n, not i < n: if (i >= n) return; sends away the threads past "
               "the end and keeps those with a pixel (depth[0] to depth[n - 1])")
    if set(past["index"].tolist()) != {n} or threads(past) != {n}:
        return
    yield (f"the farthest depth came out {junk}, what lies just past the end of depth: the "
           "bounds guard lets thread i = n through (i > n, where i >= n is needed), and it read "
           f"depth[n], one past the last pixel (a trace of a small image of n = {n} pixels: "
           f"thread {n} alone, of the threads past the end, read depth, at depth[{n}])",
           "send away every thread from n on: if (i >= n) return; (depth[0] to depth[n - 1] "
           "are the n pixels)")


def holes_only(kernels, launch):
    """The hole test inverted (if (d != 0) return;): range came out {0, 0}, only the holes' 0
    reaching the atomics; on the simulator, the same image with a depth where its holes were
    (``launch``) leaves range as it started, no pixel reaching them (an assignment, if (d = 0),
    sends every pixel's 0 there, holes or not)."""
    seen = observe(kernels, launch, key="no holes", racecheck=False)
    if seen.error is not None or seen.outs[0].got.tolist() != [0xFFFFFFFF, 0]:
        return
    yield ("the hole test is inverted: range came out {0, 0}, and with no holes in the image it "
           "stayed {4294967295, 0}, as it started: the measured depths returned and only the "
           "holes (0) reached atomicMin and atomicMax", "return for the holes, when d == 0: "
           "if (d == 0) return; (a test true for the measured depths, as d != 0 or d > 0 is, "
           "sends them away)")


STORED_BACK_HINT = ("atomicMin(&range[0], d) updates range itself and returns the value range "
                    "held before: call it alone, atomicMin(&range[0], d); with no range[0] = "
                    "in front (and the same for atomicMax)")


def reset_in_kernel(race):
    """A race between a plain store and an atomic update: a thread setting range's start."""
    return race is not None and {(a.writes, a.atomic) for a in (race.first, race.second)} == {
        (True, False), (False, True)}


def stored_back(race) -> bool:
    """A plain store and an atomic update of one element on one line: x = atomicMin(&x, d),
    which stores back the value x held before the atomic."""
    return reset_in_kernel(race) and race.same_line


def result_stored_back(kernels, launch, got):
    """x = atomicMin(&x, d): the race-checked ``launch`` found a plain store on the line of an
    atomic update of one element, which stores back the value it held before the atomic;
    whichever store lands last decides what range holds (``got``: as it started, or a depth
    lost)."""
    race = observe(kernels, launch).race
    if stored_back(race):
        told = ("is as it started, {4294967295, 0}" if got == [0xFFFFFFFF, 0] else
                f"came out {{{got[0]}, {got[1]}}}")
        yield (f"range {told}, and the race check found a plain store into {race.place} on the "
               f"line of its atomic update ({race.first.line}): the atomic's result was stored "
               "back, the value range held before the atomic, undoing it", STORED_BACK_HINT)


def one_atomic_a_depth(run, launch, want):
    """Each measured depth sent to one atomic alone, as an if/else does (if (d < range[0])
    atomicMin(...); else atomicMax(...)): on the simulator (``launch``, a small image, traced)
    every measured pixel's thread read range[k] with a plain load and updated range[0] or
    range[1], never both, and both occur. ``run``: the case's (its image and range), ``want``:
    its right range, to name the depth that missed its end."""
    depth, got = run.model, run.out.got.tolist()
    kept = accesses_of(run.kernel, launch, "one atomic a depth", 4096)
    if kept is None:
        return
    on, measured = kept[kept["array"] == "range"], set(np.flatnonzero(launch.model).tolist())
    pixel = on["block"].astype(int) * launch.block[0] + on["thread"]
    updated = [set(pixel[on["write"] & (on["index"] == k)].tolist()) for k in (0, 1)]
    read = [k for k in (0, 1) if measured <= set(pixel[~on["write"] & (on["index"] == k)].tolist())]
    if not read or not all(updated) or updated[0] & updated[1] or updated[0] | updated[1] != measured:
        return
    line = int(on["line"][~on["write"] & (on["index"] == read[0])][0])
    missed = [f"the farthest depth, {want[1]} (pixel {int(np.argmax(depth))}), went to atomicMin "
              "alone and never reached range[1]"] * (got[1] < want[1]) + [
        f"the nearest depth, {want[0]} (pixel {int(np.flatnonzero(depth == want[0])[0])}), went "
        "to atomicMax alone and never reached range[0]"] * (got[0] > want[0])
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: each measured "
           "depth went to one atomic alone, atomicMin or atomicMax, never both (a trace of a "
           f"small image: each of its {len(measured)} measured pixels updated range[0] or "
           f"range[1], none both), chosen by an if/else on a plain read of range[{read[0]}] at "
           f"line {line}" + "".join(f"; {m}" for m in missed) + f"; and that read of "
           f"range[{read[0]}] races with the other threads' atomics",
           "call atomicMin(&range[0], d) and atomicMax(&range[1], d) both, for every measured "
           "depth, with no if around them: each atomic keeps its end whatever the other does")


def end_plus_1(got, want):
    """Python's exclusive end, atomicMax(&range[1], d + 1): the nearest right, the farthest one
    more than the farthest depth (no pixel holds it, and no race makes up a value)."""
    if got[0] == want[0] and got[1] == want[1] + 1:
        yield (f"range[1] came out {got[1]}, one more than the farthest depth, {want[1]} (range[0]"
               f", {got[0]}, is right): the farthest was kept plus one, as a Python range's "
               "exclusive end would be", "range[1] is the farthest depth itself, an inclusive "
               "end: no + 1: atomicMax(&range[1], d)")


def rescaled(case, depth, got, want):
    """The range of other pixels or other units than the image's: in whole metres, or of the
    pixels i = blockIdx.x * gridDim.x + threadIdx.x (or threadIdx.x * blockDim.x + blockIdx.x)
    reaches."""
    yield from in_metres(depth, got, want)
    yield from grid_for_block(case, depth, got, want)
    yield from thread_and_block_swapped(case, depth, got, want)


def in_metres(depth, got, want):
    """Millimetres made metres, unsigned int d = depth[i] / 1000 (backproject_range's
    conversion): the range is that of the depths divided by 1000, in whole metres, those under
    1000 mm become 0 and are skipped as holes."""
    metres = depth // 1000
    measured = metres[metres > 0]
    if not measured.size or got != [int(measured.min()), int(measured.max())]:
        return
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of the "
           "depths divided by 1000, in whole metres: dividing the depth by 1000 before the atomics "
           f"drops the millimetres (an integer division, {want[1]} became {want[1] // 1000}), and the depths under "
           f"1000 mm (the nearest, {want[0]}) became 0, skipped as holes",
           "keep the depths in millimetres, as the camera gives them: unsigned int d = depth[i]; "
           "with no / 1000 (range is in millimetres too)")


def grid_for_block(case, depth, got, want):
    """gridDim where blockDim belongs, i = blockIdx.x * gridDim.x + threadIdx.x: block b looks at
    pixels b * gridDim.x on, so the blocks overlap (or leave gaps), and the range is that of the
    pixels some thread reached."""
    n, block = case["n"], case["block"]
    grid = -(-n // block)
    reach = np.unique(np.arange(grid)[:, None] * grid + np.arange(block))
    reach = reach[reach < n]
    measured = depth[reach][depth[reach] > 0]
    if grid == block or reach.size == n or not measured.size or \
            got != [int(measured.min()), int(measured.max())]:
        return
    which = (f"pixels 0 to {reach[-1]} only, pixels {reach[-1] + 1} to {n - 1} were never looked "
             "at" if reach.size == reach[-1] + 1 else
             f"{reach.size} of the {n} pixels only, the others never looked at")
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of "
           f"{which}: i = blockIdx.x * gridDim.x + threadIdx.x starts block b's pixels at b * "
           f"{grid} (gridDim.x, the number of blocks), not b * {block} (blockDim.x, the threads "
           f"in a block), so the blocks overlap{'' if grid < block else ' and leave gaps'}",
           "blocks lie blockDim.x pixels apart (gridDim.x is how many blocks there are): i = "
           "blockIdx.x * blockDim.x + threadIdx.x")


def thread_and_block_swapped(case, depth, got, want):
    """threadIdx.x and blockIdx.x swapped, i = threadIdx.x * blockDim.x + blockIdx.x: thread t of
    block b looks at pixel t * blockDim.x + b, so the range is that of the pixels whose place in
    each run of blockDim.x is below gridDim.x (named where those runs leave gaps: fewer blocks
    than threads in a block, else the pixels reached are 0 to some k, as other slips give)."""
    n, block = case["n"], case["block"]
    grid = -(-n // block)
    reach = np.unique(np.arange(block)[:, None] * block + np.arange(grid))
    reach = reach[reach < n]
    measured = depth[reach][depth[reach] > 0]
    if reach.size == reach[-1] + 1 or not measured.size or \
            got != [int(measured.min()), int(measured.max())]:
        return
    runs = ", ".join(f"{k * block} to {k * block + grid - 1}" for k in range(3))
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of "
           f"pixels {runs}, ... only ({reach.size} of the {n}): i = threadIdx.x * blockDim.x + blockIdx.x has threadIdx.x and "
           f"blockIdx.x swapped, so block b starts at pixel b, not b * {block}, and its threads "
           f"lie {block} pixels apart, not side by side", "multiply the block's number by the block's size and add the "
           "thread's place in it: i = blockIdx.x * blockDim.x + threadIdx.x")


def block_0_only(case, depth, got, again):
    """Pixels of block 0 alone, or of blocks one pixel apart, i = blockIdx.x + threadIdx.x (the
    block's number not multiplied by its size): block b looks at pixels b to b + blockDim.x - 1,
    so the blocks overlap and pixels 0 to gridDim.x + blockDim.x - 2 alone are looked at; the
    same image with its nearest at the last of those (``again(nearest=...)``, a ``Run`` or None)
    finds it, where block 0 alone would not."""
    n, block = case["n"], case["block"]
    reach = min(n, -(-n // block) + block - 1)

    def ends(pixels):
        measured = pixels[pixels > 0]
        return [int(measured.min()), int(measured.max())] if measured.size else None

    if reach < n and got == ends(depth[:reach]):
        rerun = again(nearest=reach - 1)
        if rerun is not None and rerun.out.got.tolist() == ends(rerun.model[:reach]) and \
                rerun.out.got.tolist() != ends(rerun.model[:block]):
            want = ends(depth)
            yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range "
                   f"of pixels 0 to {reach - 1} only, pixels {reach} to {n - 1} were never looked "
                   f"at: i = blockIdx.x + threadIdx.x starts block b's pixels at b, not at b * "
                   f"{block} (blockDim.x), so the blocks overlap (block 1 looks at pixels 1 to "
                   f"{block}) and reach no further than pixel {reach - 1} (the same image with its "
                   f"nearest at pixel {reach - 1} finds it)",
                   "multiply the block's number by its size, the pixels a block holds: i = "
                   "blockIdx.x * blockDim.x + threadIdx.x")
    if got == ends(depth[:block]):
        yield ("the range is that of block 0's pixels only",
               "every block has its pixels: i = blockIdx.x * blockDim.x + threadIdx.x")


def cut_to_a_byte(depth, got, want):
    """d declared unsigned char: each depth cut to its low byte (depth & 0xFF), those whose low
    byte is 0 skipped as holes; the range is that of the cut depths."""
    cut = depth & 0xFF
    measured = cut[cut > 0]
    if not measured.size or got != [int(measured.min()), int(measured.max())]:
        return
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of the "
           "depths cut to their low byte (depth[i] & 0xFF, 0 to 255): d was declared unsigned "
           f"char, one byte, and the depths reach {want[1]}, which takes two (an unsigned short)",
           "keep the whole depth in an unsigned int, the type atomicMin and atomicMax take: "
           "unsigned int d = depth[i];")


def signed_short(depth, got, want):
    """d declared short: depths from 32768 on turn negative, and atomicMax, which takes an
    unsigned int, makes them 2^32 less their wrap, past any depth; the range is that of those
    values."""
    values = depth.astype(np.int16).astype(np.int64) % (1 << 32)
    measured = values[values > 0]
    if not (depth > 0x7FFF).any() or got != [int(measured.min()), int(measured.max())]:
        return
    d = int(depth[values == got[1]][0])
    yield (f"range[1] came out {got[1]} for a depth of {d}: d was declared short, signed, which "
           f"holds up to 32767, so the depths from 32768 on turned negative ({d} became "
           f"{d - (1 << 16)}), and given to atomicMax, which takes an unsigned int, "
           f"{d - (1 << 16)} became {got[1]} (expected {{{want[0]}, {want[1]}}})",
           "keep the depth unsigned, as the camera gives it (0 to 65535): unsigned int d = "
           "depth[i];")


def first_threads_only(case, depth, got, want):
    """The atomics only in each block's thread 0 (if (threadIdx.x == 0) around them, as for
    dot_product's one atomic a block): the range of pixels 0, block, 2 block, ... alone."""
    block = case["block"]
    firsts = depth[::block]
    measured = firsts[firsts > 0]
    if not measured.size or got != [int(measured.min()), int(measured.max())]:
        return
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of "
           f"pixels 0, {block}, {2 * block}, ..., each block's first pixel only: the atomics ran "
           "only in thread 0 of each block (threadIdx.x == 0), as dot_product's one atomic a "
           "block does, so the other threads' depths were never looked at",
           "every thread does both atomics for its own pixel, with no if around them: "
           "atomicMin(&range[0], d) and atomicMax(&range[1], d) (each thread's d is a "
           "measurement of its own, not a share of a block's sum)")


def block_lost_with_thread_0(case, depth, got, want):
    """Each block's range kept in shared lo and hi and published by its thread 0, which had
    returned where its pixel is a hole: the range of the blocks whose first pixel is measured."""
    block = case["block"]
    firsts = depth[::block]
    kept = np.concatenate([depth[b * block:(b + 1) * block] for b in np.flatnonzero(firsts)])
    measured = kept[kept > 0]
    if not measured.size or got == want or got != [int(measured.min()), int(measured.max())]:
        return
    lost = np.flatnonzero(firsts == 0)
    end = 0 if got[0] != want[0] else 1
    b = int(np.flatnonzero(depth == want[end])[0]) // block
    yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range of the "
           f"blocks whose thread 0 has a measured pixel only: thread 0 publishes its block's range, "
           f"but in {lost.size} of the {firsts.size} blocks its pixel is a hole and it returned "
           f"early (block {b}, whose pixel {b * block} is a hole, holds the "
           f"{('nearest', 'farthest')[end]} depth, {want[end]}), so those blocks' ranges never "
           "reached range[0] and range[1]",
           "keep the block's lo and hi, but let no thread return before thread 0 publishes them: "
           "unsigned int d = i < n ? depth[i] : 0; if (d != 0) { atomicMin(&lo, d); "
           "atomicMax(&hi, d); } then __syncthreads(); and thread 0's atomicMin(&range[0], lo) "
           "and atomicMax(&range[1], hi)")


WARP = 32
SHUFFLES = (  # (a warp's shuffle offsets that miss lanes, how they went wrong)
    ((8, 4, 2, 1), "started at offset 8"), ((4, 2, 1), "started at offset 4"),
    ((2, 1), "started at offset 2"), ((16, 8, 4, 2), "stopped before offset 1"))


def lanes_combined(offsets):
    """The lanes whose values reach lane 0 through shuffles at ``offsets`` (powers of 2, xor or
    down): the sums of their subsets."""
    lanes = {0}
    for offset in offsets:
        lanes |= {lane + offset for lane in lanes}
    return sorted(lanes)


def warp_lanes_missed(case, depth, got, want, again):
    """Each warp's nearest and farthest combined with shuffles that miss lanes (started at offset
    8, or stopped before 1) before lane 0's atomics: the range of those lanes' pixels only; the
    same image with its nearest at a pixel of a lane missed (``again(nearest=...)``, a ``Run`` or
    None) misses it too."""
    lane = np.arange(depth.size) % case["block"] % WARP

    def ends(image, kept):
        measured = image[kept & (image > 0)]
        return [int(measured.min()), int(measured.max())] if measured.size else None

    for offsets, how in SHUFFLES:
        lanes = lanes_combined(offsets)
        kept = np.isin(lane, lanes)
        if got == want or got != ends(depth, kept):
            continue
        pixel = int(np.flatnonzero(~kept[:-1])[-1])   # not the last: a guard's slip
        rerun = again(nearest=pixel)
        if rerun is None or rerun.out.got.tolist() != ends(rerun.model, kept):
            continue
        last = lanes[-1]
        shown, missed, pixels = (
            (f"lanes 0 to {last}", f"lanes {last + 1} to {WARP - 1}'s",
             ", ".join(f"{w * WARP} to {w * WARP + last}" for w in range(3)))
            if len(lanes) == last + 1 else ("the even lanes", "the odd lanes'", "0, 2, 4"))
        yield (f"range is {{{got[0]}, {got[1]}}}, expected {{{want[0]}, {want[1]}}}: the range "
               f"of {shown} of each warp only (pixels {pixels}, ...): the warp's shuffles "
               f"{how} (offsets {', '.join(map(str, offsets))}), so lane 0 combined the depths "
               f"of {shown} alone, and {missed} depths never reached its atomicMin and atomicMax "
               f"(the same image with its nearest at pixel {pixel}, lane {lane[pixel]}, misses it "
               "too)", "start the shuffles at half the warp, 16, and halve down to 1: for (int "
               "offset = 16; offset > 0; offset /= 2): offsets 16, 8, 4, 2, 1 bring all 32 "
               "lanes' depths to lane 0")
        return
