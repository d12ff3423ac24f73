"""Checker for notebook 12's second exercise: a sum per work-group in local memory, OpenCL's
``__local`` and ``barrier(CLK_LOCAL_MEM_FENCE)`` (``cuda_src/opencl/exercises/group_sum.cl``).

The kernel ``group_sum(x, partial, n)``, launched in groups of ``GROUP`` work-items over n rounded
up to whole groups, stores the sum of group g's elements of x in ``partial[g]``. The elements are
small numbers in quarters (-8 to 8.75), so every order of addition gives the same sum, exactly,
and a tile of ints, which drops each fraction, gives other sums. x is followed by
junk (``JUNK`` at x[n], inf from x[n + 1] on: ``_past``), so that a last group that loads past
n shows it in its sum, a load times 0 too (0 * inf is NaN). On Oclgrind the
race check is on: a missing barrier is named as a race there; on a GPU it shows as wrong sums
(or, by luck, as none). So is the check of uninitialized values: ``__local`` memory is not
zeroed, so tile entries past n left unset (a guarded load with no else) hold leftovers on a GPU.
"""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises import near
from helpers.exercises.common import Input, Output, c_int_value
from helpers.exercises.group_sum_opencl_models import (GROUP, _added_upward, _assigned,
                                                       _counted_down,
                                                       barrier_skipped_on_some_steps, _groups, _sums, _upward,
                                                       clamped_load, doubled_with_t_mod_stride,
                                                       fences_for_barriers, halved_interleaved,
                                                       id_declared_local,
                                                       indexed_by_the_number_of_groups,
                                                       load_at_the_local_id, private_tile,
                                                       returned_in_the_fold,
                                                       stored_past_the_last_slot)
from helpers.exercises.group_sum_opencl_code import code_mistake, every_item_adds_the_tile
from helpers.exercises.group_sum_opencl_past_n import missed_past_n, unset_groups, unset_past_n
from helpers.exercises.hidden import awkward
from helpers.exercises.kernel import Launch
from helpers.exercises.opencl_kernel import OpenCLExercise, code_line, kernel_code

CASES = [1000, 300, 641]   # n: several groups and a partial last one; 641 = 5 groups and one
JUNK = np.float32(1000)

BARRIER_HINT = ("work-items share the tile: put barrier(CLK_LOCAL_MEM_FENCE) after the load and "
                "after each step of the fold, outside the ifs, so that no work-item reads a "
                "tile element before its owner has written it")
GUARD_HINT = "a work-item past the end loads 0: tile[t] = i < n ? x[i] : 0.0f"
STORE_HINT = ("there is one sum a work-group: work-item 0 stores tile[0] in "
              "partial[get_group_id(0)] (the group's number, not a work-item's)")


def _draw(rng):
    """The grader's cases: sizes of two to twelve groups and of less than one, not multiples."""
    return [awkward(rng, GROUP, 2 * GROUP + 1, 12 * GROUP), int(rng.integers(2, GROUP))]


def _where(n):
    return f"n = {n}, local size = {GROUP}, global size = {_groups(n) * GROUP}"


def _launch(n):
    rng = np.random.default_rng(n)
    x = (rng.integers(-8, 9, n) + rng.integers(0, 4, n) / 4).astype(np.float32)
    past = np.append(x, JUNK).astype(np.float32)   # x[n] = JUNK, then inf
    return Launch((Input(past, after=GROUP - 1, junk=np.float32(np.inf)), Output(_groups(n), guard=_groups(n) * GROUP), np.int32(n)),
                  block=(GROUP,), grid=(_groups(n),), model=x)


def _mistakes(n, run, reports):
    """The mistakes one launch shows, the most telling first (none when it is right): where
    the sums went, then Oclgrind's reports (a race, a read outside the tile), then the sums."""
    x, out = run.model, run.out
    if out.past.size:
        if set(out.past.tolist()) <= set(range(0, _groups(n) * GROUP, GROUP)):
            yield ("work-item 0 of group g stored its sum at partial[g * 128], its global id, "
                   "past the end of partial", STORE_HINT)
        yield from stored_past_the_last_slot(out, kernel_code(run.kernel))
        yield f"values were written past the end of partial ({_groups(n)} sums)", STORE_HINT
    if _groups(n) > 1 and out.unwritten[1:].all() and out.got[0] == _sums(x)[0].sum():
        yield from _store_on_the_global_id(kernel_code(run.kernel))
        yield ("only work-group 0 stored its sum (a right one): in the others no work-item has "
               "t == 0, so t, the place in the tile, was taken from the global id",
               "t = get_local_id(0), the work-item's place in the tile (0 to GROUP - 1); only x "
               "is read at the global id")
    # from the declarations: on a GPU, any sums, or none (reads of unset private memory; an id
    # that every work-item of the group overwrote)
    yield from id_declared_local(x, out, kernel_code(run.kernel))
    yield from private_tile(x, out.got, kernel_code(run.kernel))
    if np.isnan(out.got).all():  # NaN + sum: a GPU's NaN drops the poison's bits
        yield from _store_adds(kernel_code(run.kernel))
    if out.unwritten.all():
        yield "nothing was written: partial still holds the NaN it was filled with", STORE_HINT
    if out.unwritten.any():
        yield (f"{int(out.unwritten.sum())} of {out.got.size} sums were never written (the "
               f"first is partial[{int(np.argmax(out.unwritten))}])", STORE_HINT)
    yield from reports
    if np.array_equal(out.got, _past(x).sum(axis=1)):
        yield from _guard_on_the_local_id(n, kernel_code(run.kernel))
    yield from _int_tile(x, out.got, kernel_code(run.kernel))
    yield from _wrong_sums(x, out.got, kernel_code(run.kernel))
    yield from every_item_adds_the_tile(kernel_code(run.kernel))


def _store_adds(code):
    """Every sum reads NaN and the store to partial adds (partial[...] += ...): the sum was added
    to what partial held, the poison NaN, and NaN + sum is NaN (the poison's own bits on
    Oclgrind, a GPU's canonical NaN on a GPU: told by NaN, not by the poison's bits)."""
    store = re.search(r"\bpartial\s*\[([^\]]*)\]\s*\+=\s*([^;]*);", code)
    if store:
        place, value = (" ".join(part.split()) for part in store.groups())
        yield (f"partial[{place}] += {value} adds each group's sum to what partial held before "
               "instead of storing it: partial is not zeroed (a new buffer holds leftovers; "
               "the checker filled it with NaN, and NaN + sum is NaN), so every sum reads NaN",
               f"store the sum with =, not +=: partial[{place}] = {value};")


def _store_on_the_global_id(code):
    """Only work-group 0 stored, and the if just before the store to partial compares the global
    id (a name given get_global_id(0), or the call itself) with 0 while another name holds the
    local id: only work-item 0 of the whole launch, in group 0, passes it."""
    names = re.findall(r"\b(\w+)\s*=\s*get_global_id\s*\(\s*0\s*\)", code)
    local = re.findall(r"\b(\w+)\s*=\s*get_local_id\s*\(\s*0\s*\)", code)
    if not local:   # no name holds the local id: t itself was taken from the global id
        return
    ids = "|".join([re.escape(name) for name in names] + [r"get_global_id\s*\(\s*0\s*\)"])
    found = re.search(rf"\b(if\s*\(\s*(?:(?:{ids})\s*==\s*0|0\s*==\s*(?:{ids}))\s*\))\s*\{{?\s*"
                      r"partial\s*\[", code)
    if found:
        test = " ".join(found.group(1).split())
        yield (f"the store's condition, {test}, tests the global id: only work-item 0 of "
               "work-group 0 passes it, so the other work-groups never stored their sums",
               f"test the work-item's place in its group: if ({local[0]} == 0) ({local[0]} = "
               "get_local_id(0)), so work-item 0 of each work-group stores tile[0]")


def _guard_on_the_local_id(n, code):
    """The last group's sum counts what lies past x, and the code compares the local id (a name
    given get_local_id(0), or the call itself) with n: the load's guard tests t, not i."""
    names = re.findall(r"\b(\w+)\s*=\s*get_local_id\s*\(\s*0\s*\)", code)
    tested = [re.escape(name) for name in names] + [r"get_local_id\s*\(\s*0\s*\)"]
    found = re.search(rf"(?:\b|^)({'|'.join(tested)})\s*<=?\s*n\b", code)
    if found and n >= GROUP:
        t = re.sub(r"\s+", "", found.group(1))
        yield (f"the load's guard compares {t} with n: {t} is the work-item's place in its group "
               f"(get_local_id(0), 0 to {GROUP - 1}), always below n = {n}, so every work-item "
               "loaded x[i], those past the end of x too (the last work-group's sum counts them)",
               "compare the global id with n: tile[t] = i < n ? x[i] : 0.0f")


def _int_tile(x, got, code):
    """The sums are those of x with each element's fraction cut off (toward 0), as an int tile
    (or a cast to int on the way) gives: named as the tile's type when the code declares it int."""
    want, cut = _sums(x).sum(axis=1), _sums(np.trunc(x)).sum(axis=1)
    if np.array_equal(got, want) or not np.array_equal(got, cut):
        return
    g = int(np.argmax(got != want))
    shown = (f"partial[{g}] = {got[g]:g}, expected {want[g]:g}; x[0] = {x[0]:g} counted as "
             f"{np.trunc(x[0]):g}")
    declared = re.search(r"__local\s+((?:unsigned\s+)?(?:int|long|short|char))\s+(\w+)", code)
    if declared:
        kind, name = declared.groups()
        yield (f"the sums came out as if each x[i] had lost its fraction ({shown}): the tile is "
               f"declared __local {kind} {name}[...], so storing x[i] there cuts it to a whole "
               "number", f"the tile holds the floats of x: __local float {name}[GROUP]")
    yield (f"the sums came out as if each x[i] had lost its fraction ({shown}): a value went "
           "through an int on its way to the sum", "keep every value a float, the tile's "
           "included: __local float tile[GROUP]")


def _barrier_before_the_load(code, seen):
    """The load's barrier put before it (a barrier, then the load), with none between the load
    and the fold's first read of the tile (a line of the tile's name with a +): named after
    ``seen``, what showed the race (Oclgrind's report, or wrong sums on a GPU)."""
    tile = re.search(r"__local\s+\w+\s+(\w+)\s*\[", code)
    load = tile and re.search(rf"\b{tile.group(1)}\s*\[[^\]]*\]\s*=[^;]*\bx\s*\[[^;]*;", code)
    if not load:
        return
    fold = re.compile(rf"^[^\n]*\b{tile.group(1)}\s*\[[^\n]*\+[^\n]*$", re.M).search(code, load.end())
    barriers = [b.start() for b in re.finditer(r"\bbarrier\s*\(", code)]
    before = [b for b in barriers if b < load.start()]
    if fold and before and not [b for b in barriers if load.end() < b < fold.start()]:
        yield (f"the barrier at line {code_line(code, before[-1])} stands before the load "
               f"(line {code_line(code, load.start())}), not after it: no barrier separates the "
               f"load from the fold's first read (line {code_line(code, fold.start())}), so a "
               f"work-item may read a tile element before its owner has loaded it ({seen})",
               "move the barrier after the load: "
               f"{' '.join(load.group().split())} then barrier(CLK_LOCAL_MEM_FENCE); (a barrier "
               "waits for what the work-items wrote before it)")


def _wrong_sums(x, got, code):
    """Mistakes the sums show once each was written."""
    want = _sums(x).sum(axis=1)
    if np.array_equal(got, want):
        return
    if np.array_equal(got, _past(x).sum(axis=1)):
        yield ("the last work-group's sum counts values past the end of x: its work-items past "
               "n loaded what lies there", GUARD_HINT)
    if np.array_equal(got[:-1], want[:-1]) and got[-1] == want[-1] + JUNK:
        yield (f"the last work-group's sum, partial[{got.size - 1}] = {got[-1]:g}, is {JUNK:g} "
               f"more than its elements' {want[-1]:g}: {JUNK:g} is x[n], what lies just past the "
               "end of x, loaded by the work-item with i == n", "i < n, not i <= n: the "
               "elements are x[0] to x[n - 1], so " + GUARD_HINT)
    yield from _load_times_the_guard(x, got, want, code)
    if np.array_equal(got[:-1], want[:-1]) and x[-1] and got[-1] == want[-1] - x[-1]:
        yield _last_left_out(x, got, code)
    yield from clamped_load(x, got, want)
    if np.array_equal(got, _sums(x)[:, ::2].sum(axis=1)):
        yield ("each sum holds only its group's even elements: the last step of the fold "
               "(stride 1) is missing", "fold down to stride 1: loop while stride > 0")
    if np.array_equal(got, _upward(_sums(x))):
        yield from halved_interleaved(got, want, code)
        yield ("each sum misses most of its group: the fold runs upward (stride 1, 2, 4, ...) "
               "while only work-items t < stride add, so tile[0] gathers tile[1], tile[2], "
               "tile[4], ... alone", "start at stride = GROUP / 2 and halve it, while stride > "
               "0: each step adds the upper half of what is left onto the lower half")
    yield from indexed_by_the_number_of_groups(x, got)
    yield from _counted_down(x, got)
    yield from _assigned(x, got)
    if np.array_equal(got, _sums(x)[:, 0]):
        yield from _added_upward(got, want, code)
        yield "each sum is its group's first element: the fold did nothing", BARRIER_HINT
    yield from load_at_the_local_id(x, got, want, code)
    if got.size > 1 and (got == _sums(x)[0].sum()).all():
        yield ("every work-group summed the first 128 elements: x was read at the local id",
               "a work-item's element is x[get_global_id(0)]; get_local_id(0) is its place in "
               "the tile")
    if np.array_equal(got[:-1], want[:-1]) and x.size % GROUP:
        yield (f"only the last work-group's sum is wrong (partial[{got.size - 1}] = "
               f"{got[-1]:g}, expected {want[-1]:g}), the group whose work-items past n = "
               f"{x.size} hold no element of x: its tile entries {x.size % GROUP} to {GROUP - 1} "
               "must hold 0 before the fold (__local memory is not zeroed: an entry never set "
               "holds leftovers)", "every work-item sets its entry: where i >= n, load 0: "
               "tile[t] = i < n ? x[i] : 0.0f")
    g = int(np.argmax(got != want))
    wrong = (f"{int((got != want).sum())} of {got.size} sums are wrong (the first: partial[{g}] "
             f"= {got[g]:g}, expected {want[g]:g})")
    yield from _test_on_the_read_s_bound(code, wrong)
    yield from _barrier_before_the_load(code, wrong)
    yield from fences_for_barriers(code, wrong)
    yield from barrier_skipped_on_some_steps(code, wrong)
    yield from near.misses("partial", got, want, close=near.within())
    yield (f"{int((got != want).sum())} of {got.size} sums are wrong (the first: partial[{g}] "
           f"= {got[g]:g}, expected {want[g]:g})", BARRIER_HINT)


def _test_on_the_read_s_bound(code, seen):
    """The fold's test, if (t + stride < GROUP) (named as the code writes it), where t < stride
    belongs: the upper half's work-items add too, writing tile[t] in the step in which work-item
    t - stride reads it (a race, named after ``seen``: Oclgrind's report, or wrong sums)."""
    test = re.search(r"\bif\s*\(\s*(\w+)\s*\+\s*(\w+)\s*<\s*(GROUP|get_local_size\s*\(\s*0\s*\))"
                     r"\s*\)", code)
    if not test:
        return
    t, s = test.group(1), test.group(2)
    yield (f"the fold's test, {' '.join(test.group().split())}, lets the work-items of the upper "
           f"half ({t} >= {s}) add too: each writes tile[{t}] in the very step in which "
           f"work-item {t} - {s} reads it, so that one may read it with tile[{t} + {s}] already "
           f"added ({seen})", f"only the lower half adds: if ({t} < {s}) tile[{t}] += "
           f"tile[{t} + {s}]; ({t} < {s} also keeps {t} + {s} inside the tile)")


def _past(x):
    """Each group's elements as a load without a guard reads them: x, then what follows x in
    its buffer (``JUNK`` at x[n], inf from x[n + 1] on)."""
    rows = _sums(x, np.inf)
    rows.flat[x.size] = JUNK
    return rows


def _load_times_the_guard(x, got, want, code):
    """The other sums right and the last NaN, as a load that multiplies x[i] by its guard gives:
    the work-items past n still read x[i] (inf from x[n + 1] on), and 0 * inf is NaN. The load
    named as the code writes it (a store to the tile of a product with x[...] in it)."""
    n, g = x.size, got.size - 1
    if not (np.array_equal(got[:-1], want[:-1]) and np.isnan(got[-1]) and n % GROUP < GROUP - 1):
        return
    load = re.search(r"\b\w+\s*\[[^\]]*\]\s*=[^;=]*\*[^;]*\bx\s*\[[^;]*;|\b\w+\s*\[[^\]]*\]\s*="
                     r"[^;=]*\bx\s*\[[^;]*\*[^;]*;", code)
    named = f"the load, {' '.join(load.group().split())}," if load else "the load"
    yield (f"the last work-group's sum, partial[{g}], is NaN: {named} still reads x[i] for the "
           f"{(g + 1) * GROUP - n} work-items of work-group {g} past n = {n} (x[{n}] to "
           f"x[{(g + 1) * GROUP - 1}], past the end of x): multiplying by 0 does not stop the "
           "read, and what lies past x need not be a number (the checker put inf there from "
           f"x[{n + 1}] on, and 0 * inf is NaN)", "a guard must keep the read from happening: tile[t] = i < n ? "
           "x[i] : 0.0f reads x[i] only where i < n")


def _last_left_out(x, got, code):
    """The last group's sum short by x[n - 1] alone, the others right: a guard that stops one
    element early (i < n - 1, i <= n - 2), named as the code writes it."""
    n, g = x.size, got.size - 1
    guard = re.search(r"\b\w+\s*(?:<\s*n\s*-\s*1|<=\s*n\s*-\s*2)\b", code)
    named = f"the load's guard, {' '.join(guard.group().split())}," if guard else "the load's guard"
    return (f"the last work-group's sum, partial[{g}] = {got[g]:g}, is {x[-1]:g} less than its "
            f"elements' {got[g] + x[-1]:g}: {x[-1]:g} is x[{n - 1}] = x[n - 1], the last element, "
            f"which loaded 0: {named} stops one element early", "i < n, not i < n - 1: the "
            "elements are x[0] to x[n - 1], so " + GUARD_HINT)


def _reports(messages, n, code):
    """Oclgrind's reports (OpenCLExercise.reports), a read past the tile by the first work-item
    of a group named first: only a fold that starts at stride GROUP has that one read past it;
    then a barrier that the work-items past n alone missed."""
    outside = [m for m in messages if "invalid read" in m.kind.lower() and "local" in m.kind]
    if outside and min(m.work_items for m in outside)[0][0] % GROUP == 0:
        yield _first_stride_past(n, code)
    yield from doubled_with_t_mod_stride(outside, code)
    yield from missed_past_n(messages, n, code)
    yield from returned_in_the_fold(messages, code)
    races = [m for m in messages if "data race" in m.kind.lower()]
    if races:
        m = min(races, key=lambda m: m.work_items)
        seen = f"Oclgrind reported {len(races)} data races, the first at {m.where or 'an unknown line'}"
        yield from _test_on_the_read_s_bound(code, seen)
        yield from _barrier_before_the_load(code, seen)
        yield from fences_for_barriers(code, seen)
        yield from barrier_skipped_on_some_steps(code, seen)
    yield from EXERCISE.reports(messages)
    yield from unset_past_n(n, unset_groups(messages))


def _first_stride_past(n, code):
    """Work-item 0 of a group read past the tile: the fold's first stride, read in the code
    (``for (int stride = ...; ...)``, its value worked out from GROUP and n), is GROUP or more."""
    loop = re.search(r"for\s*\(\s*(?:int\s+)?(\w+)\s*=\s*([\w\s+\-*/()]+?)\s*;", code)
    start = re.sub(r"get_local_size\s*\(\s*0\s*\)", "GROUP", loop.group(2)) if loop else ""
    value = c_int_value(start, {"GROUP": GROUP, "n": n})  # None: a name the kernel defines
    hint = "the first step adds the upper half to the lower: start at stride = GROUP / 2"
    if not isinstance(value, int) or value < GROUP:
        return ("work-item 0 of a group read past the tile in the fold: its first stride is GROUP "
                "or more, so tile[t + stride] lies past the end for every t", hint)
    first = " ".join(loop.group(2).split())
    said = first if first == str(value) else f"{first} = {value}"
    if value == GROUP:
        return (f"work-item 0 of a group read past the tile in the fold: its first stride is "
                f"{said}, the tile's size, so tile[t + stride] lies past the end for every t", hint)
    if re.search(r"\bn\b", first):
        hint = "the tile holds GROUP elements, whatever n is: start at stride = GROUP / 2"
    return (f"work-item 0 of a group read past the tile in the fold: its first stride is "
            f"{said}, so tile[t + stride] lies past the end of the {GROUP}-entry tile (tile[0 + "
            f"{value}] for work-item 0)", hint)


def _endless(n, code):
    """A launch that ran past the time limit, whose fold's loop halves a stride while it is >= 0:
    stride reaches 0, and 0 / 2 stays 0, so the condition holds for ever."""
    loop = re.search(r"for\s*\(\s*(?:int\s+)?(\w+)\s*=[^;]*;\s*(?:\1\s*>=\s*0|0\s*<=\s*\1)\s*;"
                     r"\s*\1\s*(?:/=\s*2|>>=\s*1|=\s*\1\s*(?:/\s*2|>>\s*1))\s*\)", code)
    if loop:
        s = loop.group(1)
        yield (f"the fold's loop, {' '.join(loop.group().split())}, never ends: {s} >= 0 lets {s} "
               f"reach 0, and 0 / 2 stays 0, so the condition holds for ever (Oclgrind's launch "
               f"over n = {n} was stopped at the time limit)", f"loop while {s} > 0: the last "
               f"step is {s} = 1, and 1 / 2 = 0 ends the loop")


EXERCISE = OpenCLExercise(
    stub="exercises/group_sum.cl", kernel="group_sum",
    signature="__global const float *x, __global float *partial, int n",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes, races=True,
    race_hint=BARRIER_HINT, reports=_reports, text=code_mistake, uninitialized=True, endless=_endless,
    crash_hint="the tile has GROUP elements: only work-items t < stride add tile[t + stride]",
    success=f"every work-group's sum is right ({len(CASES)} sizes, none a multiple of "
            f"{GROUP}), and nothing written past the sums")

check_group_sum_opencl = EXERCISE.check_file          # (path="exercises/group_sum.cl")
check_group_sum_opencl_kernel = EXERCISE.check_kernel  # (kernel): the same on a built kernel
