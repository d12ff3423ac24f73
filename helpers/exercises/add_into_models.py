"""The models of notebook 02's grid-stride loop (``cuda_src/exercises/add_into.cu``) that
``helpers.exercises.add_into`` compares a kernel's visits with (how many times x[i] was added into
y[i]): loops that start, step or index wrongly, each with its verdict."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import kernel_words, source_line

LOOP_HINT = ("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride), with "
             "stride = gridDim.x * blockDim.x, the number of threads in the grid")


def stepped_too_far(visits, n, threads, kernels=None):
    """A loop that steps by k times the grid's threads, k = 2 to 8: element i added to once where
    i % (k * threads) < threads, else never (k = 4: the stride times sizeof(float), in bytes;
    k = 2 with the for's step written again in its body: ``step_in_body``)."""
    i = np.arange(n)
    for k in range(2, 9):
        if (visits == 0).any() and np.array_equal(visits, (i % (k * threads) < threads)):
            if k == 2 and kernels is not None and (step := step_in_body(kernels)):
                yield (f"{int((visits == 0).sum())} of {n} elements were never added to (the "
                       f"first is y[{threads}]): the loop steps i twice a turn, by the for's "
                       f"{step} and again by the {step}; in its body, so each thread adds only "
                       "every second of its elements", f"remove the {step}; from the loop's "
                       f"body: the for's header already steps i ({LOOP_HINT})")
                return
            bytes_ = (" (4 is sizeof(float): a stride in bytes, as a NumPy stride counts them; "
                      "in C an index counts elements, and the compiler multiplies by the "
                      "element's size itself)") if k == 4 else ""
            yield (f"{int((visits == 0).sum())} of {n} elements were never added to (the first "
                   f"is y[{threads}]): the loop steps by {k * threads}, {k} times the grid's "
                   f"{threads} threads, so each thread adds only every "
                   f"{ {2: 'second', 3: 'third'}.get(k, f'{k}th')} of its elements{bytes_}", "step by the number of threads in the whole grid: "
                   "stride = gridDim.x * blockDim.x, with nothing multiplied")
            return


def overlaps(visits, n, block, blocks, kernels=None):
    """Elements visited more than once, with the loop's step named where a model of it (each
    thread from its global index, stepping by s, for every s below the grid's thread count)
    gives the counts exactly; else (on a GPU, threads adding into one element at once lose some
    additions) the model with the fewest visits that covers them. A step of one block where the
    kernel reads gridDim.y or .z, never gridDim.x, is named from its statement
    (``_grid_from_y``)."""
    if not (visits > 1).any():
        return
    first, threads = int(np.argmax(visits > 1)), block * blocks
    models = {s: _stepped(n, threads, s) for s in range(1, threads)}
    exact = [s for s, model in models.items() if np.array_equal(visits, model)]
    covering = [(model.sum(), s) for s, model in models.items() if like(visits, model)]
    step = exact[0] if exact else min(covering)[1] if covering else None
    words = {1: "1 (i++), so each thread walks over the elements of the threads after it too",
             block: "blockDim.x, a block's threads, not the grid's",
             blocks: "gridDim.x, the number of blocks, not of threads"}
    per = n // threads
    words.setdefault(per, f"n / (gridDim.x * blockDim.x) = {per}, the elements per thread, "
                          f"not the grid's thread count ({threads}): thread t adds t, t + {per}, "
                          f"t + {2 * per}, ..., over the elements of the threads after it")
    said = words.get(step, f"{step}, not by the grid's {threads} threads")
    if step == block and (wrote := _grid_from_y(kernels)) is not None:
        yield (f"y[{first}] got x[{first}] added {int(visits[first])} times: threads visit the "
               f"same elements: the stride {wrote[0]} at line {wrote[1]} takes gridDim."
               f"{wrote[2]}, which is 1 in a 1-D grid ({blocks}, 1), where gridDim.x belongs: the "
               f"loop steps by one block, {block} threads, not the grid's {threads}",
               f"step by the number of threads in the whole grid, gridDim.x * blockDim.x, not "
               f"gridDim.{wrote[2]}")
    yield (f"y[{first}] got x[{first}] added {int(visits[first])} times: threads visit the same "
           "elements" + (f": the loop steps by {said}" if step else ""),
           "step by the number of threads in the whole grid, gridDim.x * blockDim.x"
           + (": the loop's step is how far apart a thread's elements lie, not how many it "
              "gets" if step == per else ""))


def _grid_from_y(kernels):
    """(the statement, its line, the field) of the kernel's first statement that reads
    gridDim.y or gridDim.z, where its body reads no gridDim.x (its simulated twin's source); None
    where there is none or the text cannot be read."""
    if kernels is None or (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    at = [k for k in range(body, end - 2) if words[k:k + 2] == ["gridDim", "."]]
    if not at or "x" in (words[k + 2] for k in at):
        return None
    first = max(j for j in range(body, at[0]) if words[j] in ("{", "}", ";", "(")) + 1
    last, depth = at[0], 0
    while last < end and words[last] != ";" and depth >= 0:
        last += 1
        depth += (words[last] == "(") - (words[last] == ")")
    last -= words[last] == ")"
    return (source[tokens[first].start:tokens[last].end],
            source_line(source, tokens[first].start), words[at[0] + 2])


def _stepped(n, threads, step):
    """How many times each element is visited by threads 0 to threads - 1 that each start at
    their global index and step by ``step``: the threads t <= i with (i - t) % step == 0."""
    i = np.arange(n)
    return ((np.minimum(i, threads - 1) - i % step) // step + 1).astype(float)


def body_indexes_the_start(visits, n, threads):
    """A loop that steps its own variable while its body adds into y[i], the thread's start:
    element i < threads is visited once a pass, ceil((n - i) / threads) times, the rest never."""
    own = np.arange(n)
    if (visits > 1).any() and np.array_equal(visits, np.where(
            own < threads, -(-(n - own) // threads), 0)):
        yield (f"only the first {threads} elements were added to, each once a pass of its "
               "thread's loop: the loop steps one variable and the body indexes another, the "
               "thread's start i", "index with the loop's own variable: "
               + LOOP_HINT + ", and y[i] += x[i] in its body")


STARTS = [(lambda b, t, block, blocks: 0, "0 for every thread"),
           (lambda b, t, block, blocks: b * block * blocks + t, "blockIdx.x * stride + "
            "threadIdx.x: blockIdx.x is multiplied by the stride, the grid's threads, not by "
            "blockDim.x, a block's threads"),
           (lambda b, t, block, blocks: t, "threadIdx.x: every block starts at element 0"),
           (lambda b, t, block, blocks: b * block, "blockIdx.x * blockDim.x, without "
            "threadIdx.x: every thread of a block starts at the block's first element"),
           (lambda b, t, block, blocks: b + t, "blockIdx.x + threadIdx.x: blockIdx.x is not "
            "multiplied by blockDim.x"),
           (lambda b, t, block, blocks: b * blocks + t, "blockIdx.x * gridDim.x + threadIdx.x: "
            "blockIdx.x is multiplied by the number of blocks, not by blockDim.x, a block's "
            "threads"),
           (lambda b, t, block, blocks: t * block + b, "threadIdx.x * blockDim.x + blockIdx.x: "
            "blockIdx.x and threadIdx.x swapped places"),
           (lambda b, t, block, blocks: b * (block + t), "blockIdx.x * (blockDim.x + "
            "threadIdx.x): the parentheses make blockIdx.x multiply threadIdx.x too, so every "
            "thread of block 0 starts at element 0", "multiply first, then add threadIdx.x: i = "
            "blockIdx.x * blockDim.x + threadIdx.x, with no parentheses, the thread's global "
            "index (the stride is right)")]
"""(a wrong loop's start from block b and thread t of a grid of blocks of block threads, the words
for it[, the hint, where it is not START_HINT])"""

START_HINT = ("the stride is right; start at i = blockIdx.x * blockDim.x + threadIdx.x, the "
              "thread's global index")


def wrong_start(run, visits, n, block, blocks):
    """A loop that steps by the grid's threads from a wrong start (``STARTS``): the first whose
    visits the output shows (``like``); where several do (on a GPU, blocks adding into one
    element at once lose additions), the one whose starts each thread's first store, in a trace
    of the launch on the simulator, shows."""
    found = [(start, problem, *first) for start, problem, *first in STARTS
             if like(visits, visits_of(n, block, blocks, start))]
    if len(found) > 1:
        firsts = _first_stores(run, block, blocks, 3 * n)
        found = [f for f in found if firsts is None or all(
            f[0](b, t, block, blocks) == e for (b, t), e in firsts.items())] or found
    for start, problem, *hint in found[:1]:
        yield (f"the loop starts at {problem}{_first_wrong(start, block, blocks)}, so the "
               "threads' walks overlap", (hint or [START_HINT])[0])


def _first_wrong(start, block, blocks):
    """Where a wrong start shows: block 1's first element, or else the first thread of the grid
    whose start is not its global index."""
    if blocks > 1 and start(1, 0, block, blocks) != block:
        return f" (block 1 starts at element {start(1, 0, block, blocks)}, not {block})"
    wrong = [(b, t) for b in range(blocks) for t in range(block)
             if start(b, t, block, blocks) != b * block + t]
    return "".join(f" (thread {t} of block {b} starts at element {start(b, t, block, blocks)}, "
                   f"not {b * block + t})" for b, t in wrong[:1])


def started_late(run, visits, n, block, blocks):
    """y[0] to y[k - 1] never added to, every other element once, and each thread's first store
    (a trace of the launch on the simulator) at its global index + k: the loop starts k elements
    late (threads counted from 1: + 1)."""
    threads = block * blocks
    k = int(np.argmax(visits != 0))
    if not 0 < k < threads or not np.array_equal(visits, np.arange(n) >= k):
        return
    firsts = _first_stores(run, block, blocks, 3 * n)
    if firsts is None or any(e != b * block + t + k for (b, t), e in firsts.items()):
        return
    left = "y[0] was" if k == 1 else f"y[0] to y[{k - 1}] were"
    late = "one element" if k == 1 else f"{k} elements"
    yield (f"{left} never added to, every other element once: the loop starts {late} late, at "
           f"blockIdx.x * blockDim.x + threadIdx.x + {k} (thread 0 of block 0 first added into "
           f"y[{k}], not y[0]" + (f", thread 0 of block 1 into y[{block + k}], not y[{block}]"
                                 if blocks > 1 else "") + "): threads count from 0, and thread "
           "0's own element is y[0]", "start at the thread's global index with nothing added: "
           "i = blockIdx.x * blockDim.x + threadIdx.x (the stride and the test i < n are right)")


def block_stride(run, visits, n, block, blocks):
    """Every element added to gridDim.x times, once by each block, and each thread's first store
    (a trace of the launch on the simulator) at its threadIdx.x: a block-stride loop, which starts
    at threadIdx.x and steps by blockDim.x, so every block walks all n elements."""
    if blocks < 2 or not (visits == blocks).all():
        return
    firsts = _first_stores(run, block, blocks, 3 * blocks * n)
    if firsts is None or len(firsts) != blocks * min(block, n) or \
            any(e != t for (b, t), e in firsts.items()):
        return
    yield (f"each x[i] was added into y[i] {blocks} times, once by each block: the loop starts "
           f"at threadIdx.x and steps by blockDim.x, a block's threads (thread 0 of block 1 "
           f"first added into y[0], not y[{block}]), so every block walks all n elements, as if "
           "it were the whole grid", "start at i = blockIdx.x * blockDim.x + threadIdx.x and step "
           "by stride = gridDim.x * blockDim.x, the number of threads in the grid: both are the "
           "grid's, not the block's")


def first_added_twice(run, visits, n, threads):
    """Each thread's first element, y[0] to y[threads - 1], added twice, every other element once:
    a one-element addition (the stub's if (i < n) y[i] += x[i];) kept beside the loop, whose first
    turn is at the same i; the two lines that added into y[0] from a trace of the launch on the
    simulator."""
    from helpers.exercises.microscope import accesses_of

    if threads >= n or not np.array_equal(visits, 1 + (np.arange(n) < threads)):
        return
    kept = accesses_of(run.kernel, run.launch, f"first twice {run.launch.grid}", 4 * n)
    lines = [] if kept is None else sorted(set(kept["line"][
        kept["write"] & ~kept["shared"] & (kept["array"] == "y") & (kept["index"] == 0)].tolist()))
    at = f" at line {lines[0]} and again at line {lines[1]}" if len(lines) == 2 else " twice"
    yield (f"y[0] to y[{threads - 1}], each thread's first element, got x added twice, every "
           f"other element once: each thread added its first element{at}, once in a one-element "
           "addition beside the loop (the stub's if (i < n) y[i] += x[i];) and once on the "
           "loop's first turn, which starts at the same i; the step is right",
           "remove the one-element if (i < n) y[i] += x[i]; kept from the stub: the loop alone "
           "adds each element once, its first turn included")


def _first_stores(run, block, blocks, accesses):
    """{(block, thread): the element of its first store into y} in a trace of ``run``'s launch on
    the simulator, or None."""
    from helpers.exercises.microscope import accesses_of

    kept = accesses_of(run.kernel, run.launch, f"starts {run.launch.grid}", accesses)
    if kept is None:
        return None
    stores = kept[kept["write"] & ~kept["shared"]]
    firsts = {}
    for b, t, index in zip(stores["block"], stores["thread"], stores["index"]):
        firsts.setdefault((int(b), int(t)), int(index))
    return firsts or None


def visits_of(n, block, blocks, start):
    """How many times each element is visited by a loop that starts at ``start`` and steps by
    the grid's threads."""
    visits = np.zeros(n)
    for b in range(blocks):
        for t in range(block):
            np.add.at(visits, np.arange(start(b, t, block, blocks), n, block * blocks), 1)
    return visits


def like(visits, model) -> bool:
    """The visits a model gives, or fewer where threads added into one element at once (on a GPU
    some of their additions are lost), never none where the model has some."""
    return np.array_equal(visits > 0, model > 0) and bool((visits <= model).all())


def _for_loops(words, body, end):
    """Each for loop of the kernel's words: (the index of its "for", the ranges of its header's
    three parts, the index of the header's closing ")")."""
    for f in range(body + 1, end - 1):
        if words[f] != "for" or words[f + 1] != "(":
            continue
        parts, depth, start = [], 0, f + 2
        for j in range(f + 2, end):
            depth += (words[j] == "(") - (words[j] == ")")
            if depth < 0 or depth == 0 and words[j] == ";":
                parts.append(range(start, j))
                start = j + 1
            if depth < 0:
                break
        if len(parts) == 3:
            yield f, parts, parts[2].stop


def step_in_body(kernels):
    """The text of a for loop's step (i += stride) where the loop's body, a block, steps i again
    by the same statement (or i = i + stride); None where there is none or the text cannot be
    read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for f, parts, close in _for_loops(words, body, end):
        step = [words[j] for j in parts[2]]
        if len(step) < 3 or step[1] != "+=" or close + 1 >= end or words[close + 1] != "{":
            continue
        try:
            last = closing(tokens, close + 1)
        except (Unreadable, ValueError, IndexError):
            continue
        inner = words[close + 2:last]
        again = [step + [";"], [step[0], "=", step[0], "+", *step[2:], ";"]]
        if any(inner[j:j + len(a)] == a for a in again for j in range(len(inner))):
            return source[tokens[parts[2][0]].start:tokens[parts[2][-1]].end]
    return None


def loop_test_against_step(kernels):
    """The text of a for loop's test (its simulated twin's source) that compares the loop's
    variable by < or <= with what its step adds to it, i < stride for i += stride; None where
    there is none or the text cannot be read."""
    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    for f, parts, close in _for_loops(words, body, end):
        if len(parts[1]) < 3 or len(parts[2]) < 3:
            continue
        test, step = [words[j] for j in parts[1]], [words[j] for j in parts[2]]
        if test[1] in ("<", "<=") and step[:2] == [test[0], "+="] and test[2:] == step[2:]:
            return source[tokens[parts[1][0]].start:tokens[parts[1][-1]].end]
    return None


def stopped_a_stride_early(visits, n, threads):
    """Each element below n - stride added to once, the last stride's never: the loop's test
    looks one stride ahead (i + stride < n, or i < n - stride), so each thread stops before its
    last element."""
    if threads >= n or not np.array_equal(visits, np.arange(n) < n - threads):
        return
    yield (f"the last {threads} elements (y[{n - threads}] to y[{n - 1}]), the last one of each "
           f"thread, were never added to: the loop's test looks one stride ahead (i + stride < n, "
           f"with stride = {threads}), so each thread stops before its last element below n",
           "test the element the thread is about to add, not the next one: i < n, as in " + LOOP_HINT)


def _do_while_test(kernels):
    """The text "while (...)" of the kernel body's first do { ... } while (...); (its simulated
    twin's source); None where there is none or the text cannot be read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    try:
        do = words.index("do", body, end)
        after = closing(tokens, do + 1) + 1
        if words[do + 1] != "{" or words[after:after + 2] != ["while", "("]:
            return None
        return source[tokens[after].start:tokens[closing(tokens, after + 1)].end]
    except (Unreadable, ValueError, IndexError):
        return None


def tested_after(kernels, past, right, n, threads):
    """y right below n and y[n] to y[threads - 1] added into, one element for each thread whose
    start is n or more, in a kernel whose loop is a do { ... } while: its body runs once before
    the test, so each thread adds at its start, whatever it is."""
    if threads <= n or not right or not np.array_equal(past, np.arange(n, threads)):
        return
    if (test := _do_while_test(kernels)) is not None:
        yield (f"y[{n}] to y[{threads - 1}] were written, past y[n - 1], each by a thread whose "
               f"start was already n or more (the grid's {threads} threads start at 0 to "
               f"{threads - 1}): do {{ ... }} {test}; runs its body once before its first test, so "
               "every thread added x[i] into y[i] at its start, whatever i was",
               "test i before the first element too: " + LOOP_HINT + " (or while (i < n) { ... }, "
               "which tests before each turn)")


BARRIER_HINT = ("the threads of add_into share nothing, each adding its own elements: remove the "
                "__syncthreads() (a barrier is for threads that share memory, and every thread of "
                "the block must reach each one)")


def after_a_barrier_in_the_loop(n, block, blocks):
    """An ``after`` hook: a passing verdict becomes NOT YET for a __syncthreads() inside a loop
    that the threads of a block go round a different number of times (``barrier_if``'s
    ``barriers_in_thread_loops``), named with the passes of the grid-stride loop over ``n``
    elements on ``blocks`` blocks of ``block`` threads."""
    from helpers.exercises.barrier_if import barriers_in_thread_loops
    from helpers.exercises.verdict import not_yet

    threads = block * blocks
    more, passes = n % threads, n // threads
    split = divmod(more, block)

    def after(kernels, passed):
        if not (found := barriers_in_thread_loops(kernels)):
            return passed
        barrier, loop, varying = found[0]
        who = (f": with n = {n} and {threads} threads in the grid ({blocks} blocks of {block}), "
               f"the threads whose first i is below {more} make {passes + 1} passes, the others "
               f"{passes}, so in the last pass threads 0 to {split[1] - 1} of block {split[0]} "
               f"wait at a barrier that its threads {split[1]} to {block - 1}, out of the loop, "
               "never reach"
               if varying and split[1] else "")
        return not_yet(f"the __syncthreads() at line {barrier} is inside the loop of line {loop}, "
                       f"which the threads of a block go round a different number of times{who}: "
                       "a barrier that only some threads of the block reach, which CUDA leaves "
                       "undefined (a GPU may hang there, or let the others through early; the "
                       "simulator lets a thread that has finished pass, and the sums came out "
                       "right)", BARRIER_HINT)
    return after
