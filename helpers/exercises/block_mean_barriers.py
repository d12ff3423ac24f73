"""A __syncthreads() of notebook 09's block mean put inside an if that only some threads of the
block enter, thread 0's if (t == 0) (``helpers.exercises.block_mean``): the barrier between the
mean's store and its reads moved into the if, so the threads that skip it read the mean without
waiting (``barrier_skipped_by_the_reader``), or one kept there besides one after the if, so
thread 0 and the others wait at two different barriers (``barriers_apart``)."""

from __future__ import annotations

from helpers.exercises.barrier_if import thread_if_of_barrier
from helpers.exercises.microscope import barrier_lines
from helpers.exercises.failure import line_number


def _condition(cond) -> str:
    return " ".join(cond).replace(" . ", ".")


def barrier_skipped_by_the_reader(kernels, err):
    """(what happened, hint) where the race check (``err``) found, in one block, a thread's store
    and another thread's read of the same element on a later line, and every __syncthreads()
    between the two lines lies inside an if whose condition differs between the threads of a
    block (if (t == 0)), which the reader skipped. None otherwise."""
    if getattr(err, "kind", None) != "race" or err.first.block != err.second.block:
        return None
    store, load = sorted((err.first, err.second), key=lambda a: not a.writes)
    if not store.writes or not load.reads:
        return None
    stored, read = line_number(store.line), line_number(load.line)
    between = [b for b in barrier_lines(kernels) if stored < b < read]
    inside = [(b, found) for b in between if (found := thread_if_of_barrier(kernels, b))]
    if not between or len(inside) != len(between):
        return None
    line, (cond, _, _) = inside[0]
    text = _condition(cond)
    reader = f"thread {load.thread[0]} of block {load.block[0]}"
    return (f"a data race on {err.array}[{err.element}] ({err.space} memory): {store.who} stores "
            f"it at line {stored}, and {load.who} reads it at line {read}, with no barrier between "
            f"them that it waits at: the __syncthreads() at line {line} is inside if ({text}), "
            f"which {reader} skips ({text} is false for it), so it reads {err.array}"
            f"[{err.element}] without waiting for the store (the race check: a {err.hazard} "
            "hazard)", "take that __syncthreads() out of the if: put it right after the if's "
            f"closing brace, between the store (line {stored}) and the read (line {read}), "
            "where every thread of the block reaches it")


def barriers_apart(kernels, err):
    """(what happened, hint) where the threads of a block wait at two different barriers (``err``,
    a divergent barrier: thread t waits at ``line``, the threads before it, run first, at
    ``barrier``), one of them inside an if whose condition differs between the threads of a
    block and the other not. None otherwise."""
    if getattr(err, "kind", None) != "divergent barrier" or not getattr(err, "barrier", None) \
            or not err.line or not err.thread or not err.block:
        return None
    waits, before = line_number(err.line), line_number(err.barrier)
    found = {line: thread_if_of_barrier(kernels, line) for line in (waits, before)}
    inside = [line for line, place in found.items() if place]
    if waits == before or len(inside) != 1:
        return None
    (line,), t = inside, err.thread[0]
    (cond, opens, follows), other = found[line], waits + before - line
    first = "thread 0" if t == 1 else f"threads 0 to {t - 1}"
    in_if, out = (f"thread {t}", first) if line == waits else (first, f"thread {t}")
    if follows == other:
        hint = (f"delete the __syncthreads() at line {line}: the one at line {other}, right "
                "after the if's closing brace, already holds every thread of the block there, "
                "those of the if too")
    else:
        hint = (f"take the __syncthreads() at line {line} out of the if: put it right "
                f"{'before the if' if opens else 'after its closing brace'}, where every thread "
                "of the block reaches it")
    return (f"{in_if} of block {err.block[0]} waits at the __syncthreads() at line {line}, inside "
            f"if ({_condition(cond)}), and {out} at the one at line {other}: two different "
            "barriers, where CUDA requires every thread of a block that has not returned to reach "
            "the same __syncthreads() (a GPU may hang there; the simulator stopped the launch)",
            hint)
