"""Checker for the first exercise of notebook 01: ``cuda_src/exercises/add_constant.cu``.

The kernel ``add_constant(const float *x, float *y, float c)`` must write ``y[i] = x[i] + c``,
launched with one block of exactly n threads (``block = (n, 1, 1)``, ``grid = (1, 1)``): the
smallest kernel, a map, whose one idea is that ``threadIdx.x`` tells a thread its element. The
sizes are not powers of two, each case passes another c (a number in the kernel in place of c
shows); ``y`` is NaN before the launch and followed by a guard zone, and each
case runs once more with y filled with 1000 instead, so that a kernel that reads y shows. The
last case runs on the simulator, race-checked (``helpers.exercises.microscope``), whatever the
backend: a kernel in which every thread does the whole loop writes the right values, but each
element many times; there too, a thread's index declared __shared__ (``add_constant_shared``).
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import near
from helpers.exercises.add_constant_shared import declared_shared
from helpers.exercises.common import Input, Output
from helpers.exercises.float_vectors import groups_without_tail
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import kernel_words, source_line, thread_axes, written_twice
from helpers.exercises.origin import Wrong

# (n, the threads of the one block; c): a middling size, a small odd one, nearly the most a
# block has; last a small one on the simulator, race-checked
CASES = [(200, 10.0), (37, -2.5), (1000, 0.75), (8, 1.5, "observe")]
CS = (-7.5, -2.5, 0.75, 3.25, 10.0, 12.5)
"""The values of c the grader draws from, three different ones."""

SPARE = 64
"""The spare elements before and after x, and before y."""
INDEX_HINT = "i = threadIdx.x: thread number i of the block has element i"


def _draw(rng):
    """The grader's cases: three other sizes a block can have, three other values of c."""
    sizes = int(rng.integers(2, 64)), int(rng.integers(64, 512)), int(rng.integers(512, 1025))
    return list(zip(sizes, (float(c) for c in rng.choice(CS, 3, replace=False)), strict=True))


def _where(case):
    n, c = case[:2]
    return f"with n = {n}, c = {c:g}, block = ({n}, 1, 1), grid = (1, 1)"


def _launch(case):
    """x gets spare elements after n (and before 0) too, so that reading x[i + 1] (or x[i - 1])
    cannot crash; y a guard zone before it as well, so that a write to y[-1] shows."""
    n, c = case[:2]
    x = np.random.default_rng(n).uniform(-10, 10, n).astype(np.float32)
    return Launch((Input(x, after=SPARE, junk=1e6, before=SPARE),
                   Output(n, poisons=(None, 1000.0), held=False, before=SPARE),
                   np.float32(c)), block=(n, 1, 1), grid=(1, 1), model=(x, np.float32(c)))


def _observed(kernels, case):
    yield from declared_shared(kernels)   # the race check's blind spot: a store the compiler drops
    yield from written_twice(kernels, _launch(case), "each thread writes only its own element: "
                         "i = threadIdx.x (thread number i of the block has element i), then "
                         "y[i] = x[i] + c; no loop over all of y")


# What y holds when c is handled wrongly: (y from x and c, the mistake, the hint)
VALUES = [
    (lambda x, c: x, "y equals x: c is not added", "y[i] = x[i] + c"),
    (lambda x, c: np.full_like(x, c), "every element is c: x[i] is not read", "y[i] = x[i] + c"),
    (lambda x, c: x - c, "y = x - c: c is subtracted", "add c: y[i] = x[i] + c"),
    (lambda x, c: x * c, "y = x * c: x is multiplied by c", "add c: y[i] = x[i] + c"),
    (lambda x, c: np.trunc(x) + c, "y = (int)x + c: x[i] was kept in an int, which drops its "
     "fraction (-3.7 becomes -3)",
     "keep the value a float: y[i] = x[i] + c, or float v = x[i]"),
]


def _mistakes(case, run):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    n, _ = case
    (x, c), got, written, want = run.model, run.out.got, ~run.out.unwritten, np.add(*run.model)
    right = np.isclose(got, want, rtol=1e-6, atol=0)
    yield from _shifted_up(n, run.out.past, written, right)
    yield from _past(n, run.out.past, written)
    if run.out.differs:
        yield from _updated_store(run.kernel)
        yield ("y came out different when it held something else before the launch: the kernel "
               "reads y before it stores into y", "compute from x alone: y[i] = x[i] + c")
    if not written.any():
        yield from _compared_not_stored(run.kernel)
        yield "nothing was written: y still holds the NaN it was filled with", \
              "each thread should store its result: y[i] = x[i] + c"
    yield from _only_the_first(run.kernel, n, written)
    if right.all():
        return
    yield from _shifted_down(n, run.out.ahead, written, right)
    yield from _the_last_left_out(run.kernel, n, written, right)
    if n > 1 and written[1:].all() and not written[0]:
        yield ("only y[0], the first element, was never written: a guard that is false for i = 0 "
               "(if (i), or i > 0) leaves thread 0 out; 0 counts as false in an if",
               "thread 0 has element 0 and writes y[0] like every other thread: no guard is "
               "needed here (a guard would be i < n)")
    if n > 2 and written[:2].all() and not written[2:].any():
        yield (f"only y[0] and y[1] were written, of {n}: the threads stopped at i = 2, what "
               "sizeof(x) / sizeof(x[0]) gives in a kernel, where x is a pointer (8 bytes) to "
               "floats (4 bytes each), not the array: a pointer does not know its array's length",
               "the block has exactly n threads, one for each element: no guard is needed here")
    yield from _guard_of_a_number(run.kernel, n, written, right)
    yield from _wrapped(n, written, right)
    if not written.all():
        first = int(np.argmin(written))
        yield (f"{int((~written).sum())} of {n} elements were never written (the first is "
               f"y[{first}])", f"every thread writes its own element: {INDEX_HINT}")
    for model, problem, hint in VALUES:
        if np.allclose(got, model(x, c), rtol=1e-6, atol=0):
            yield from _stored_twice(run.kernel, problem)
            yield problem, hint
    yield from _one_element(x, c, got)
    whole = np.trunc(c)
    if whole != c and np.allclose(got, x + whole, rtol=1e-6, atol=0):
        yield (f"y = x + {whole:g}, but c is {c:g} here: c was cut to a whole number, as an int "
               "drops a number's fraction", "keep c a float: y[i] = x[i] + c, with no int on c")
    added = np.float32(np.round(np.median(got - x), 4))   # a number written in place of c
    if added != c and np.allclose(got, x + added, rtol=1e-6, atol=0):
        yield (f"y = x + {added:g}, but c is {c:g} here: the kernel adds a number of its own",
               "add the parameter: y[i] = x[i] + c (each case passes another c)")
    if np.allclose(got[:-1], want[1:], rtol=1e-6, atol=0):
        yield "y[i] holds x[i + 1] + c: the elements are shifted by one", INDEX_HINT
    yield from near.misses("y", got, want, close=near.within(1e-6, 0), index_hint=INDEX_HINT)
    first = int(np.argmin(right))
    yield Wrong(f"{int((~right).sum())} of {n} elements are wrong (the first is y[{first}] = "
                f"{got[first]}, expected {want[first]})",
                f"each thread computes y[i] = x[i] + c for its own i: {INDEX_HINT}", "y", first)


def _the_last_left_out(kernels, n, written, right):
    """The last elements never written, the others right: a float4 a thread (or a float2), whose
    float4s cover only the first 4 * (n / 4) (``float_vectors``), or a guard one short."""
    if (found := groups_without_tail(kernels, written & right, "y", "written")) is not None:
        problem, name, width = found
        yield problem, ("one element a thread here: the block has one thread for each element, "
                        "so each thread reads and stores one float, y[i] = x[i] + c (a "
                        f"{name} a thread needs n a multiple of {width}, and n / {width} threads)")
    if written[:-1].all() and not written[-1]:
        yield (f"only y[{n - 1}], the last element, was never written: a guard that stops one "
               "short (i < blockDim.x - 1, or i < n - 1) leaves the last thread out",
               "the block has exactly n threads, one for each element, and the last one writes "
               "y[n - 1]: no guard is needed here (a guard would be i < n, not i < n - 1)")


def _stored_twice(kernels, problem):
    """Two stores into the same y[...], one after the other in the kernel's body, neither under
    an if or a loop (the stub's old line left below the new one): the last one stands."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    depth, stores = 0, []
    try:
        for s in range(body + 1, end - 1):
            depth += {"{": 1, "}": -1}.get(words[s], 0)
            if depth or words[s] != "y" or words[s - 1] not in ("{", ";", "}") or \
                    words[s + 1] != "[" or words[(close := closing(tokens, s + 1)) + 1] != "=":
                continue
            stores.append((words[s:close + 1], s, words.index(";", close, end)))
    except (Unreadable, ValueError):
        return
    if len(stores) < 2 or stores[-1][0] != stores[-2][0]:
        return
    (_, a, a_end), (_, b, b_end) = stores[-2:]
    first, last = (source[tokens[s].start:tokens[e].end] for s, e in ((a, a_end), (b, b_end)))
    line = source_line(source, tokens[b].start)
    yield (f"{problem}: {''.join(stores[-1][0])} is stored twice, {first} at line "
           f"{source_line(source, tokens[a].start)}, then {last} at line {line}, which runs "
           "after it and overwrites it", f"delete {last} (line {line}): each thread stores its "
           "element once, y[i] = x[i] + c;")


UPDATES = {"+=": "adds {v} to what {e} held", "-=": "subtracts {v} from what {e} held",
           "*=": "multiplies what {e} held by {v}", "/=": "divides what {e} held by {v}"}
"""The updates of a store that reads its element first, y[i] += ..., with what each does."""


def _updated_store(kernels):
    """A store into y of the kernel's text (its simulated twin's source) that updates the element,
    y[i] += x[i] + c;, where y differed with what it held before the launch: it reads y first."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for s in range(body + 1, end - 1):
        if words[s] != "y" or words[s - 1] not in ("{", ";", "}", ")") or words[s + 1] != "[":
            continue
        try:
            close = closing(tokens, s + 1)
            stop = words.index(";", close, end)
        except (Unreadable, ValueError):
            return
        if (does := UPDATES.get(words[close + 1])) is None or stop <= close + 2:
            continue
        said, value = (source[tokens[a].start:tokens[stop].end] for a in (s, close + 2))
        element = source[tokens[s].start:tokens[close].end]
        yield (f"y came out different when it held something else before the launch: {said} at "
               f"line {source_line(source, tokens[s].start)} "
               f"{does.format(v=value[:-1].strip(), e=element)} before the launch ({words[close + 1]} reads {element} first, and "
               "nothing sets it)", "store with one =: y[i] = x[i] + c;")
        return


def _one_element(x, c, got):
    """Every y[i] the same, x[k] + c for one k: x read at a fixed index (x[0]) where each
    thread's own x[i] belongs."""
    same = np.isclose(x + c, got[0], rtol=1e-6, atol=0)
    if x.size < 2 or not same.any() or not np.allclose(got, got[0], rtol=1e-6, atol=0):
        return
    k = int(np.argmax(same))
    yield (f"every element is y[i] = x[{k}] + c: x was read at x[{k}], the same element for all "
           "threads, where each thread's own x[i] belongs", "read x at the thread's own index too: y[i] = x[i] + c")


def _only_the_first(kernels, n, written):
    """Only y[0] written: every thread's i was 0. Named from the kernel's words where it reads
    threadIdx.y or threadIdx.z and never threadIdx.x: 0 in every thread of a block (n, 1, 1)."""
    if not written[0] or written[1:].any():
        return
    axes = thread_axes(kernels)
    if axes and "x" not in axes:
        yield (f"only y[0] was written: every thread's i was threadIdx.{axes[0]}, which is 0 in "
               f"every thread: the block is 1-D, ({n}, 1, 1), so only threadIdx.x runs from 0 to "
               f"{n - 1}, and threadIdx.y and threadIdx.z are always 0",
               f"i = threadIdx.x, not threadIdx.{axes[0]}: thread number i of the block has "
               "element i")
    yield ("only y[0] was written: every thread used i = 0 (blockIdx.x is 0 too, in a grid of "
           "one block)", INDEX_HINT)


def _compared_not_stored(kernels):
    """A statement of the kernel's text (its simulated twin's source) that compares an element
    with == where it should store into it, y[i] == x[i] + c;: it computes a bool and drops it."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for s in range(body + 1, end - 3):
        if words[s - 1] not in ("{", ";", "}") or words[s + 1] != "[":
            continue
        close = next((j for j in range(s + 2, end) if words[j] in ("]", ";")), end)
        if words[close] != "]" or words[close + 1] != "==":
            continue
        stop = next((j for j in range(close, end) if words[j] == ";"), None)
        if stop is None:
            continue
        said = source[tokens[s].start:tokens[stop].end]
        yield (f"nothing was written: y still holds the NaN it was filled with: {said} compares "
               f"with ==, which gives true or false and stores nothing, so {words[s]} is never "
               "written", "store with one =, == compares: y[i] = x[i] + c;")
        return


def _guard_of_a_number(kernels, n, written, right):
    """A guard that compares the index with a number of the kernel's own (if (i < 256), a block
    size copied from the examples), where the output is its model's: y[0] to y[k - 1] written and
    right, the rest never written, and an if of the kernel's text compares with k (or k - 1)."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    k = int(np.argmin(written))
    if not k or written[k:].any() or not right[:k].all() or \
            (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for s in range(body, end - 1):
        if words[s:s + 2] != ["if", "("]:
            continue
        try:
            close = closing(tokens, s + 1)
        except Unreadable:
            return
        number = next((w for j in range(s + 2, close) if words[j] in ("<", "<=", ">", ">=")
                       for w in (words[j - 1], words[j + 1]) if w in (str(k), str(k - 1))), None)
        if number is None:
            continue
        said = source[tokens[s].start:tokens[close].end]
        yield (f"y[0] to y[{k - 1}] are right, but threads {k} and up wrote nothing (y[{k}] to "
               f"y[{n - 1}], of {n}): the guard {said} at line "
               f"{source_line(source, tokens[s].start)} stops them; the block has n = {n} "
               "threads, one for each element (a block has up to 1024)",
               "no guard is needed here: the block has exactly n threads, and thread i writes "
               f"y[i] = x[i] + c (a guard would test i < n, never a number such as {number})")
        return


def _past(n, past, written):
    """Writes past y[n - 1]: the block's size taken for the thread's place (every thread wrote
    y[n], nothing else), or any other."""
    if past.tolist() == [n] and not written.any():
        yield (f"every thread wrote y[{n}], one past y[n - 1], and y[0] to y[{n - 1}] were never "
               f"written: every thread's index was blockDim.x = {n}, the block's size, the same "
               "for all its threads",
               "i = threadIdx.x, the thread's own number, not blockDim.x (the block's size, "
               "the same in every thread): thread number i of the block has element i")
    if past.size:
        yield (f"y[{past[0]}] and beyond were written, past y[n - 1]",
               f"the block has exactly n threads: {INDEX_HINT}, with nothing added to it")


def _shifted_up(n, past, written, right):
    """The mistake of thread numbers taken as counting from 1 (i = threadIdx.x + 1): y[n]
    written, past y's end, y[1] to y[n - 1] right and y[0] never written."""
    if past.tolist() == [n] and n > 1 and right[1:].all() and not written[0]:
        yield (f"y[{n}], one past y[n - 1], was written and y[0], the first element, never was: "
               "every thread's index is one more than its number (i = threadIdx.x + 1), so "
               f"the last thread, {n - 1}, wrote past the end of y and read x[{n}]; thread "
               "numbers count from 0",
               f"{INDEX_HINT}, with nothing added: thread 0 has element 0")


def _shifted_down(n, ahead, written, right):
    """The mistake of thread numbers taken as counting from 1 (i = threadIdx.x - 1): y[-1]
    written, before y's start, y[0] to y[n - 2] right and y[n - 1] never written."""
    if list(ahead) == [-1] and n > 1 and right[:-1].all() and not written[-1]:
        yield (f"y[-1], before y[0], was written and y[{n - 1}], the last element, never was: "
               "every thread's index is one less than its number (i = threadIdx.x - 1), so "
               "thread 0 wrote before the start of y; thread numbers count from 0",
               f"{INDEX_HINT}, with nothing subtracted: thread 0 has element 0")


BYTE = 256
"""How many values an 8-bit index (``unsigned char``) holds: it wraps from 255 back to 0."""


def _lane(n, written, right, lanes=32):
    """i = threadIdx.x % 32, the thread's lane in its warp, where the output is its model's:
    y[0] to y[31] written and right, the rest never written."""
    if n <= lanes or written[lanes:].any() or not right[:lanes].all():
        return
    yield (f"y[0] to y[{lanes - 1}] are right, but nothing from y[{lanes}] on was written, of "
           f"{n}: the index wrapped around at {lanes}, as i = threadIdx.x % {lanes} (the lane in "
           f"the warp) does: thread {lanes} got i = 0 again, thread {lanes + 1} i = 1, and so on, "
           f"so the {n - lanes} threads past the first warp redid y[0] to y[{lanes - 1}] (a "
           f"guard i < {lanes} would leave the same)", "the element is the thread's number in "
           "the block, not in its warp: int i = threadIdx.x, with no % 32 (and no guard: the "
           "block has exactly n threads)")


def _wrapped(n, written, right):
    """The mistake of an index kept in an ``unsigned char``, where the output is its model's: the
    elements an index that wraps at 256 reaches (thread t's i is t % 256) written and right, the
    rest never written; first, the lane's index (``_lane``), which wraps at 32."""
    yield from _lane(n, written, right)
    reached = np.zeros(n, bool)
    reached[np.arange(n).astype(np.uint8)] = True
    if n <= BYTE or (written != reached).any() or not right[reached].all():
        return
    yield (f"y[0] to y[{BYTE - 1}] are right, but nothing from y[{BYTE}] on was written, of {n}: "
           f"the index wrapped around at {BYTE}, as an index kept in an unsigned char does (its "
           f"8 bits hold 0 to {BYTE - 1}): thread {BYTE} got i = 0 again, thread {BYTE + 1} "
           "i = 1, and so on, and wrote y[0], y[1], ... once more (a guard i < 256 would leave "
           "the same)",
           "keep the index an int, whatever size you expect: int i = threadIdx.x (an unsigned "
           "char holds 0 to 255 only; a block has up to 1024 threads), with no guard here")


def _refine(failure):
    """An access past an array whose element tells the index: 4 * t (the index scaled by
    sizeof(float), as a NumPy stride counts bytes), or blockDim.x + t (every index shifted by the
    block's size). The offset counts from the allocation's start, SPARE elements before x's and
    y's."""
    err = failure.error
    if failure.kind != "out of bounds" or err.offset is None or not failure.block or \
            err.offset % 4:
        return
    t, width, element = err.thread[0], failure.block[0], err.offset // 4 - SPARE
    if t and element == 4 * t:
        yield (f"thread {t}'s index was {element} = 4 * {t}: it was scaled by "
               "sizeof(float) = 4, as a NumPy stride counts bytes, but in C an index counts "
               "elements (the compiler multiplies by the element's size itself): "
               f"{INDEX_HINT}, with no sizeof")
    if t > 1 and element == t * width:
        yield (f"thread {t}'s index was {element} = {t} * blockDim.x: it was scaled by the "
               f"block's size, {width}, as if each thread had a row of its own, and only thread "
               f"0's element lies inside x and y; {INDEX_HINT}, with nothing multiplied")
    if element == width + t:
        yield (f"thread {t}'s index was {element} = blockDim.x + {t}: every index "
               f"was shifted by blockDim.x = {width}, past the block's elements; {INDEX_HINT} "
               "(in a "
               "grid of several blocks it is blockIdx.x * blockDim.x + threadIdx.x, a product)")


EXERCISE = KernelExercise(
    stub="exercises/add_constant.cu", kernel="add_constant",
    signature="const float *x, float *y, float c",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    crash_hint=f"every thread writes only y[i], its own element: {INDEX_HINT}", refine=_refine,
    simulated="runs the race check", observed=_observed, observed_as="race-checked",
    success=f"y = x + c for every size tried ({len(CASES) - 1} blocks of n threads), each "
            "element written by one thread, and nothing written past y[n - 1]")

check_add_constant = EXERCISE.check_file          # (path="exercises/add_constant.cu")
check_add_constant_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same compiled
