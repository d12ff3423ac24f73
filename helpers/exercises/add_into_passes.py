"""The passes of notebook 02's grid-stride loop (``cuda_src/exercises/add_into.cu``) counted
by hand, for (pass = 0; pass < passes; pass++) y[i + pass * stride] += ...: n / stride rounded
down, which leaves out the last, partial pass, and (n + stride - 1) / stride rounded up with no
test of the element, which sends the threads without one in the last pass past n; each told
apart from its twins by which elements each thread stored into (a trace on the simulator)."""

from __future__ import annotations

import numpy as np

from helpers.exercises.add_into_models import LOOP_HINT
from helpers.exercises.microscope import accesses_of


def rounded_down(run, visits, n, threads):
    """The first n - n % threads elements added to once, the rest never: n / threads rounded down,
    as the passes of a strided loop or as the length of each thread's chunk, told apart by which
    elements each thread stored into (a trace of the launch on the simulator)."""
    whole = threads * (n // threads)
    if whole == n or not np.array_equal(visits, np.arange(n) < whole):
        return
    how = split(run, threads, n // threads)
    lost = f"the last {n - whole} elements (y[{whole}] on) were never added to: "
    if how == "strided":
        yield (lost + f"the loop made n / stride = {n} / {threads} = {n // threads} passes, "
               f"rounded down, so the last, partial pass (n % stride = {n - whole} elements) was "
               "never made", "let the loop's own test stop each thread at n, whatever the "
               "passes: " + LOOP_HINT + " (a count of passes would be (n + stride - 1) / stride, "
               "with i < n tested in each)")
    elif how == "chunks":
        yield (lost + "chunks of n / threads elements leave out the last n % threads", LOOP_HINT)


def rounded_up(run, right, n, threads):
    """y right below n, and y[n] up to the end of the last whole pass written, in a loop strided
    by the grid (``split``): every thread went round ceil(n / threads) times, and in the last,
    partial pass the threads with no element below n added past it, nothing testing theirs."""
    passes = -(-n // threads)
    if threads >= n or not right or n % threads == 0 or \
            not np.array_equal(run.out.past, np.arange(n, passes * threads)):
        return
    if split(run, threads, passes) != "strided":
        return
    first = n - (passes - 1) * threads
    yield (f"y[{n}] to y[{passes * threads - 1}] were written, past y[n - 1]: every thread went "
           f"round the loop (n + stride - 1) / stride = ({n} + {threads - 1}) / {threads} = "
           f"{passes} times, rounded up, so in the last, partial pass threads {first} to "
           f"{threads - 1} had no element (i + pass * stride >= n = {n}) and nothing tested that "
           "before they added", "test each element against n before adding it: if (i + pass * "
           "stride < n) in each pass, or let the loop's own test stop each thread at n: "
           + LOOP_HINT)


def split(run, threads, per):
    """How the threads split y, from the stores a trace of ``run``'s launch on the simulator
    kept: "strided" (thread t's elements t, t + threads, ...), "chunks" (t * per to
    t * per + per - 1), or None."""
    kept = accesses_of(run.kernel, run.launch, f"split {run.launch.grid}", 4 * threads * per)
    if kept is None:
        return None
    stores = kept[kept["write"] & ~kept["shared"]]
    if not len(stores):
        return None
    t = stores["block"] * run.launch.block[0] + stores["thread"]
    element = stores["index"] - stores["index"].min()
    if ((element - t) % threads == 0).all():
        return "strided"
    return "chunks" if (element // per == t).all() else None
