"""A grid-stride loop unrolled by k with no tail: each turn handles i, i + stride, ...,
i + (k - 1) * stride while the last of them is below n, and steps by k * stride; with nothing
after the loop, a thread whose elements are not a multiple of k in number never handles the last
few (fewer than k). The elements such a loop handles, and the words that name what it left out;
the exercises of grid-stride loops (add_into, dot_product) compare a kernel's output with them."""

from __future__ import annotations

import numpy as np

FACTORS = (2, 3, 4)
"""The unroll factors tried, two first."""


def no_tail(n, threads, lost, element, statement):
    """(the elements handled, problem, hint) of a grid-stride loop of ``threads`` threads
    unrolled by each factor k that leaves some of the n elements out: ``lost`` says what became
    of those ("elements were never added to"), ``element`` names one ("y[{}]"), and
    ``statement`` is what the tail does for each ("y[i] += x[i];")."""
    for k in FACTORS:
        done = handled(n, threads, k)
        if not done.all():
            missed = np.flatnonzero(~done)
            yield (done, f"{missed.size:,} of the {n:,} {lost} (the first is "
                         f"{element.format(missed[0])}), left over by {left_out(n, threads, k)}: "
                         f"{unrolled_words(k)}", tail_hint(statement))


def handled(n, threads, k):
    """Whether each element below n is handled by a grid-stride loop of ``threads`` threads
    unrolled by k with no tail: thread t's j-th element, t + j * threads, where j is below its
    element count rounded down to a multiple of k."""
    i = np.arange(n)
    count = -(-(n - i % threads) // threads)     # the elements of the thread that handles i
    return i // threads < count // k * k


def left_out(n, threads, k):
    """The words for what a loop unrolled by k with no tail leaves out, by thread: "threads 40 to
    63 (1 each)", joined with "and" where the threads that hold one element more lose some too."""
    more, each = n % threads, n // threads
    groups = [(0, more - 1, each + 1), (more, threads - 1, each)]
    return " and ".join(f"thread{'s' if a < b else ''} {a}{f' to {b}' if a < b else ''} "
                        f"({count % k} each)" for a, b, count in groups
                        if a <= b and count % k)


def unrolled_words(k):
    """How a loop unrolled by k with no tail goes (what each turn handles, its test and its
    step), and why it leaves some elements out."""
    last = "i + stride" if k == 2 else f"i + {k - 1} * stride"
    turn = "i and i + stride" if k == 2 else f"i, i + stride, ..., {last}"
    few = ("odd in number stops before its last one, and nothing after the loop handles it"
           if k == 2 else f"not a multiple of {k} in number stops before its last few, and "
           "nothing after the loop handles them")
    return (f"the loop, unrolled by {k}, handles {turn} while {last} < n, stepping by {k} * "
            f"stride, so a thread whose elements are {few}")


def tail_hint(statement):
    """The hint that keeps the unrolled loop and adds its tail: ``statement`` (y[i] += x[i];)
    for each element left, after the loop."""
    return ("keep the unrolled loop and add the tail it leaves: declare i before the loop and, "
            f"after it, for (; i < n; i += stride) {statement} (stride: the grid's threads; with "
            f"two a turn, at most one is left: if (i < n) {statement})")
