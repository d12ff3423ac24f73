"""Checker for the second bug hunt of notebook 09 (``cuda_src/exercises/reverse_chunks.cu``).

The kernel under test::

    __global__ void reverse_chunks(const float *x, float *y, int n)

reverses each chunk of 256 elements of x into y through a shared tile, a block taking every
gridDim.x-th chunk (block = (256, 1, 1)). As shipped it lacks the barrier at the end of the
loop's body: a thread stores the next chunk's tile[t] before its partner has read this chunk's.

Before the cases, the planted bug is looked for on the simulator, race-checked, over 4 chunks (the
last partial): with 4 blocks, one chunk a block, where the planted bug cannot show (a failure
there is another mistake: the first barrier gone, a barrier inside the if), then with 2 blocks,
where a race on tile is the planted bug, named with what the race check said, unless 3 blocks
over 6 chunks, where a block's chunks are odd and even in turn, race-check clean: then two tiles
were picked by the chunk's parity, which an even grid keeps (``_tiles_by_parity``). Then the cases run
on the chosen backend, with grids smaller than the chunks and a partial last chunk, y poisoned
and guarded, a wrong y matched with the usual mistakes (no reversal, the whole array reversed,
the reversal shifted by one); after them, the 4-block launch once more, x allocated to the byte.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.barrier_if import after_the_cases
from helpers.exercises.common import Input, Output
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import (accesses_of, kernel_words, observe, observed_mistakes,
                                          source_line)
from helpers.exercises.reverse_chunks_models import (CHUNK, count_one_short, count_without_first,
                                                     global_thread_index, lane_as_place,
                                                     last_as_whole, load_past_count, load_times_chunk,
                                                     mirror_one_past, one_chunk_a_block,
                                                     partial_chunk_left_out,
                                                     private_tile, store_unguarded)
from helpers.exercises.verdict import not_yet
from helpers.exercises.failure import line_number

ALONE, PROBE = (1000, 4), (1000, 2)  # (n, blocks): 4 chunks, one a block, then two a block
ODD = (1436, 3)  # 6 chunks, two a block, one odd and one even (tiles by the chunk's parity pass)
CASES = [(1000, 2), (3000, 3), (200, 1), (5000, 8)]  # (n, blocks)


def _draw(rng):
    """The grader's cases: a few chunks a block, the last one partial."""
    return [(awkward(rng, CHUNK, CHUNK + 1, 12 * CHUNK), int(rng.integers(1, 4)))]


def _where(case):
    return f"n = {case[0]:,}, block = ({CHUNK}, 1, 1), grid = ({case[1]}, 1)"


def _launch(case, slack=64):
    """x with ``slack`` elements of junk after it (none: a read past n faults on the simulator)."""
    n, blocks = case
    x = np.random.default_rng(n).uniform(-1, 1, n).astype(np.float32)
    return Launch((Input(x, slack, np.float32(1000.0)), Output(n), np.int32(n)),
                  block=(CHUNK, 1, 1), grid=(blocks, 1), model=x)


def _refine(failure):
    """Two blocks storing one element of y: they took the same chunks (the loop's step); an
    index past the tile that is count - 1 - t with count = n - first, not capped at CHUNK."""
    if failure.between == "blocks" and failure.error.array == "y":
        yield from _every_block_from_chunk_0(failure.error)
        yield ("two blocks reversed the same chunk: a block takes every gridDim.x-th chunk, so "
               "the loop steps over the other blocks' chunks: first += gridDim.x * CHUNK")
    if failure.kind == "array bounds":
        yield from _count_not_capped(failure)
        yield from store_unguarded(failure)
        yield from mirror_one_past(failure)
    if failure.kind == "divergent barrier":
        yield from _split_at_barriers(failure)


def _every_block_from_chunk_0(err):
    """Two blocks storing into chunk 0, which only block 0 takes: every block's loop started at
    first = 0, without blockIdx.x * CHUNK (the step, gridDim.x * CHUNK, then keeps them together)."""
    if not 0 <= err.element < CHUNK:
        return
    a, b = sorted((err.first.block[0], err.second.block[0]))
    yield (f"block {a} and block {b} both reversed chunk 0: thread {err.first.thread[0]} of block "
           f"{err.first.block[0]} and thread {err.second.thread[0]} of block {err.second.block[0]} "
           f"both stored y[{err.element}] (the race check: a {err.hazard} hazard, and "
           f"{err.count - 1} more), where chunk 0 is block 0's alone: every block's loop started "
           "at first = 0, so all the blocks took the same chunks (0, gridDim.x, 2 gridDim.x and on)",
           "start each block at its own chunk, and step over the others' with gridDim.x * CHUNK: "
           "for (int first = blockIdx.x * CHUNK; first < n; first += gridDim.x * CHUNK)")


def _split_at_barriers(failure):
    """Threads of one block waiting at two different __syncthreads(): the first threads (before
    ``thread``, run in order) at ``barrier``, ``thread`` at ``line`` (the error's fields), the
    block split where a chunk's count or a warp ends."""
    err, launch = failure.error, failure.launch
    args = getattr(launch, "args", None)
    other = getattr(err, "barrier", None)
    if not other or not err.line or not err.thread or not err.block or not args:
        return
    n, blocks = int(args[-1]), tuple(launch.grid)[0]
    b, t = err.block[0], err.thread[0]
    lines = [f"line {where.rsplit(':', 1)[-1]}" for where in (other, err.line)]
    counts = [min(CHUNK, n - f) for f in range(b * CHUNK, n, blocks * CHUNK)]
    if t in counts and t < CHUNK:
        split, cond = (f"in block {b}'s last, partial chunk count = {t} (n = {n}), and the threads "
                       "with t < count took another way than those with t >= count"), "t < count"
    else:
        first = {1: "thread 0", 32: "the first warp (t < 32)"}.get(t, f"threads t < {t}")
        split, cond = f"{first} took another way than the others", \
            "t == 0" if t == 1 else f"t < {t}"
    who = "thread 0 of block {} waits" if t == 1 else f"threads 0 to {t - 1} of block {{}} wait"
    yield (f"{who.format(b)} at the __syncthreads() at {lines[0]}, and "
           f"thread {t} at the one at {lines[1]}: {split}, so one of the two barriers lies "
           f"inside an if on {cond}, which only some of the block's threads enter",
           "every thread of the block must reach each __syncthreads() (a barrier waits for the "
           "whole block, not a warp): take it out of the if, and guard only the load and the "
           "store with if (t < count)")


def _count_not_capped(failure):
    """Thread t of block b indexed the tile at n - first - 1 - t >= CHUNK for one of the block's
    chunks (its fields: the block, the thread, the element; n and the grid from the launch)."""
    err, launch = failure.error, failure.launch
    args = getattr(launch, "args", None)
    element = err.element
    if not args or element is None or element < CHUNK:
        return
    n, blocks = int(args[-1]), tuple(launch.grid)[0]
    b, t = tuple(err.block or (0,))[0], tuple(err.thread or (0,))[0]
    firsts = [f for f in range(b * CHUNK, n, blocks * CHUNK) if n - f - 1 - t == element]
    if firsts:
        yield (f"thread {t} of block {b} indexed tile[{element}], past its {CHUNK} entries: "
               f"count - 1 - t with count = n - first = {n} - {firsts[0]}, the rest of the array, "
               f"where a chunk has at most {CHUNK} elements (n = {n})",
               "cap the chunk's count at the tile's size: count = min(CHUNK, n - first)")


def planted_bug(kernels):
    """NOT YET while the planted bug is there (or another failure showed while looking for it);
    None when the race check finds nothing."""
    alone = observe(kernels, _launch(ALONE), key="alone", accesses=8 * ALONE[0])
    mistake = load_times_chunk(alone, kernels) or _lane_as_place(kernels, alone) \
        or next(observed_mistakes(alone, _refine), None) or load_past_count(alone.accesses, *ALONE)
    if mistake:
        return not_yet(*mistake)
    seen = observe(kernels, _launch(PROBE), key="probe")
    if seen.race is not None and seen.race.space == "shared":
        parity = _tiles_by_parity(kernels, seen.race)
        after = None if parity else _barrier_after_the_loop(kernels)
        warp = None if parity or after is not None else _syncwarp_in_the_loop(kernels)
        first, second = (access.thread[0] // 32 for access in (seen.race.first, seen.race.second))
        if warp is not None and first != second:
            return not_yet(
                f"the __syncwarp() at the end of the loop's body, at line {warp}, waits only for "
                "the 32 threads of its own warp, not for the block: a thread of another warp may "
                "still be reading this chunk's tile when a thread stores the next chunk's; with "
                f"{PROBE[1]} blocks over 4 chunks the race check says: {seen.race.summary}",
                "a barrier for the whole block: __syncthreads() in the __syncwarp()'s place, at "
                "the end of the loop's body, where every thread of the block reaches it (outside "
                "the if)")
        if after is not None:
            return not_yet(
                f"the planted bug is still there: the __syncthreads() after the loop, at line "
                f"{after}, runs once, when the block has done all its chunks, so between one "
                "chunk's reads of the tile and the next chunk's stores into it there is still no "
                f"barrier: with {PROBE[1]} blocks over 4 chunks the race check says: "
                f"{seen.race.summary}",
                "move that __syncthreads() into the loop, at the end of the loop's body, before "
                "its closing brace (and outside the if), so that every thread has read this "
                "chunk's tile before any thread stores the next one's")
        found = parity or _barrier_twice(kernels, seen.race)
        return not_yet(*found) if found else not_yet(
            f"the planted bug is still there: with {PROBE[1]} blocks over 4 chunks the race "
            f"check says: {seen.race.summary}",
            "the tile is used again for the next chunk: thread t stores its next tile[t] while "
            "its partner may still be reading this one. A __syncthreads() at the end of the "
            "loop's body, where every thread of the block reaches it (outside the if)")
    mistake = next(observed_mistakes(seen, _refine), None) or private_tile(seen)
    return None if mistake is None else not_yet(*mistake)


def _lane_as_place(kernels, alone):
    """``lane_as_place`` in a trace of the one-chunk-a-block launch, where its race check found
    two threads storing one element of the tile."""
    race = alone.race
    if race is None or race.space != "shared" or race.first.block != race.second.block:
        return None
    return lane_as_place(accesses_of(kernels, _launch(ALONE), "lanes", 8 * ALONE[0]))


def _loop_text(kernels):
    """(source, tokens, words, the loop's body from its first token to its last, the kernel's
    body's end) of the simulated twin's source, as its module was compiled (its ``#line``
    directives count); None where it has no loop or cannot be read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, body_end = text
    try:
        loop = words.index("for", body, body_end)
        after = closing(tokens, loop + 1) + 1
        end = closing(tokens, after) if words[after] == "{" else words.index(";", after)
        return source, tokens, words, (after, end), body_end
    except (Unreadable, ValueError, IndexError):
        return None


def _barrier_after_the_loop(kernels):
    """The line of the first ``__syncthreads();`` that follows the kernel's loop in its text,
    within the kernel's body; None where there is none, or the text cannot be read."""
    if (text := _loop_text(kernels)) is None or "__syncthreads" not in text[2][text[3][1]:text[4]]:
        return None
    source, tokens, words, (_, end), last = text
    return source_line(source, tokens[words.index("__syncthreads", end, last)].start)


def _syncwarp_in_the_loop(kernels):
    """The line of the last ``__syncwarp`` in the loop's body (where the fix's __syncthreads()
    belongs), with no __syncthreads after it there; None where there is none."""
    if (text := _loop_text(kernels)) is None:
        return None
    source, tokens, words, (start, end), _ = text
    places = [i for i in range(start, end) if words[i] == "__syncwarp"]
    if not places or "__syncthreads" in words[places[-1]:end]:
        return None
    return source_line(source, tokens[places[-1]].start)


def _back_to_back(kernels):
    """(the first's line, the second's) of two __syncthreads() in a row in the loop's body, with
    nothing between them; None where there are none, or the text cannot be read."""
    if (text := _loop_text(kernels)) is None:
        return None
    source, tokens, words, (start, end), _ = text
    pair = next((i for i in range(start, end - 4) if words[i:i + 5] ==
                 ["__syncthreads", "(", ")", ";", "__syncthreads"]), None)
    return None if pair is None else \
        tuple(source_line(source, tokens[i].start) for i in (pair, pair + 4))


def _barrier_twice(kernels, race):
    """(problem, hint) where the planted race's store lies above two __syncthreads() in a row in
    the loop's body (``_back_to_back``) and its read below them: the next turn's store against
    this turn's read, which the second barrier, right after the first, leaves apart as before."""
    if (pair := _back_to_back(kernels)) is None:
        return None
    line = {a: line_number(a.line) for a in (race.first, race.second)}
    store = next((a for a in line if a.writes and line[a] < pair[0]), None)
    read = next((a for a in line if a.reads and line[a] > pair[1]), None)
    if store is None or read is None:
        return None
    more = f" ({race.count - 1} more hazards)" if race.count > 1 else ""
    return (f"the planted bug is still there: the __syncthreads() at line {pair[1]} comes right "
            f"after the one at line {pair[0]}, with nothing between them, so it orders nothing "
            "the first does not: both stand between a chunk's stores into the tile and its "
            "reads, and nothing between this chunk's reads and the next chunk's stores. With "
            f"{PROBE[1]} blocks over 4 chunks the race check finds thread {store.thread[0]} of "
            f"block {store.block[0]} storing {race.array}[{race.element}] for the next chunk at "
            f"line {line[store]} while thread {read.thread[0]} of block {read.block[0]} is still "
            f"reading it for this chunk at line {line[read]}{more}",
            "move the second __syncthreads() to the end of the loop's body, after the store into "
            "y (and outside the if), so that every thread has read this chunk's tile before any "
            "thread stores the next one's")


def _tiles_by_parity(kernels, race):
    """(problem, hint) where the race on the tile shows with an even grid (``PROBE``) and not
    with an odd one (``ODD``): two tiles picked by the chunk's number, odd or even, which
    alternates along a block's chunks b, b + gridDim.x, ... only when gridDim.x is odd."""
    odd = observe(kernels, _launch(ODD), key="odd grid")
    if odd.error is not None or PROBE[1] % 2:
        return None
    b = race.block[0] if race.block else 0
    chunks = list(range(b, -(-PROBE[0] // CHUNK), PROBE[1]))
    named = ", ".join(map(str, chunks[:-1])) + f" and {chunks[-1]}"
    tiles = race.array or "tiles"
    return (f"the two tiles do not alternate whatever the grid: with {PROBE[1]} blocks the race "
            f"check still finds a race on {race.place} in block {b}, whose chunks {named} are "
            f"{'both' if len(chunks) == 2 else 'all'} {'odd' if b % 2 else 'even'}, so they share "
            f"one tile; with {ODD[1]} blocks, where a block's chunks are odd and even in turn, it "
            "finds none: the tile was picked by the chunk's number, odd or even, not by the "
            "loop's turn", "switch tiles at every turn of the loop, whatever gridDim.x is: int "
            f"turn = 0 before the loop, {tiles}[turn] in its body, turn ^= 1 at its end (or one "
            "tile, and a __syncthreads() at the end of the loop's body, outside the if)")


def _reads_past_n(kernels, passed):
    """After the cases: the first launch once more, x allocated to the byte, so that a read past
    n whose value goes nowhere (a load guarded by t <= count) faults on the simulator."""
    seen = observe(kernels, _launch(ALONE, slack=0), key="exact")
    mistake = next(observed_mistakes(seen, _refine), None)
    return passed if mistake is None else not_yet(*mistake)


def _mirrored_twice(kernels):
    """y is x: a trace of the ``ALONE`` launch (one chunk a block, first = b * CHUNK) on the
    simulator shows every thread t reading tile[count - 1 - t] and storing at y[first + count -
    1 - t], the mirror in the read and in the store, each undoing the other."""
    n, blocks = ALONE
    kept = accesses_of(kernels, _launch(ALONE, slack=0), "mirrored twice", 8 * n)
    if kept is None or not kept.size:
        return
    first = kept["block"].astype(np.int64) * CHUNK
    t = kept["thread"].astype(np.int64)
    mirror = np.minimum(CHUNK, n - first) - 1 - t
    reads = (kept["array"] == "tile") & ~kept["write"]
    stores = (kept["array"] == "y") & kept["write"]
    if not reads.any() or not stores.any() or \
            not (kept["index"][reads] == mirror[reads]).all() or \
            not (kept["index"][stores] == (first + mirror)[stores]).all():
        return
    b, j = 1, 3
    count = min(CHUNK, n - b * CHUNK)
    yield (f"y is a copy of x: the mirror, count - 1 - t, was applied twice, in the read of tile "
           f"and in the store into y, and each undoes the other (in a trace of {blocks} blocks over "
           f"{n} elements, one chunk each: thread {j} of block {b} (first = {b * CHUNK}, count = {count}) read "
           f"tile[{count - 1 - j}] and stored it at y[{b * CHUNK + count - 1 - j}], where "
           f"thread {count - 1 - j} had loaded x[{b * CHUNK + count - 1 - j}])",
           "mirror one side only: y[first + t] = tile[count - 1 - t]")


def _loop_step(kernels):
    """The text of the kernel's for loop's step (its header's last clause, one space between
    its words); None where it has no for loop or its text cannot be read."""
    if (text := _loop_text(kernels)) is None:
        return None
    source, tokens, words, (after, _), _ = text
    semi = next(i for i in range(after - 2, 0, -1) if words[i] == ";")
    return " ".join(source[tokens[semi + 1].start:tokens[after - 2].end].split())


def _looped(kernels):
    """Whether the kernel's body has a loop (for, while); None where its text cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    _, _, words, body, end = text
    return bool({"for", "while"} & set(words[body:end]))


def _mistakes(case, run):
    """The mistakes one launch on the chosen backend shows."""
    n, blocks = case
    x, got = run.model, run.out.got
    yield from count_without_first(n, x, run.out, lambda: observe(
        run.kernel, _launch(ALONE), key="alone", accesses=8 * ALONE[0]))
    if run.out.past.size:
        yield (f"y was written past its end (y[{n}] and on)",
               "in the last, partial chunk only the threads with t < count store")
    want = np.concatenate([x[f:f + CHUNK][::-1] for f in range(0, n, CHUNK)])
    if run.out.unwritten.any():
        yield from partial_chunk_left_out(n, run.out.unwritten, got, want)
        yield from count_one_short(n, x, run.out.unwritten, got, want)
        yield from global_thread_index(n, blocks, run.out.unwritten, got, want)
        yield from one_chunk_a_block(n, blocks, run.out.unwritten, got, want, _looped(run.kernel),
                                     _loop_step(run.kernel))
        yield (f"{int(run.out.unwritten.sum())} of the {n:,} elements of y were never written "
               f"(the first is y[{int(np.argmax(run.out.unwritten))}])",
               "a block takes every gridDim.x-th chunk: first += gridDim.x * CHUNK")
    if np.array_equal(got, want):
        return
    if np.array_equal(got, x):
        yield from _mirrored_twice(run.kernel)
    for wrong, problem, hint in (
            (x, "y is a copy of x: no chunk was reversed",
             "thread t stores y[first + t] = tile[count - 1 - t]"),
            (x[::-1], "the whole array was reversed, not each chunk of 256",
             "reverse within the chunk: tile[count - 1 - t], count the chunk's elements")):
        if np.array_equal(got, wrong):
            yield problem, hint
    if all(np.array_equal(got[f + 1:f + CHUNK], want[f:min(f + CHUNK, n) - 1])
           for f in range(0, n, CHUNK)):
        yield ("each chunk is reversed one place off (y[first + t] holds x[first + count - t])",
               "the chunk's last element is tile[count - 1]: thread t reads tile[count - 1 - t]")
    yield from last_as_whole(n, x, got, want)
    i = int(np.argmax(got != want))
    yield (f"y[{i}] = {got[i]:.6g}, NumPy's is {want[i]:.6g}",
           "y[first + t] = tile[count - 1 - t], with count = min(CHUNK, n - first)")


EXERCISE = KernelExercise(
    stub="exercises/reverse_chunks.cu", kernel="reverse_chunks",
    signature="const float *x, float *y, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    simulated="looks for the planted bug", before=planted_bug,
    after=after_the_cases(ALONE[0], CHUNK, "count", "chunk", "store (and the load)", _reads_past_n),
    crash_hint="read the error: it names the thread and the line",
    success=f"the planted bug is fixed (the race check finds nothing with {PROBE[1]} blocks over "
            f"4 chunks), and y matches NumPy ({len(CASES)} sizes, grids "
            "smaller than the chunks, a partial last chunk)")

check_reverse_chunks = EXERCISE.check_file          # (path="exercises/reverse_chunks.cu")
check_reverse_chunks_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
