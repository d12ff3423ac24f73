"""The loop along the row of notebook 03's row-per-block Mandelbrot kernel
(``helpers.exercises.mandelbrot_rows``), read on the simulator where the image alone cannot tell
mistakes apart: a loop whose passes all draw one pixel, steps that stop after each thread's
first pixel, the row cut into runs of neighbouring pixels, one a thread, and a step short of the
block, whose threads then draw one another's pixels."""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import time_limit
from helpers.exercises.microscope import (accesses_of, kernel_words, observe, source_line,
                                          written_by_two)


def same_pixel_each_pass(kernels, launch, block):
    """Each thread stored into iters on several passes of its loop, every store at one pixel
    (``launch``, on the simulator, traced): the loop's own variable moves, but the pixel drawn
    does not; with the kernel's words, the loop and the x set to threadIdx.x inside it."""
    kept = accesses_of(kernels, launch, "stores of a row", 4096)
    stores = None if kept is None else kept[(kept["array"] == "iters") & kept["write"]]
    if stores is None or not len(stores):
        return
    threads, times = np.unique(stores["thread"], return_counts=True)
    if times.max() < 2 or any(len(np.unique(stores["index"][stores["thread"] == t])) > 1
                              for t in threads):
        return
    seen = (f"on the simulator, with a row of {launch.args[1]} pixels, thread 0 stored "
            f"iters[{stores['index'][stores['thread'] == threads[0]][0]}] {times[0]} times")
    named = _pixel_set_in_the_loop(kernels)
    where = (f"the {named[0]} at line {named[1]} steps {named[2]}, but the pixel drawn is "
             f"{named[3]}, set to threadIdx.x anew inside the loop at line {named[4]}"
             if named else "the pixel drawn does not move with the loop")
    yield (f"only the first {block} pixels of each row were drawn: each pass of the loop drew the "
           f"same pixel: {where}, so every pass of a thread redraws its first pixel ({seen})",
           "loop over x itself and drop int x = threadIdx.x; inside the loop: for (int x = "
           "threadIdx.x; x < width; x += blockDim.x)")


def _pixel_set_in_the_loop(kernels):
    """(for or while, its line, the name its head steps, the name set to threadIdx.x inside
    its body, that line) of the kernel's first loop whose body sets a name to threadIdx.x; None
    where there is none or no text."""
    from helpers.exercises.barrier_if import loops_in
    from helpers.sim.compile.kernel_text import Unreadable

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    try:
        loops = loops_in(tokens, words, body, end)
    except (Unreadable, ValueError, IndexError):
        return None
    for k, head, last in loops:
        sets = [m for m in range(head + 1, last - 3) if words[m] == "="
                and words[m + 1:m + 4] == ["threadIdx", ".", "x"] and words[m + 4] == ";"]
        steps = [words[m - 1] for m in range(k + 2, head) if words[m] in ("++", "+=", "--")]
        if sets and steps and steps[0] != words[sets[0] - 1]:
            return (words[k], source_line(source, tokens[k].start), steps[0],
                    words[sets[0] - 1], source_line(source, tokens[sets[0]].start))
    return None


def carried_over(kernels, block, max_iter=100) -> bool:
    """Whether the kernel's steps stop after each thread's first pixel: on the simulator, one
    row where c = 0 (every pixel takes max_iter steps), four pixels a thread take less than
    twice the work (basic blocks run, traced) of one pixel a thread."""
    from helpers.sim import driver, gpuarray
    from helpers.sim.microscope.trace import trace
    from helpers.sim.settings import settings

    kernel = getattr(kernels, "simulated", kernels)
    work = []
    for width in (block, 4 * block):
        with settings.changed(time_limit=time_limit()), \
                trace(accesses=0, divergence=True) as traced:
            try:
                kernel(gpuarray.zeros((1, width), np.int32), np.int32(width), np.int32(1),
                       *map(np.float32, (0, 0, 0, 0)), np.int32(max_iter),
                       block=(block, 1, 1), grid=(1, 1))
            except driver.Error:
                return False
        work.append(traced[kernel.name].blocks.lanes)
    return work[1] < 2 * work[0]


def runs_of_neighbours(kernels, launch, case, never):
    """(problem, hint) where each thread stored a run of width / blockDim.x neighbouring pixels,
    thread t x = t * per to t * per + per - 1 (``launch``: one row on the simulator, traced),
    the row cut into runs, one a thread, rounded down, where the loop steps by blockDim.x;
    ``never``: the pixels ``case``'s image left undrawn, in words. Nothing otherwise."""
    kept = accesses_of(kernels, launch, "stores of a row", 4096)
    stores = None if kept is None else kept[(kept["array"] == "iters") & kept["write"]]
    row, threads = int(launch.args[1]), launch.block[0]
    step = row // threads
    model = {(t, t * step + k) for t in range(threads) for k in range(step)}
    if stores is None or step < 2 or set(zip(stores["thread"].tolist(),
                                              stores["index"].tolist())) != model:
        return
    width, _, block = case[:3]
    per = width // block
    yield (f"{never}: each thread drew a run of width / blockDim.x = {per} neighbouring pixels, "
           f"thread t took x = {per}t to {per}t + {per - 1} (on the simulator, with a row of {row} "
           f"pixels in a block of {threads}, thread 1 stored iters[{step}] to "
           f"iters[{2 * step - 1}]): the division dropped the row's last {width - per * block} "
           f"pixels, and a warp's threads drew pixels {per} apart, where the exercise's threads "
           f"step by blockDim.x, thread t taking x = t, t + {block}, t + {2 * block} and on",
           "neighbouring threads draw neighbouring pixels: for (int x = threadIdx.x; x < width; "
           "x += blockDim.x), whose last, partial pass reaches the row's end")


def step_short_of_the_block(kernels, launch):
    """(problem, hint) where the race check of ``launch`` (a row a block, on the simulator) found
    two threads drawing one pixel, and its trace shows every thread t of each block storing
    x = t, t + s, t + 2s, ... of its row, a step s short of blockDim.x (32, a warp's size, or 1):
    threads s apart in the block drew the same pixels."""
    race = observe(kernels, launch).race
    width, block = int(launch.args[1]), launch.block[0]
    kept = None if not written_by_two(race) else accesses_of(
        kernels, launch, "stores of the rows", launch.grid[0] * block * width)
    stores = None if kept is None else kept[(kept["array"] == "iters") & kept["write"]]
    if stores is None or not len(stores):
        return
    drawn = set(zip(stores["block"].tolist(), stores["thread"].tolist(),
                    (stores["index"] - stores["block"] * width).tolist()))
    first = sorted(x for b, t, x in drawn if b == 0 and t == 0)
    step = first[1] - first[0] if len(first) > 1 else 0
    if not 0 < step < min(block, width) or drawn != {
            (b, t, x) for b in range(launch.grid[0]) for t in range(min(block, width))
            for x in range(t, width, step)}:
        return
    warp = ", a warp's size" if step == 32 else ""
    yield (f"every thread stepped x by {step}{warp}, not by blockDim.x = {block}: thread t drew x = "
           f"t, t + {step}, t + {2 * step}, ..., so threads t and t + {step} of a block drew the "
           f"same pixels ({race.first.who} and {race.second.who} both drew "
           f"{race.array}[{race.element}])", "step x by blockDim.x, the block's threads: for (int "
           "x = threadIdx.x; x < width; x += blockDim.x), so that each pass the block's threads "
           "draw the next blockDim.x pixels of the row, each its own")


def all_of_the_block_in_the_head(kernels, case, never):
    """(problem, hint) where a loop's head calls __syncthreads_and, true only while the test holds
    in every thread of the block: the block left the loop on the pass where its first thread ran
    past the row's end, the last, partial pass never made (``never``: the pixels ``case``'s image
    left undrawn, in words). Nothing where no head calls it, or the text cannot be read."""
    from helpers.exercises.barrier_if import loops_in
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    try:
        votes = [(m, closing(tokens, m + 1)) for k, head, _ in loops_in(tokens, words, body, end)
                 for m in range(k + 2, head) if words[m] == "__syncthreads_and"]
    except (Unreadable, ValueError, IndexError):
        return
    if votes:
        (m, close), (width, _, block) = votes[0], case[:3]
        yield (f"{never}: the loop's condition at line {source_line(source, tokens[m].start)}, "
               f"{source[tokens[m].start:tokens[close].end]}, is true only while every thread of "
               "the block has a pixel, so the whole block left the loop on the pass where its first "
               f"thread ran past the row's end: the last pass, where only {width % block} of the "
               f"{block} threads have a pixel, was never made",
               "loop while x < width, the thread's own test, with no barrier in the loop's "
               "condition: for (int x = threadIdx.x; x < width; x += blockDim.x); in the last, "
               "partial pass the threads past the row's end just leave the loop")
