"""The models of notebook 01's multiply_vectors (``cuda_src/exercises/multiply_vectors.cu``) that
``helpers.exercises.multiply_vectors`` compares the elements a kernel wrote with: indexes that
shift, subtract or wrap the thread's place, or take the block's number for it, each with its
verdict."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import thread_axes

INDEX_HINT = ("i = blockIdx.x * blockDim.x + threadIdx.x (the block's first element, plus the "
              "thread's place in it)")


def written_by(index, size, blocks):
    """The elements that a kernel with the index ``index`` writes (inside and past the end)."""
    b, t = np.meshgrid(np.arange(blocks), np.arange(size), indexing="ij")
    return np.unique(index(b, t, size, blocks))


def _one_block_on(every, size, n):
    """The elements written (``every``, before out and past it too) those of i = (blockIdx.x +
    1) * blockDim.x + threadIdx.x: block 0's never, and a block's worth past the end."""
    if n > size and np.array_equal(every, np.arange(size, n + size)):
        yield (f"every block took the elements of the block after it: out[0] to out[{size - 1}] "
               f"(block 0's) were never written and the last block wrote out[{n}] to "
               f"out[{n + size - 1}], past the end: the index is one block too far on, as "
               "(blockIdx.x + 1) * blockDim.x counts the blocks from 1, but blockIdx.x counts "
               "from 0", "block 0 starts at element 0: " + INDEX_HINT)


def _place_subtracted(every, size, n):
    """The elements written those of i = blockIdx.x * blockDim.x - threadIdx.x: each block's
    threads counted back from its first element, block 0's before out."""
    if size > 1 and np.array_equal(every, np.arange(1 - size, n - size + 1)):
        yield (f"out[{1 - size}] to out[-1] were written, before out[0], and out[{n - size + 1}] "
               f"to out[{n - 1}] never: the thread's place is subtracted, blockIdx.x * blockDim.x "
               "- threadIdx.x, so each block's threads count back from its first element (block "
               f"0's: out[0] down to out[{1 - size}])", "add the thread's place, + threadIdx.x, not "
               "- threadIdx.x: " + INDEX_HINT)


def _lane_for_thread(every, size, n):
    """The elements written those of i = blockIdx.x * blockDim.x + threadIdx.x % 32: each
    block's first 32, each by blockDim.x / 32 threads, in blocks of more than a warp."""
    if size > 32 and np.array_equal(every, written_by(lambda b, t, s, _: b * s + t % 32, size,
                                                      n // size)):
        yield (f"only the first 32 elements of each block were written (out[0] to out[31], "
               f"out[{size}] to out[{size + 31}], ...), each by {size // 32} threads, and "
               f"{n - n // size * 32} of {n} never: threadIdx.x % 32 is the thread's lane in its "
               "warp (0 to 31), not its place in the block",
               "the thread's place in the block is threadIdx.x, all of it, no % 32: " + INDEX_HINT)


def _block_number_for_place(every, size, n):
    """The elements written those of i = blockIdx.x * blockDim.x + blockIdx.x: one a block,
    out[b * blockDim.x + b], by every thread of block b (blockIdx.x typed where threadIdx.x
    belongs)."""
    blocks = n // size
    if size > 1 and blocks > 1 and np.array_equal(every, np.arange(blocks) * (size + 1)):
        shown = ", ".join(f"out[{b * (size + 1)}]" for b in range(min(blocks, 3)))
        yield (f"each block wrote one element only, out[b * {size} + b] ({shown}"
               f"{', ...' if blocks > 3 else ''}), all its {size} threads the same one, and "
               f"{n - blocks} of {n} elements were never written: the index blockIdx.x * "
               "blockDim.x + blockIdx.x adds blockIdx.x where the thread's place in its block, "
               "threadIdx.x, belongs", "add the thread's place, + threadIdx.x, not + blockIdx.x: "
               + INDEX_HINT)


def written_where(every, size, n):
    """The index mistakes that the elements written (``every``, before out and past it too) show
    in a launch of blocks of ``size`` threads over n elements. Yields (problem, hint)."""
    yield from _one_block_on(every, size, n)
    yield from _lane_for_thread(every, size, n)
    yield from _place_subtracted(every, size, n)
    yield from _block_number_for_place(every, size, n)


def place_from_y(kernels, every, size, n):
    """Only each block's first element written (``every``), where the kernel's words read
    threadIdx.y or threadIdx.z and never threadIdx.x (``microscope.thread_axes``): i = blockIdx.x
    * blockDim.x + threadIdx.y, whose place is 0 in every thread of a block (size, 1, 1)."""
    if size < 2 or n <= size or not np.array_equal(every, np.arange(0, n, size)):
        return
    axes = thread_axes(kernels)
    if axes and "x" not in axes:
        yield (f"only the first element of each block was written: the thread's place was "
               f"threadIdx.{axes[0]}, which is 0 in every thread: the block is 1-D, ({size}, 1, "
               f"1), so only threadIdx.x runs from 0 to {size - 1}, and threadIdx.y and "
               "threadIdx.z are always 0", f"+ threadIdx.x, not threadIdx.{axes[0]}: " + INDEX_HINT)


def guard_of_the_blocks(run, every, size, n):
    """Only out[0] to out[gridDim.x - 1] written (``every``), each by the thread of block 0 at that
    place, in a trace of ``run``'s launch on the simulator: a guard i < gridDim.x, the number of
    blocks taken for the number of threads (or of elements)."""
    from helpers.exercises.microscope import accesses_of

    blocks = n // size
    if not 1 < blocks < size or not np.array_equal(every, np.arange(blocks)):
        return
    kept = accesses_of(run.kernel, run.launch, f"guard of {blocks} blocks", 4 * n)
    if kept is None:
        return
    stores = kept[kept["write"] & ~kept["shared"]]
    if set(zip(stores["block"].tolist(), stores["thread"].tolist(), stores["index"].tolist())) \
            != {(0, t, t) for t in range(blocks)}:
        return
    yield (f"only out[0] to out[{blocks - 1}] were written, by threads 0 to {blocks - 1} of block "
           f"0: a guard compares i with gridDim.x = {blocks}, the number of blocks, not of threads "
           f"or elements, so only the first {blocks} threads of the grid passed it, and the other "
           f"{n - blocks} elements were never written", "every thread has an element here, so no "
           "guard is needed: remove the if, and every thread stores out[i] = a[i] * b[i] (a guard, "
           "where the next exercise needs one, compares i with the number of elements, n, never "
           "with the number of blocks)")


def plus_sign_for_add(kernels, first_block):
    """A statement of the kernel's text (its simulated twin's source) typed i =+ threadIdx.x;,
    where i was set before: = then a plus sign, i = +threadIdx.x, which replaces what i held
    where += adds to it. ``first_block``: the problem's start, the elements written."""
    from helpers.exercises.microscope import kernel_words, source_line

    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for s in range(body + 1, end - 3):
        if words[s - 1] not in ("{", ";", "}") or words[s + 1:s + 3] != ["=", "+"] or \
                ";" not in words[s:end]:
            continue
        stop = words.index(";", s, end)
        before = [k for k in range(body + 1, s) if words[k] == words[s] and words[k + 1] == "="]
        if not before or ";" not in words[before[-1]:s]:
            continue
        k = before[-1]
        held = source[tokens[k + 2].start:tokens[words.index(";", k, s) - 1].end]
        said, added = (source[tokens[a].start:tokens[stop].end] for a in (s, s + 3))
        yield (f"{first_block}{said} at line {source_line(source, tokens[s].start)} is "
               f"{words[s]} = +{added[:-1].strip()}: =+ is = and then a plus sign, so it replaces "
               f"what {words[s]} held, {held} (line {source_line(source, tokens[k].start)}), "
               f"instead of adding to it, and {words[s]} counts from 0 again in every block",
               f"add with +=: {words[s]} += {added} (or in one line: {INDEX_HINT})")
        return


def two_a_thread(run, every, size, n):
    """out[0] to out[2n - 1] written (``every``), thread i of the grid storing out[2i] and
    out[2i + 1] (one float2 or two floats) in a trace of ``run``'s launch on the simulator: two
    elements a thread, as float2 loads take them, in a launch of one thread per element."""
    from helpers.exercises.microscope import accesses_of

    if not np.array_equal(every, np.arange(2 * n)):
        return
    kept = accesses_of(run.kernel, run.launch, f"two a thread of {n}", 8 * n)
    if kept is None:
        return
    stores = kept[kept["write"] & ~kept["shared"]]
    got = {(int(b) * size + int(t), int(i) + k) for b, t, i, w in
           zip(stores["block"], stores["thread"], stores["index"], stores["bytes"])
           for k in range(max(int(w) // 4, 1))}
    if got != {(g, 2 * g + k) for g in range(n) for k in (0, 1)}:
        return
    yield (f"every thread wrote two elements, out[2 * i] and out[2 * i + 1] (as a float2 at i "
           f"does), but the grid has one thread per element, so the threads with i = {n // 2} to "
           f"{n - 1} wrote out[{n}] to out[{2 * n - 1}], past the end (and read a and b past it)",
           "one element a thread here: the launch gives each element its own thread, so each "
           "thread reads and stores floats, out[i] = a[i] * b[i] (two elements a thread, by "
           "float2, needs a grid of half as many threads)")


def vectors_a_thread(failure):
    """An access past the end (each array has a block's room before it) at element w * i of
    the thread's own i, where the kernel's body takes its elements through a vector type of w
    floats (``float_vectors``): a float4 at index i holds elements 4i to 4i + 3, four elements a
    thread in a launch of one thread per element, so the threads from n / 4 on run past the end."""
    from helpers.exercises.float_vectors import vector_of

    err, launch = failure.error, failure.launch
    if failure.kind != "out of bounds" or err.offset is None or not err.block or \
            not err.thread or launch is None or (vector := vector_of(failure.kernel)) is None:
        return
    (name, width), size = vector, launch.block[0]
    i, n = err.block[0] * size + err.thread[0], size * launch.grid[0]
    if not 0 <= err.offset - 4 * (size + width * i) < 4 * width:
        return
    yield (f"the kernel crashed: thread {err.thread[0]} of block {err.block[0]}, i = {i}, "
           f"{'wrote' if err.is_write else 'read'} a {name} at element {width} * i = "
           f"{width * i}, past the end of the arrays (n = {n}): a {name} at index i of a {name} "
           f"pointer holds elements {width} * i to {width} * i + {width - 1}, so every thread "
           f"took {width} elements where the launch gives it one, and the threads from i = n / "
           f"{width} = {n // width} on ran past the end",
           "one element a thread here: the launch gives each element its own thread, so each "
           f"thread reads and stores floats, out[i] = a[i] * b[i] ({width} elements a thread, by "
           f"{name}, needs a grid of 1 / {width} as many threads)")
