"""What Oclgrind's reports show of group_sum's work-items past n (the last work-group's, which
hold no element of x): a barrier they alone missed (they returned before it, or skipped it in an
if), and tile entries of theirs that nobody set and the fold added.

OpenCL's barrier(), unlike CUDA's __syncthreads() (notebooks 06 and 09: a thread that returned
no longer holds the barrier up), must be reached by every work-item of the work-group, returned
or not: a work-item that returned before it makes the kernel undefined (the OpenCL standard).
The verdicts say so, as the reason, since notebook 12 does not teach the difference."""

from __future__ import annotations

import re

from helpers.exercises.group_sum_opencl_models import GROUP, _groups

OPENCL_RULE = ("OpenCL's barrier(), unlike CUDA's __syncthreads(), must be reached by every "
               "work-item of the group, returned or not (a work-item that returned before it "
               "makes the kernel undefined)")
LOAD_ZERO = "tile[t] = i < n ? x[i] : 0.0f"


def unset_groups(messages):
    """The work-groups in which Oclgrind saw values used that nothing had written (None for a
    report that names no work-item)."""
    return {m.work_items[0][0] // GROUP if m.work_items else None
            for m in messages if "uninitialized" in m.kind.lower()}


def unset_past_n(n, groups):
    """Tile entries the last group's work-items past n never set, which the fold added: Oclgrind
    saw uninitialized values used in that group alone (``groups``, from its reports)."""
    g, first = _groups(n) - 1, n % GROUP
    if first and groups == {g}:
        yield (f"entries {first} to {GROUP - 1} of work-group {g}'s tile (its work-items past n = "
               f"{n}) were never set, and the fold added them: __local memory is not zeroed, so "
               "they hold leftovers (on a GPU, what an earlier work-group left there)",
               f"every tile entry must be set before the fold: where i >= n, load 0: {LOAD_ZERO} "
               "(or an else that sets tile[t] = 0.0f)")


def missed_past_n(messages, n, code):
    """The first barrier that only some work-items reached, where those that did not are the
    last group's past n: they returned before it (a return in the code above it), their tile
    entries unset if Oclgrind saw them used unset there, or skipped it in an if."""
    g = _groups(n) - 1
    for m in [m for m in messages if "divergence" in m.kind.lower()][:1]:
        if m.group is None or m.group[0] != g or m.executed != (n - g * GROUP, GROUP) or not m.line:
            return
        count, reached = _groups(n) * GROUP - n, n - g * GROUP
        missed = f"the barrier at line {m.line}, which only the other {reached} reached"
        if re.search(r"\breturn\b", "\n".join(code.splitlines()[:m.line - 1])):
            if unset_groups(messages) == {g}:
                yield (f"the {count} work-items of work-group {g} past n = {n} returned without "
                       f"setting their tile entries ({reached} to {GROUP - 1}), and the fold "
                       "added those entries, which nobody wrote (__local memory is not zeroed); "
                       f"and they missed {missed}: {OPENCL_RULE}", "a work-item past the end "
                       f"must load 0 and go on, not return: {LOAD_ZERO}, then every work-item "
                       "reaches each barrier")
            yield (f"the {count} work-items of work-group {g} past the end of x (i >= n = {n}) "
                   f"returned before {missed}: {OPENCL_RULE}", "in OpenCL drop the return "
                   "before a barrier and let every work-item go on to it; one past the end "
                   f"adds nothing if it loads 0: {LOAD_ZERO}")
        yield (f"the {count} work-items of work-group {g} past the end of x (i >= n = {n}) "
               f"skipped {missed}", "every work-item of a work-group must reach each barrier(): "
               f"keep it out of code that only some of them run; let it load 0 and go on: "
               f"{LOAD_ZERO}")
