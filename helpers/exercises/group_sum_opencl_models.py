"""The models of notebook 12's sum per work-group (``cuda_src/opencl/exercises/group_sum.cl``)
that ``helpers.exercises.group_sum_opencl`` compares a kernel's sums with: folds that step, test
or add wrongly, each with its verdict; and, read in the code, fences written where the barriers
belong (``fences_for_barriers``), barriers that fence global memory only (``global_fences``), and
the doubling fold tested with t % stride == 0 (``doubled_with_t_mod_stride``), and the fold's
barrier skipped on some steps (``barrier_skipped_on_some_steps``)."""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises.common import c_int_value
from helpers.exercises.opencl_kernel import code_line

GROUP = 128


def _groups(n):
    return -(-n // GROUP)


def _sums(x, junk=0):
    """Each group's elements, a row a group, the elements past n taken as ``junk``."""
    padded = np.full(_groups(x.size) * GROUP, junk, np.float64)
    padded[:x.size] = x
    return padded.reshape(-1, GROUP)


def halved_interleaved(got, want, code):
    """The interleaved fold's test, t % (2 * stride) == 0 (named as the code writes it), with the
    stride still halving from GROUP / 2: at stride 64 only work-item 0 adds, at 32 only 0 and 64,
    ..., so tile[0] gathers tile[64], tile[32], ..., tile[1] alone (the sums of ``_upward``)."""
    test = re.search(r"\b(\w+)\s*%\s*\(\s*(?:2\s*\*\s*(\w+)|(\w+)\s*\*\s*2)\s*\)\s*==\s*0",
                     code)
    halves = re.search(r"(\w+)\s*=\s*GROUP\s*/\s*2\s*;[^;]*;\s*\1\s*(?:/=\s*2|>>=\s*1)", code)
    if not test or not halves or halves.group(1) != (test.group(2) or test.group(3)):
        return
    t, s = test.group(1), halves.group(1)
    g = int(np.argmax(got != want))
    yield (f"the fold's test, {' '.join(test.group().split())}, is the interleaved fold's, but "
           f"the stride halves from GROUP / 2 = {GROUP // 2}: at {s} = {GROUP // 2} only "
           f"work-item 0 adds, at {GROUP // 4} only 0 and {GROUP // 2}, ..., so tile[0] gathers "
           f"tile[{GROUP // 2}], tile[{GROUP // 4}], ..., tile[1] alone and each sum misses most "
           f"of its group (partial[{g}] = {got[g]:g}, expected {want[g]:g})",
           f"with {s} halving from GROUP / 2, the work-items that add are the lower half: "
           f"if ({t} < {s}) tile[{t}] += tile[{t} + {s}];")



def doubled_with_t_mod_stride(outside, code):
    """Reads past the tile (Oclgrind's reports, ``outside``) where the fold's stride doubles from
    1 and its test is t % stride == 0 (named as the code writes it), the interleaved fold's test
    without its 2: at each step work-items t and t + stride both add, the second rewriting the
    element the first reads, and at stride GROUP / 2 work-item GROUP / 2 reads tile[GROUP]."""
    loop = re.search(r"for\s*\(\s*(?:int\s+)?(\w+)\s*=\s*1\s*;[^;]*;\s*\1\s*(?:\*=\s*2|<<=\s*1|"
                     r"=\s*\1\s*\*\s*2|=\s*2\s*\*\s*\1)\s*\)", code)
    test = loop and re.compile(rf"\b(\w+)\s*%\s*{loop.group(1)}\s*==\s*0").search(code, loop.end())
    if not outside or not test:
        return
    t, s, half = test.group(1), loop.group(1), GROUP // 2
    first = min(outside, key=lambda m: m.work_items)
    yield (f"the fold's test, {' '.join(test.group().split())}, with {s} doubling from 1, lets "
           f"work-items {t} and {t} + {s} both add in the same step ({t} + {s} is a multiple of "
           f"{s} too): at {s} = 1 every work-item adds, work-item 0 reading tile[1] while "
           f"work-item 1 adds to it, and at {s} = {half} work-item {half} reads tile[{GROUP}], "
           f"past the {GROUP}-entry tile (Oclgrind reported {len(outside)} reads outside the "
           f"tile, the first at {first.where or 'an unknown line'})",
           f"in an interleaved fold only the work-items {t} % (2 * {s}) == 0 add tile[{t} + "
           f"{s}]: if ({t} % (2 * {s}) == 0) (or halve {s} from GROUP / 2 down to 1 and test "
           f"{t} < {s})")

def _counted_down(x, got):
    """The sums of a fold whose stride counts down by 1 or 2 (stride -= 2) where it halves: each
    step still adds tile[t + stride] to tile[t] for t < stride, so elements are added again."""
    for step in (1, 2):
        tiles = _sums(x).astype(np.float32)
        for stride in range(GROUP // 2, 0, -step):
            tiles[:, :stride] += tiles[:, stride:2 * stride]
        if np.array_equal(got, tiles[:, 0]):
            strides = ", ".join(str(GROUP // 2 - k * step) for k in range(3))
            yield (f"the fold's stride counts down by {step} ({strides}, ..., {step}), not "
                   f"halved ({GROUP // 2}, {GROUP // 4}, ..., 1): each step adds tile[t + stride] onto tile[t] for t "
                   "< stride, so elements already added are added again (the first sum: "
                   f"partial[0] = {got[0]:g}, expected {_sums(x)[0].sum():g})", "halve the "
                   f"stride each step: stride /= 2, not stride -= {step} (for (int stride = "
                   "GROUP / 2; stride > 0; stride /= 2))")


def _assigned(x, got):
    """Each sum is its group's last element, as a fold whose step assigns, tile[t] = tile[t +
    stride] (= where += belongs), leaves in tile[0]: each step copies the upper half onto the
    lower, so tile[0] ends as tile[64 + 32 + ... + 1] = tile[GROUP - 1]."""
    want, last = _sums(x).sum(axis=1), _sums(x)[:, GROUP - 1]
    if np.array_equal(got, last) and not np.array_equal(got, want):
        g = int(np.argmax(got != want))
        yield (f"each sum is one element of its group, the last (partial[{g}] = {got[g]:g} = "
               f"x[{g * GROUP + GROUP - 1}], expected {want[g]:g}): the fold's step assigns, "
               "tile[t] = tile[t + stride], so each step overwrites the lower half with the "
               "upper half instead of adding it", "add, not assign: tile[t] += tile[t + stride];")


def _added_upward(got, want, code):
    """Each sum is its group's first element, and the fold's step adds the lower element onto
    the upper, tile[t + stride] += tile[t] (named as the code writes it): tile[0] is never
    added to, so it keeps x[g * GROUP]."""
    step = re.search(r"\b(\w+)\s*\[\s*(\w+)\s*\+\s*(\w+)\s*\]\s*\+=\s*\1\s*\[\s*\2\s*\]",
                     code)
    if not step:
        return
    tile, t, s = step.groups()
    g = int(np.argmax(got != want))
    yield (f"each sum is its group's first element (partial[{g}] = {got[g]:g} = "
           f"x[{g * GROUP}], expected {want[g]:g}): the fold's step, {tile}[{t} + {s}] += "
           f"{tile}[{t}], adds the wrong way round: it adds the lower half onto the upper, so "
           f"{tile}[0] is never added to and keeps its own element",
           f"add the upper half onto the lower: {tile}[{t}] += {tile}[{t} + {s}]; then "
           f"{tile}[0] ends with the group's sum")


def _upward(tiles):
    """Each group's tile[0] after a fold of strides 1, 2, 4, ... with the test t < stride."""
    tiles, stride = tiles.copy(), 1
    while stride < GROUP:
        tiles[:, :stride] += tiles[:, stride:2 * stride]
        stride *= 2
    return tiles[:, 0]



def indexed_by_the_number_of_groups(x, got):
    """The sums of a load at i = g * G + t, G the number of work-groups (get_num_groups(0), CUDA's
    gridDim) where the group's size (GROUP, blockDim) belongs: the groups' slices of x overlap
    or leave gaps (elements past n load 0, as the guard gives)."""
    groups, n = _groups(x.size), x.size
    index = np.arange(groups)[:, None] * groups + np.arange(GROUP)[None, :]
    loaded = np.where(index < n, x[np.minimum(index, n - 1)], 0).astype(np.float64)
    want = _sums(x).sum(axis=1)
    if groups < 2 or not np.array_equal(got, loaded.sum(axis=1)) or np.array_equal(got, want):
        return
    g = int(np.argmax(got != want))
    yield (f"work-group g loaded x[g * {groups} + t], g times the number of work-groups "
           f"({groups}, get_num_groups(0)), not x[g * {GROUP} + t], g times the work-group's "
           f"size ({GROUP}): the groups' slices of x {'overlap' if groups < GROUP else 'leave gaps'} (partial[{g}] = {got[g]:g} is the "
           f"sum of x[{g * groups}] to x[{min(g * groups + GROUP, n) - 1}], expected "
           f"{want[g]:g})", "a work-item's element is i = get_global_id(0), which is "
           "get_group_id(0) * get_local_size(0) + get_local_id(0): work-groups of "
           f"{GROUP} work-items start {GROUP} elements apart")


def clamped_load(x, got, want):
    """The load's index clamped to the last element (tile[t] = x[i < n ? i : n - 1], the blur's
    edge habit): the last group's work-items past n repeat x[n - 1], where they belong 0."""
    n, pad = x.size, -x.size % GROUP
    if not (pad and x[-1] and np.array_equal(got, _sums(x, x[-1]).sum(axis=1))):
        return
    yield (f"the last work-group's sum, partial[{got.size - 1}] = {got[-1]:g}, is "
           f"{got[-1] - want[-1]:g} more than its elements' {want[-1]:g}: its {pad} work-items "
           f"past n = {n} loaded x[n - 1] = x[{n - 1}] = {x[-1]:g} ({pad} * {x[-1]:g} = "
           f"{pad * x[-1]:g}): the index was clamped to the last element, which repeats it in "
           "the tile, where those entries must hold 0", "a work-item past the end adds "
           "nothing: load 0 there, not x[n - 1]: tile[t] = i < n ? x[i] : 0.0f")


def private_tile(x, got, code):
    """Wrong sums, and the array the fold reads (name[... + ...]) declared in the kernel without
    __local: one private copy a work-item, whose entries other than its own no one wrote (named
    from the declaration: their values are Oclgrind's zeros, or a GPU's leftovers)."""
    want = _sums(x).sum(axis=1)
    if np.array_equal(got, want):
        return
    for found in re.finditer(r"(?:\b(__local|local|__private|private)\s+)?\b((?:unsigned\s+)?"
                             r"(?:float|double|half|int|long|short|char))\s+(\w+)\s*\[([^\]]*)\]"
                             r"\s*;", code):
        space, kind, name, size = found.groups()
        if space in ("__local", "local") or not re.search(rf"\b{name}\s*\[[^\]]*\+", code):
            continue
        g, line = int(np.argmax(got != want)), code_line(code, found.start())
        yield (f"the tile is declared without __local (line {line}: "
               f"{' '.join(found.group().split())}), so it is private: each work-item has a "
               f"{name} of its own, in which it set only {name}[t], and the fold read entries of "
               f"it that no one wrote (partial[{g}] = {got[g]:g}, expected {want[g]:g})",
               f"declare the tile in local memory, one for the whole work-group, which every "
               f"work-item loads into and the barriers share: __local {kind} {name}[{size.strip()}];")
        return


def id_declared_local(x, out, code):
    """Wrong sums (or none), and a name given a work-item's id (get_local_id(0) or
    get_global_id(0)) declared a __local scalar: one variable the whole work-group shares, which
    every work-item overwrote, so after the barrier all read the last writer's id (a GPU's
    writers race: any one's). Named from the declaration, as the code writes it."""
    got, want = out.got, _sums(x).sum(axis=1)
    if np.array_equal(got, want):
        return
    for found in re.finditer(r"\b(?:__local|local)\s+((?:unsigned\s+)?(?:u?int|u?long|u?short|"
                             r"size_t))\s+(\w+)\s*;", code):
        kind, name = found.groups()
        call = re.search(rf"\b{name}\s*=\s*(get_(?:local|global)_id)\s*\(\s*0\s*\)", code)
        if not call:
            continue
        g = int(np.argmax(got != want))
        tested = re.search(rf"\bif\s*\(\s*{name}\s*==\s*0\s*\)", code)
        seen = (f"partial[{g}] = {got[g]:g}, expected {want[g]:g}" if not out.unwritten.all()
                else f"{name} == 0 held for none at the store, so nothing was written to partial"
                if tested else "nothing was written to partial")
        yield (f"{name} is declared __local (line {code_line(code, found.start())}: "
               f"{' '.join(found.group().split())}), one variable the whole work-group shares, "
               f"not one a work-item: every work-item wrote its {call.group(1)}(0) into the same "
               f"{name}, so after the barrier all of them read the last writer's {name} ({seen})",
               f"declare {name} private, one a work-item: {kind} {name} = {call.group(1)}(0); "
               "(__local is for what the whole work-group shares, like the tile)")
        return


def load_at_the_local_id(x, got, want, code):
    """Each group's sum is that of x's first elements, as many as the group has below n, as a
    load that reads x at the local id (tile[t] = i < n ? x[t] : 0.0f, the guard still on i)
    gives; the load named as the code writes it (a store to the tile that reads x at a name
    given get_local_id(0))."""
    n = x.size
    first = np.array([x[:min(GROUP, n - g * GROUP)].sum() for g in range(_groups(n))])
    if got.size < 2 or not np.array_equal(got, first) or np.array_equal(got, want):
        return
    local = re.findall(r"\b(\w+)\s*=\s*get_local_id\s*\(\s*0\s*\)", code)
    glob = re.findall(r"\b(\w+)\s*=\s*get_global_id\s*\(\s*0\s*\)", code)
    load = local and re.search(rf"\b\w+\s*\[[^\]]*\]\s*=[^;]*\bx\s*\[\s*({'|'.join(local)})\s*\]"
                               r"[^;]*;", code)
    g = int(np.argmax(got != want))
    shown = f"partial[{g}] = {got[g]:g} = partial[0], expected {want[g]:g}"
    i = glob[0] if glob else "get_global_id(0)"
    if load:
        t, said = load.group(1), " ".join(load.group().split())
        yield (f"the load, {said}, reads x[{t}], at the work-item's place in its group ({t} = "
               f"get_local_id(0), 0 to {GROUP - 1}), not at its global id {i}: every work-group "
               f"summed x[0], x[1], ... ({shown})", f"read x at the global id: "
               f"{said.replace(f'x[{t}]', f'x[{i}]').replace(f'x[ {t} ]', f'x[{i}]')} "
               f"({t} is the place in the tile, {i} the element of x)")
    yield (f"every work-group summed x[0], x[1], ... ({shown}): x was read at the local id",
           "a work-item's element is x[get_global_id(0)]; get_local_id(0) is its place in the "
           "tile")


def returned_in_the_fold(messages, code):
    """The first barrier that only some work-items of a group reached (Oclgrind's report), with a
    return between the fold's loop head and that barrier's line (if (t >= stride) return;, named
    as the code writes it): the work-items it sends away leave the kernel, so they miss this
    step's barrier and every later one."""
    loop = re.search(r"\bfor\s*\(", code)
    # the lowest work-group's: Oclgrind's threads report the groups in no fixed order (a clone's
    # run named work-group 1 once, where every other run had named work-group 0)
    diverged = sorted((m for m in messages if "divergence" in m.kind.lower()),
                      key=lambda m: (m.group is None, tuple(m.group or ())))
    for m in diverged[:1]:
        if not (loop and m.line and m.executed):
            return
        found = [r for r in re.finditer(r"(?:\bif\s*\(([^;{]*)\)\s*\{?\s*)?\breturn\b[^;]*;",
                                        code[loop.end():]) if code_line(code, loop.end()
                                                                         + r.start()) < m.line]
        if not found:
            return
        r = found[-1]
        said = " ".join(r.group().split())
        where = f"work-group {m.group[0]}" if m.group else "a work-group"
        yield (f"{said} (line {code_line(code, loop.end() + r.start())}) sends work-items out of "
               f"the kernel in the fold: only {m.executed[0]} of the {m.executed[1]} of {where} "
               f"reached the barrier at line {m.line}, the others had returned (and reach no "
               "later step's barrier either)", "do not return in the fold, only skip the add: "
               "if (t < stride) tile[t] += tile[t + stride]; then barrier(CLK_LOCAL_MEM_FENCE), "
               "outside the if, which every work-item of the group reaches")


def fences_for_barriers(code, seen):
    """Fences (mem_fence, read_mem_fence, write_mem_fence) in the code and no barrier: a fence
    orders one work-item's own memory accesses and makes no work-item wait for the others, so a
    work-item reads a tile element before its owner has written it (named after ``seen``:
    Oclgrind's report, or wrong sums). Named as the code writes them, at their lines."""
    fences = list(re.finditer(r"\b(?:read_|write_)?mem_fence\s*\([^)]*\)", code))
    if not fences or re.search(r"\b(?:work_group_)?barrier\s*\(", code):
        return
    lines = [str(code_line(code, fence.start())) for fence in fences]
    calls = sorted({" ".join(fence.group().split()) for fence in fences})
    yield (f"line{'s' if len(lines) > 1 else ''} {' and '.join(lines)} call "
           f"{' and '.join(calls)}, a fence, where a barrier belongs: a fence orders only this "
           "work-item's own memory accesses and makes no work-item wait for the others, so a "
           f"work-item reads a tile element before its owner has written it ({seen})",
           "use barrier(CLK_LOCAL_MEM_FENCE), CUDA's __syncthreads(), in each fence's place: "
           "every work-item of the group waits there until all have reached it")


def barrier_skipped_on_some_steps(code, seen):
    """The fold's barrier under an if on its stride alone (if (stride > 32) barrier(...);, CUDA's
    warp-synchronous trick): the steps on which the test fails run with no barrier, and OpenCL's
    work-items of a group do not run in lockstep, so a work-item may read tile[t + stride]
    before its owner has added into it (named after ``seen``: Oclgrind's report, or wrong
    sums). The skipped strides are worked out where the test is stride > or >= a value."""
    loop = re.search(r"\bfor\s*\(\s*(?:int\s+)?(\w+)\s*=\s*([^;]*);", code)
    s = loop and loop.group(1)
    guarded = s and re.search(rf"\bif\s*\(([^()]*\b{s}\b[^()]*)\)\s*\{{?\s*(?:work_group_)?"
                              r"barrier\s*\(", code[loop.end():])
    if not guarded or not all(name == s or name.isupper()
                              for name in re.findall(r"[A-Za-z_]\w*", guarded.group(1))):
        return
    test = " ".join(guarded.group(1).split())
    line = code_line(code, loop.end() + guarded.end() - 1)
    skipped = _strides_failing(test, s, c_int_value(loop.group(2), {"GROUP": GROUP}))
    steps = (f"the steps with stride {', '.join(map(str, skipped[:-1]))} and {skipped[-1]}"
             if len(skipped) > 1 else f"the step with stride {skipped[0]}" if skipped else
             "the steps on which that test fails")
    yield (f"the barrier at line {line} stands under if ({test}): {steps} run with no barrier, "
           "as CUDA's warp-synchronous trick has it, but the work-items of an OpenCL work-group "
           "do not run in lockstep (OpenCL promises no warps), so a work-item may read "
           f"tile[t + {s}] before its owner has added into it ({seen})",
           "put barrier(CLK_LOCAL_MEM_FENCE) after every step of the fold, with no if around it: "
           "each step's reads then wait for the step before, down to the last")


def _strides_failing(test, s, start):
    """The fold's strides (``start`` halved down to 1) for which ``test``, s > value or s >=
    value, fails; [] where the test or the start is of another form."""
    bound = re.fullmatch(rf"{s}\s*(>=?)\s*(.+)", test)
    value = bound and c_int_value(bound.group(2), {"GROUP": GROUP})
    if not isinstance(value, int) or not isinstance(start, int) or start < 1:
        return []
    strides = [start >> k for k in range(start.bit_length())]
    return [x for x in strides if not (x > value if bound.group(1) == ">" else x >= value)]


def global_fences(code):
    """Barriers that fence global memory only, read in the kernel's code: on NVIDIA's OpenCL
    every barrier orders local memory too, so the sums come out right there, and on Oclgrind
    (which keeps to the standard) the fold is a race."""
    fences = re.findall(r"\b(?:work_group_)?barrier\s*\(([^)]*)\)", code)
    if fences and not any("CLK_LOCAL_MEM_FENCE" in f for f in fences):
        return (f"your barriers fence global memory only ({fences[0].strip()}): the tile is "
                "__local, and its writes are ordered for the other work-items only by "
                "barrier(CLK_LOCAL_MEM_FENCE)", "use barrier(CLK_LOCAL_MEM_FENCE) after the "
                "load and after each step of the fold (a GPU that waits anyway hides it)")
    return None


def stored_past_the_last_slot(out, code):
    """Every sum unwritten and the one place past them written: every work-group stored at the
    same index, the number of work-groups (get_num_groups(0), the same for every group), where its
    own number belongs; the store's index named as the code writes it."""
    groups = out.got.size
    if not out.unwritten.all() or set(out.past.tolist()) != {groups}:
        return
    store = re.search(r"\bpartial\s*\[([^\]]*)\]\s*=(?!=)", code)
    place = " ".join(store.group(1).split()) if store else str(groups)
    said = f" (partial[{place}])" if place != str(groups) else ""
    why = (f"get_num_groups(0) is how many work-groups there are ({groups})"
           if "get_num_groups" in place else f"{groups} is the number of work-groups")
    slots = f"partial[0] to partial[{groups - 1}] were" if groups > 1 else "partial[0] was"
    yield (f"every work-group stored its sum at partial[{groups}]{said}: {why}, the same for "
           f"every group, one past the last slot, so {slots} never written",
           "each work-group stores at its own number, get_group_id(0) (0 to get_num_groups(0) - "
           "1): partial[get_group_id(0)] = tile[0]")
