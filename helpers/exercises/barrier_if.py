"""A __syncthreads() inside an if whose condition differs between the threads of a block, read
from the kernel's words (its simulated twin's source): the threads that skip the if never reach
that barrier, which CUDA leaves undefined (the simulator lets a thread that has
returned pass; a GPU may hang, or let the others through early). A barrier inside an if whose
condition is the same for every thread of the block (one on blockIdx.x or n) is not one. So is
one inside a loop that the threads go round a different number of times
(``barriers_in_thread_loops``), and what a race or a crash at such a barrier shows
(``barrier_in_a_loop``, ``loop_barrier_apart``)."""

from __future__ import annotations

from helpers.exercises.microscope import kernel_words, source_line
from helpers.exercises.failure import line_number

LOOP_BARRIER_HINT = ("close the loop first, then one __syncthreads() after it, before the next "
                     "loop, where every thread reaches it once")
"""The hint for a barrier inside a loop that the threads go round a different number of times."""

ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}


def _names(words, start, stop) -> set:
    """The words of words[start:stop] that name something, not a member (blockDim.x's x)."""
    return {words[i] for i in range(start, stop) if i == 0 or words[i - 1] not in (".", "->")}


def _thread_names(words, body, end):
    """The names whose value may differ between the threads of a block: threadIdx, and every
    name assigned from an expression that reads one of them (until nothing more is added)."""
    names, grown = {"threadIdx"}, True
    while grown:
        grown = False
        for i in range(body, end - 1):
            if words[i + 1] not in ASSIGN or not words[i].isidentifier() or words[i] in names:
                continue
            depth, k = 0, i + 2
            while k < end and not (depth == 0 and words[k] in (";", ",")) and depth >= 0:
                depth += 1 if words[k] in ("(", "[", "{") else -1 if words[k] in (")", "]", "}") \
                    else 0
                k += 1
            if names.intersection(_names(words, i + 2, k)):
                names.add(words[i])
                grown = True
    return names


def _thread_ifs(kernels):
    """(source, tokens, words, the body's end, and for each if in the kernel's body whose
    condition reads a name that differs between the threads of a block: (the if's index, its
    condition's words, those names, the index of its body's last word)); None where there is no
    text to read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    names, found = _thread_names(words, body, end), []
    try:
        for k in range(body, end):
            if words[k] != "if" or words[k + 1] != "(":
                continue
            shut = closing(tokens, k + 1)
            last = closing(tokens, shut + 1) if words[shut + 1] == "{" else \
                words.index(";", shut + 1)
            if varying := sorted(names.intersection(_names(words, k + 2, shut))):
                found.append((shut, words[k + 2:shut], varying, last))
    except (Unreadable, ValueError, IndexError):
        return None
    return source, tokens, words, end, found


def barriers_in_thread_ifs(kernels) -> list:
    """(line, the condition's words, the names in it that differ between threads) for each
    __syncthreads in the body of an if (braced or one statement) whose condition reads a name
    that differs between the threads of a block; [] where there is none or no text to read."""
    if (text := _thread_ifs(kernels)) is None:
        return []
    source, tokens, words, _, ifs = text
    return [(source_line(source, tokens[i].start), cond, varying)
            for shut, cond, varying, last in ifs for i in range(shut + 1, last)
            if words[i] == "__syncthreads"]


def thread_if_of_barrier(kernels, line):
    """(the condition's words, whether the __syncthreads() at ``line`` is the first statement of
    the if's braced body, and the line of a __syncthreads() that is the first statement after the
    if where this barrier is its body's last, else None) for the innermost if whose condition
    differs between the threads of a block and holds that barrier; None where none does, or
    there is no text to read."""
    if (text := _thread_ifs(kernels)) is None:
        return None
    source, tokens, words, end, ifs = text
    for shut, cond, _, last in sorted(ifs, reverse=True):   # the innermost if first
        at = next((i for i in range(shut + 1, last) if words[i] == "__syncthreads"
                   and source_line(source, tokens[i].start) == line), None)
        if at is None:
            continue
        follows = words[last] == "}" and at + 4 == last and last + 1 < end and \
            words[last + 1] == "__syncthreads"
        return (cond, words[shut + 1] == "{" and at == shut + 2,
                source_line(source, tokens[last + 1].start) if follows else None)
    return None

def returns_before_barriers(kernels) -> list:
    """(the return's line, the condition's words, the line of the first __syncthreads after
    the if) for each return in the body of an if whose condition differs between the threads
    of a block, followed in the kernel's body by a __syncthreads that the threads which return
    never reach; [] where there is none or no text to read."""
    if (text := _thread_ifs(kernels)) is None:
        return []
    source, tokens, words, end, ifs = text
    found = []
    for shut, cond, _, last in ifs:
        barriers = [b for b in range(last + 1, end) if words[b] == "__syncthreads"]
        found += [(source_line(source, tokens[i].start), cond,
                   source_line(source, tokens[barriers[0]].start))
                  for i in range(shut + 1, last + 1) if barriers and words[i] == "return"]
    return found


def loops_in(tokens, words, body, end) -> list:
    """(the index of its for or while, of its head's ")", of its body's last word) for each loop
    in words[body:end]; raises kernel_text's Unreadable, or ValueError, where the text is not
    whole."""
    from helpers.sim.compile.kernel_text import closing

    found = []
    for k in (k for k in range(body, end) if words[k] in ("for", "while")):
        head = closing(tokens, k + 1)
        found.append((k, head, closing(tokens, head + 1) if words[head + 1] == "{" else
                      words.index(";", head)))
    return found


def barriers_in_thread_loops(kernels) -> list:
    """(the barrier's line, the loop's line, the names in the loop's head that differ between the
    threads of a block) for each __syncthreads in the body of a for or while loop that they may
    go round a different number of times: its head reads such a name, or a break of its own (not
    a nested loop's) lies in an if whose condition does (the names then []); [] where there is
    none or no text."""
    from helpers.sim.compile.kernel_text import Unreadable

    if (text := kernel_words(kernels)) is None or (thread_ifs := _thread_ifs(kernels)) is None:
        return []
    source, tokens, words, body, end = text
    names, found = _thread_names(words, body, end), []
    try:
        loops = loops_in(tokens, words, body, end)
    except (Unreadable, ValueError, IndexError):
        return []
    # the loops that a break under an if on a thread's names ends: each its innermost loop's
    broken = {max((k for k, head, last in loops if head < i <= last), default=None)
              for shut, _, _, stop in thread_ifs[-1] for i in range(shut, stop + 1)
              if words[i] == "break"}
    for k, head, last in sorted(loops, reverse=True):   # a barrier's innermost loop first
        varying = sorted(names.intersection(_names(words, k + 2, head)))
        barriers = [i for i in range(head, last) if words[i] == "__syncthreads"
                    and i not in {barrier for barrier, _, _ in found}]
        if barriers and (varying or k in broken):
            found += [(i, k, varying) for i in barriers]
    return [(source_line(source, tokens[i].start), source_line(source, tokens[k].start), varying)
            for i, k, varying in sorted(found)]


def barrier_in_a_loop(kernels, failure):
    """A race in shared memory between threads of one block across a __syncthreads() that lies
    inside a loop (the kernel's words) holding one of the two accesses, the other after the
    loop: the threads go round it a different number of times, so they do not pass that barrier
    together, and it holds none back (a barrier moved into the grid-stride counting loop)."""
    err, text = failure.error, kernel_words(kernels)
    if failure.kind != "race" or err.space != "shared" or failure.between == "blocks" or \
            text is None:
        return
    source, tokens, words, body, end = text
    for k, head, last in loops_in(tokens, words, body, end):
        barrier = next((i for i in range(head, last) if words[i] == "__syncthreads"), None)
        span = range(source_line(source, tokens[k].start),
                     source_line(source, tokens[last].start) + 1)
        inner = [a for a in (err.first, err.second) if line_number(a.line) in span]
        if barrier is None or len(inner) != 1:
            continue
        (inner,), outer = inner, err.second if inner[0] is err.first else err.first
        yield (f"the __syncthreads() at line {source_line(source, tokens[barrier].start)} is "
               f"inside the loop of line {span[0]}, which the threads go round a different "
               f"number of times, so they do not pass it together and it holds none back: "
               f"thread {outer.thread[0]} of block {outer.block[0]}, out of the loop, "
               f"{outer.does.replace(' it', f' {err.array}[{err.element}]')} at line "
               f"{outer.line.rsplit(':', 1)[1]} while thread {inner.thread[0]}, still in it, "
               f"{inner.does} at line {inner.line.rsplit(':', 1)[1]} (a {err.hazard} hazard)",
               LOOP_BARRIER_HINT)
        return


def loop_barrier_apart(kernels, error) -> str | None:
    """A divergent barrier (``error``'s fields: thread t of a block waits at ``line``, the threads
    before it, run first, at ``barrier``) where one of the two barriers lies inside a loop that
    the threads of a block go round a different number of times (``barriers_in_thread_loops``),
    in words: which threads wait there, still in the loop, and which at the other; None where
    neither does, or the fields are missing."""
    if getattr(error, "kind", None) != "divergent barrier" or not getattr(error, "barrier", None) \
            or not error.line or not error.thread or not error.block:
        return None
    lines = [line_number(where) for where in (error.barrier, error.line)]
    found = next(((line, loop) for line, loop, _ in barriers_in_thread_loops(kernels)
                  if line in lines), None)
    if found is None:
        return None
    (line, loop), t, block = found, error.thread[0], error.block[0]
    first = "thread 0 waits" if t == 1 else f"threads 0 to {t - 1} wait"
    inside, outside = (first, f"thread {t} waits") if line == lines[0] else \
        (f"thread {t} waits", first)
    return (f"the __syncthreads() at line {line} is inside the loop of line {loop}, which the "
            f"threads of a block go round a different number of times, so they do not all reach "
            f"it together: in block {block}, {inside} at it, still in the loop, while {outside}, "
            f"out of the loop, at the __syncthreads() at line {sum(lines) - line}")


def barrier_in_an_if(kernels, bound, value, place, guard, block):
    """(problem, hint) for the first __syncthreads() inside an if whose condition differs between
    the threads of a block; None where there is none. Where the condition is ``name < bound``
    (``bound`` = ``value`` in ``place``, the last, partial block or chunk of a block of ``block``
    threads), the threads that skip it are named; ``guard`` is the if that stays."""
    if not (found := barriers_in_thread_ifs(kernels)):
        return None
    line, cond, varying = found[0]
    text = " ".join(cond).replace(" . ", ".")
    if len(cond) == 3 and cond[1] == "<" and cond[2] == bound and cond[0] in varying:
        who = f"{place}, threads {cond[0]} = {value} to {block - 1} have {text} false and skip it"
    else:
        who = (f"the threads for which {text} is false ({', '.join(varying)} differs between "
               "the threads of a block) skip it")
    return (f"the __syncthreads() at line {line} is inside if ({text}): {who}, so not every "
            "thread of the block reaches that barrier, which CUDA leaves undefined (a GPU may "
            "hang there, or let the others through before the block's threads are done; the "
            "simulator let the others through, and the output came out right)",
            "every thread of the block must reach each __syncthreads(): take it out of the if, "
            f"right after its closing brace, and guard only the {guard} with the if")


def after_the_cases(n, block, bound, unit, guard, then=None):
    """An ``after`` hook: a passing verdict (after ``then``'s, where given) becomes NOT YET for
    a __syncthreads() inside an if on a thread's index (``barrier_in_an_if``), the threads named
    in the last, partial ``unit`` of ``block`` elements over ``n`` (``bound`` its count)."""
    from helpers.exercises.verdict import not_yet

    def after(kernels, passed):
        if then is not None and not (passed := then(kernels, passed)):
            return passed
        first = n // block * block
        place = (f"in the last, partial block, block {n // block} (n = {n}, len = {n - first})"
                 if unit == "block" else f"in the last, partial chunk (n = {n}, first = {first}, "
                 f"count = {n - first})")
        found = barrier_in_an_if(kernels, bound, n - first, place, guard, block)
        return passed if found is None else not_yet(*found)
    return after


def after_a_strided_loop(length, block, span, hint):
    """An ``after`` hook: a passing verdict becomes NOT YET for a __syncthreads() inside a loop
    that the threads of a block go round a different number of times (``barriers_in_thread_loops``):
    one whose head differs between them, taken to stride by the block over ``length`` items
    (``span``, in words), for (x = threadIdx.x; x < length; x += blockDim.x), blocks of
    ``block`` threads, ``length`` not a multiple of it; or one that a break under an if ends.
    ``hint``: the exercise's."""
    from helpers.exercises.verdict import not_yet

    def after(kernels, passed):
        if not (found := barriers_in_thread_loops(kernels)):
            return passed
        (barrier, loop, varying), more, passes = found[0], length % block, length // block
        few = f"only {passes}" if passes else "none"
        who = (f": in {span} with block = ({block}, 1, 1), threads 0 to {more - 1} make "
               f"{passes + 1} pass{'es' if passes else ''} and threads {more} to {block - 1} "
               f"{few}, so in the "
               f"last pass threads 0 to {more - 1} wait at a barrier that threads {more} to "
               f"{block - 1}, out of the loop, never reach" if varying else
               ": its break, under an if that differs between the threads, ends it after each "
               "thread's own number of turns, so the threads still in it wait at a barrier that "
               "those which left it never reach")
        return not_yet(f"the __syncthreads() at line {barrier} is inside the loop of line "
                       f"{loop}, which the threads of a block go round a different number of "
                       f"times{who}: a barrier that only some threads of the block reach, which "
                       "CUDA leaves undefined (a GPU may hang there, or let the others through "
                       "early; the simulator lets a thread that has finished pass, and the "
                       "output came out right)", hint)
    return after
