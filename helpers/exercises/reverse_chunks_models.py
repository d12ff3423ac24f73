"""The NumPy models of ``helpers.exercises.reverse_chunks``' kernel's output (each chunk of 256
elements of x reversed into y): the last, partial chunk mirrored as if whole
(``last_as_whole``), left out (``partial_chunk_left_out``), or counted without its start,
count = min(CHUNK, n), or from the block's first chunk (``count_without_first``); a crash's
words (the mirror one past, the store unguarded) and a tile of each thread's own
(``private_tile``)."""

from __future__ import annotations

import numpy as np

CHUNK = 256


def last_as_whole(n, x, got, want):
    """The last, partial chunk mirrored as if whole: y[first + t] = tile[CHUNK - 1 - t], right
    where that is an element the chunk loaded (CHUNK - 1 - t < count), stale where not; the whole
    chunks right."""
    first, count = n - n % CHUNK, n % CHUNK
    t = np.arange(CHUNK - count, count)
    if t.size and np.array_equal(got[:first], want[:first]) and \
            np.array_equal(got[first + t], x[first + CHUNK - 1 - t]):
        yield (f"the last chunk, which has only count = {count} elements, was mirrored as if it "
               f"had {CHUNK}: y[{first} + t] = tile[{CHUNK - 1} - t], which this chunk never "
               f"loaded for t < {CHUNK - count}",
               "mirror the chunk's own elements: y[first + t] = tile[count - 1 - t]")


def partial_chunk_left_out(n, unwritten, got, want):
    """y unwritten at the last, partial chunk's elements alone, every whole chunk right: the
    loop's condition let a chunk through only when whole (first + CHUNK <= n)."""
    first = n - n % CHUNK
    if first == n or not unwritten[first:].all() or unwritten[:first].any() or \
            not np.array_equal(got[:first], want[:first]):
        return
    yield (f"the last, partial chunk (y[{first}] to y[{n - 1}], {n - first} elements) was never "
           f"written, and every whole chunk is right: the loop stopped before it, as a condition "
           f"that lets a chunk through only when it is whole, first + CHUNK <= n, does (first = "
           f"{first}: {first} + {CHUNK} > {n}), where it should go on while first < n",
           "loop while the chunk has any element: for (...; first < n; first += gridDim.x * "
           "CHUNK); the last chunk may be partial, and count = min(CHUNK, n - first) counts it")


def count_without_first(n, x, out, alone):
    """count = min(CHUNK, n) (or CHUNK), the chunk's start left out: the last, partial chunk treated as
    whole, its threads t < CHUNK storing y[first + t] = tile[CHUNK - 1 - t], past n too; inside
    y, each element the chunk loaded from x is there, mirrored as if it were whole. ``alone``: ()
    -> the simulator's launch of one chunk a block (``microscope.Observed``); y right there, the
    count was taken from the block's first chunk, n - blockIdx.x * CHUNK, not from the loop's."""
    first = n - n % CHUNK
    if first == n or first == 0 or not out.past.size or out.past[0] != n or \
            not np.array_equal(out.past, np.arange(n, n + out.past.size)) or \
            out.past.size > CHUNK - (n - first) or out.unwritten.any():
        return
    t = np.arange(CHUNK - (n - first), n - first)   # the stores inside y of elements inside x
    if not np.array_equal(out.got[first + t], x[first + CHUNK - 1 - t]):
        return
    wrong = (f"count is {CHUNK} in the last, partial chunk (first = {first}), which has only n - "
             f"first = {n - first} elements")
    did = (f"so its threads loaded x past n, stored y past its end (y[{n}] and on), and mirrored "
           f"the chunk as if it were whole (y[{first} + t] = tile[{CHUNK - 1} - t])")
    hint = "count the chunk's own elements, from its start: int count = min(CHUNK, n - first)"
    seen = alone()
    if _reversed_right(seen):
        blocks, m = seen.blocks, len(seen.launch.model)
        yield (f"{wrong}: the count was taken from the block's first chunk, n - blockIdx.x * "
               "CHUNK, not from the loop's chunk, n - first: right while a block has one chunk "
               f"(with {blocks} blocks over n = {m:,}, one chunk each, y came out right), wrong "
               f"for its later chunks; {did}", hint + ", inside the loop, for each chunk")
    else:
        yield (f"{wrong}: the count left out the chunk's start (as count = min(CHUNK, n) or "
               f"count = CHUNK does), {did}", hint)


def _reversed_right(seen):
    """Whether the simulator's launch ``seen`` ended with each chunk of its x reversed into y,
    nothing stored past y's end."""
    if seen.error is not None or not seen.outs or seen.outs[0].past.size:
        return False
    x = seen.launch.model
    want = np.concatenate([x[f:f + CHUNK][::-1] for f in range(0, len(x), CHUNK)])
    return np.array_equal(seen.outs[0].got, want)


def global_thread_index(n, blocks, unwritten, got, want):
    """t taken as the global thread index, blockIdx.x * blockDim.x + threadIdx.x: in a block
    b > 0 every t >= CHUNK >= count, so its chunks (b, b + gridDim.x, ...) were never written,
    and block 0's are right."""
    chunk_of = np.arange(n) // CHUNK
    others = chunk_of % blocks != 0
    if blocks < 2 or not np.array_equal(unwritten, others) or \
            not np.array_equal(got[~others], want[~others]):
        return
    last = min(2 * CHUNK, n) - 1
    yield (f"only block 0's chunks of y were written: y[{CHUNK}] to y[{last}] (chunk 1, block 1's) "
           f"and every chunk of the other blocks were never written ({int(others.sum())} of the "
           f"{n:,} elements), as when t is the global thread index: thread 0 of block 1 has t = "
           f"blockIdx.x * blockDim.x + threadIdx.x = {CHUNK}, and t < count (count <= {CHUNK}) is "
           "false for every thread of a block past the first, which stores nothing",
           "t is the thread's place in its chunk, within the block: int t = threadIdx.x; the "
           "block's place is in the chunk it starts from, first = blockIdx.x * CHUNK")


def one_chunk_a_block(n, blocks, unwritten, got, want, looped, step=None):
    """Each block reversed its chunk blockIdx.x alone: chunks 0 to gridDim.x - 1 right, every
    later one never written; ``looped`` says whether the kernel's text has a loop (False: none,
    the tile's reuse removed with the loop; None: its text unread), ``step`` the text of its for
    loop's step (None: none, or unread), named where it counts blockDim.x for gridDim.x."""
    first = blocks * CHUNK
    if first >= n or not unwritten[first:].all() or unwritten[:first].any() or \
            not np.array_equal(got[:first], want[:first]):
        return
    chunks = -(-n // CHUNK)
    left = {1: f"chunk {blocks}", 2: f"chunks {blocks} and {blocks + 1}"}.get(
        chunks - blocks, f"chunks {blocks} to {chunks - 1}")
    why = {False: "your kernel has no loop over chunks: ", True: "its loop ended after one turn: "}
    if looped and step and "blockDim" in step and "gridDim" not in step:
        why[True] = (f"the loop's step, {step}, counts blockDim.x, the threads in a block "
                     f"({CHUNK}), where gridDim.x, the blocks in the grid ({blocks}), belongs: it "
                     f"took first past n = {n:,}, so the loop ended after one turn: ")
    yield (f"{why.get(looped, '')}each block reversed only its chunk blockIdx.x (first = "
           f"blockIdx.x * CHUNK), so with grid = ({blocks}, 1) over {chunks} chunks, {left} "
           f"(y[{first}] to y[{n - 1}], {n - first} elements) were never "
           "written", "a block takes every gridDim.x-th chunk: step the loop over them, first += "
           "gridDim.x * CHUNK" if looped else "a grid may have fewer blocks than chunks: loop over "
           "them, for (int first = blockIdx.x * CHUNK; first < n; first += gridDim.x * CHUNK), "
           "and end the loop's body with a second __syncthreads() (outside the if), so the next "
           "chunk's stores into tile wait until every thread has read this one's")


def count_one_short(n, x, unwritten, got, want):
    """count = min(CHUNK, n - first - 1), n - 1 taken as the last index: every chunk but the last
    right (it has more than CHUNK elements after its start), the last one counted one short, its
    last element y[n - 1] never written and the rest mirrored one short, y[first + t] =
    x[first + count - 1 - t] with count = n - first - 1."""
    first = (n - 1) // CHUNK * CHUNK
    count = n - first - 1
    if np.flatnonzero(unwritten).tolist() != [n - 1] or not np.array_equal(got[:first], want[:first]) or \
            not np.array_equal(got[first:n - 1], x[first:n - 1][::-1]):
        return
    yield (f"the last chunk (first = {first}) has n - first = {n - first} elements, but count was "
           f"{count}, one short, as count = min(CHUNK, n - first - 1) gives (n is the count of "
           f"elements, not the last index): y[{n - 1}], its last element, was never written, and "
           f"the rest was mirrored one short, y[{first} + t] = x[{first} + {count - 1} - t], where "
           f"x[{first} + {count} - t] belongs",
           "the chunk's elements run from first to n - 1, n - first of them: int count = "
           "min(CHUNK, n - first)")


def load_times_chunk(observed, kernels):
    """(problem, hint) for a read past x at the load by thread t of block b (the simulator's
    error, by its fields) whose index in the learner's line is first * CHUNK + t: first, the
    chunk's first element (b * CHUNK in the block's first chunk), taken as its number."""
    import re

    from helpers.exercises.unset import line_text

    err, launch = observed.error, observed.launch
    if getattr(err, "kind", None) != "out of bounds" or err.is_write is not False or \
            not err.line or not err.block or not err.thread:
        return None
    file, number = err.line.rsplit(":", 1)
    text = line_text(kernels, number, file) or ""
    read = re.search(r"\bx\s*\[([^\]]*)\]", text.split("//")[0])
    index = re.sub(r"\s", "", read.group(1)) if read else ""
    n, b, t = int(launch.args[-1]), err.block[0], err.thread[0]
    first = b * CHUNK
    if index not in ("first*CHUNK+t", "CHUNK*first+t", "t+first*CHUNK", "t+CHUNK*first") or \
            first >= n or first * CHUNK + t < n:
        return None
    return (f"thread {t} of block {b} read x[{first * CHUNK + t}], past the end of x (n = {n}): "
            f"the load's index, {' '.join(read.group(1).split())}, multiplies first = {first} by "
            "CHUNK, but first already counts elements (it starts at blockIdx.x * CHUNK, the "
            "chunk's first element, not its number), so CHUNK is applied twice",
            "first is the chunk's first element: the load reads x[first + t], as the store "
            "writes y[first + t]")


def load_past_count(kept, n, blocks):
    """(problem, hint) where, in a trace of ``blocks`` blocks over ``n`` elements with junk after
    x (``kept``: its accesses), the threads t >= count of the last, partial chunk, and those
    alone, loaded x[first + t] past n, every store into y below n: the load guarded by the
    tile's size (t < CHUNK), or not at all, where t < count belongs. None otherwise."""
    if kept is None or not len(kept) or not n % CHUNK:
        return None
    first, count = n - n % CHUNK, n % CHUNK
    b = first // CHUNK % blocks
    reads = kept[(kept["array"] == "x") & ~kept["write"] & (kept["index"] >= n)]
    stores = kept[(kept["array"] == "y") & kept["write"]]
    if not len(reads) or (stores["index"] >= n).any() or (reads["block"] != b).any() or \
            sorted(reads["thread"].tolist()) != list(range(count, CHUNK)) or \
            (reads["index"] != first + reads["thread"]).any():
        return None
    return (f"in the last, partial chunk (first = {first}, count = {count}, n = {n}) threads t = "
            f"{count} to {CHUNK - 1}, past count, loaded x[{n}] to x[{first + CHUNK - 1}], past "
            f"the end of x (block {b}, in a launch of {blocks} blocks over {n} elements): the load "
            "is not held to the chunk's elements, t < count (CHUNK is the tile's size, count the "
            "elements this chunk has)", "guard the load with the chunk's count, as the store is: "
            "if (t < count) tile[t] = x[first + t];")


def lane_as_place(kept, lanes=32):
    """(problem, hint) where, in a trace of one chunk a block (``kept``: its accesses), every
    thread loaded x[first + threadIdx.x % 32] into tile[threadIdx.x % 32], with threads past the
    first warp: t, the thread's place in the chunk, taken as its lane. None otherwise."""
    if kept is None or not len(kept):
        return None
    stores = kept[(kept["array"] == "tile") & kept["write"]]
    loads = kept[(kept["array"] == "x") & ~kept["write"]]
    if not len(stores) or not len(loads) or (stores["thread"] < lanes).all() or \
            (stores["index"] != stores["thread"] % lanes).any() or \
            (loads["index"] != loads["block"] * CHUNK + loads["thread"] % lanes).any():
        return None
    sharing = sorted(set(stores[(stores["block"] == 0) & (stores["index"] == 0)]["thread"].tolist()))
    return (f"threads {', '.join(map(str, sharing[:3]))}, ..., {sharing[-1]} of block 0 all "
            f"loaded x[0] into tile[0] (the race check: a write-after-write hazard on tile[0]): "
            f"t = threadIdx.x % {lanes}, the thread's lane, repeats every {lanes} threads, so "
            f"only tile[0] to tile[{lanes - 1}] were loaded, each by {len(sharing)} threads, and "
            f"tile[{lanes}] to tile[{CHUNK - 1}] were never loaded, though y[first + t] = "
            "tile[count - 1 - t] reads them", "t is the thread's place in the whole block, 0 to "
            f"{CHUNK - 1}, one thread an element of the chunk: int t = threadIdx.x; "
            f"(threadIdx.x % {lanes} is the lane, the same for threads {lanes} apart)")


def mirror_one_past(failure):
    """Thread 0 read tile[CHUNK] in a whole chunk of its block: the mirror tile[count - t], one
    past count - 1 - t (the error's fields: the thread, the element, a read; n from the launch)."""
    err, args = failure.error, getattr(failure.launch, "args", None)
    if not args or err.element != CHUNK or getattr(err, "is_write", None) is True or \
            tuple(err.thread or (0,))[0] != 0:
        return
    n, blocks, b = int(args[-1]), tuple(failure.launch.grid)[0], tuple(err.block or (0,))[0]
    if any(n - f >= CHUNK for f in range(b * CHUNK, n, blocks * CHUNK)):
        yield (f"each chunk is reversed one place off: thread 0 of block {b} read tile[{CHUNK}], "
               f"one past the tile's last entry tile[{CHUNK - 1}], for the store into y: in a "
               f"whole chunk (count = {CHUNK}) tile[count - t] is one past thread t's mirror, "
               "count - 1 - t", "the chunk's last element is tile[count - 1]: thread t reads "
               "tile[count - 1 - t], y[first + t] = tile[count - 1 - t];")


def store_unguarded(failure):
    """Thread t >= count of a partial chunk indexed the tile at count - 1 - t < 0: the store
    into y lost its guard (the error's fields: the block, the thread, the element)."""
    err, args = failure.error, getattr(failure.launch, "args", None)
    if not args or err.element is None or err.element >= 0:
        return
    n, blocks = int(args[-1]), tuple(failure.launch.grid)[0]
    b, t = tuple(err.block or (0,))[0], tuple(err.thread or (0,))[0]
    firsts = [f for f in range(b * CHUNK, n, blocks * CHUNK)
              if t >= n - f and min(CHUNK, n - f) - 1 - t == err.element]
    if firsts:
        first, count = firsts[0], n - firsts[0]
        yield (f"thread {t} of block {b} read tile[{err.element}], before its start, for the store "
               f"into y: in the last, partial chunk (first = {first}, count = {count}, n = {n}) the "
               f"threads t >= count have no element, yet went on to y[first + t] = tile[count - 1 "
               f"- t] (y[{first + t}], past n, from tile[{count - 1 - t}]): the store into y has no "
               "t < count guard", "guard the store as the load is guarded: if (t < count) y[first + t] = "
               "tile[count - 1 - t];")


def private_tile(seen):
    """(problem, hint) for a wrong y from a launch that touched no shared memory: the tile is
    each thread's own array, so thread t reads an element that only it could have stored, and
    it stored tile[t] alone (the simulator twin's counts of shared loads and stores)."""
    stats, x = seen.stats, seen.launch.model
    if stats is None or stats.shared_ld.requests or stats.shared_st.requests:
        return None
    want = np.concatenate([x[f:f + CHUNK][::-1] for f in range(0, x.size, CHUNK)])
    if np.array_equal(seen.outs[0].got, want):
        return None
    return ("y is wrong and the kernel made no access to shared memory: the tile is not "
            "__shared__, so each thread has its own tile[], and thread t reads tile[count - 1 - "
            "t], an element of its own tile that it never stored (thread count - 1 - t stored "
            "it, into its own)", "one tile for the whole block: __shared__ float tile[CHUNK]; "
            "then a __syncthreads() after the stores, and another at the end of the loop's "
            "body, before the next chunk's stores")
