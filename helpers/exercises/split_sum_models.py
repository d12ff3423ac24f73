"""Mistakes of ``helpers.exercises.split_sum`` read from the learner's code and the error it
raised (split_sum.py is at its size limit)."""

from __future__ import annotations

import ast

import numpy as np

from helpers.exercises.learner_code import code_of, frame_of, learner_line


def devices_from_len_x(fn, error, x, contexts):
    """n, the number of devices, taken as len(x) (n = len(x) where n = len(contexts) belongs):
    the loop for k in range(n) went past the devices, and contexts[k] raised IndexError. Read
    from fn's code (the assignment ``N = len(X)``, X its first parameter), the value of N in the
    frame that raised, and the line that raised (one that indexes its second parameter)."""
    line = learner_line(error) if isinstance(error, IndexError) else None
    if line is None or len(x) == len(contexts) or (code := code_of(fn)) is None:
        return
    tree = code.tree
    func = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)), None)
    if func is None or len(func.args.args) < 2:
        return
    data, devices = (a.arg for a in func.args.args[:2])
    named = [node.targets[0].id for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
             and ast.unparse(node.value) == f"len({data})"]
    frame = frame_of(error, fn)
    if not named or frame is None or f"{devices}[" not in line[2]:
        return
    values = frame.f_locals
    name = next((n for n in named if values.get(n) == len(x)), None)
    if name is None:
        return
    yield (f"{name} = len({data}) = {len(x)}, the number of elements, where {name} counts the "
           f"devices, {len(contexts)}: the loop went on past the last device, {devices}"
           f"[{len(contexts) - 1}], and {devices}[{len(contexts)}] raised IndexError at line "
           f"{line[0]} of {line[1]} ({line[2]}); the shares "
           f"k * len({data}) // {name} to (k + 1) * len({data}) // {name} were single elements",
           f"{name} is the number of devices: {name} = len({devices})")


def devices_from_1(fn, error, contexts):
    """The devices counted from 1, for k in range(1, n + 1): k reached n, past the last device,
    and contexts[k] raised IndexError (device 0's share never summed). Read from fn's code (a
    for loop over range(1, ...) whose variable indexes the second parameter on the line that
    raised) and the variable's value in the frame that raised."""
    line = learner_line(error) if isinstance(error, IndexError) else None
    if line is None or (code := code_of(fn)) is None or (frame := frame_of(error, fn)) is None:
        return
    func = next((node for node in ast.walk(code.tree) if isinstance(node, ast.FunctionDef)), None)
    if func is None or len(func.args.args) < 2:
        return
    devices, n = func.args.args[1].arg, len(contexts)
    loops = [node for node in ast.walk(func) if isinstance(node, ast.For)
             and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call)
             and ast.unparse(node.iter.func) == "range" and len(node.iter.args) >= 2
             and ast.unparse(node.iter.args[0]) == "1"
             and frame.f_locals.get(node.target.id) == n and f"{devices}[{node.target.id}]" in line[2]]
    if not loops:
        return
    k, loop = loops[0].target.id, ast.unparse(loops[0].iter)
    yield (f"the loop for {k} in {loop} counts the devices from 1: {k} reached {n}, past the "
           f"last device, {devices}[{n - 1}], and {devices}[{n}] raised IndexError at line "
           f"{line[0]} of {line[1]} ({line[2]}); and device 0's share ({k} = 0) was never summed",
           f"devices are numbered from 0 to n - 1, as list indices are: for {k} in range(n)")


def unpacked_out_of_order(fn, error):
    """A loop over a list that unpacks its tuples with the names they were appended with, in
    another order (started.append((k, share, ...)), for share, k, partial in started:), where the
    function raised inside that loop (``error``'s line): read from fn's code, as ``uncalled``."""
    line = learner_line(error) if error is not None else None
    if (code := code_of(fn)) is None:
        return
    names = lambda elts: [getattr(e, "id", None) for e in elts]  # noqa: E731 - None: no name
    appends = _appended(code)
    for loop in (node for node in ast.walk(code.tree) if isinstance(node, ast.For)
                 and isinstance(node.target, ast.Tuple) and isinstance(node.iter, ast.Name)):
        if line is None or not code.number(loop) <= line[0] <= code.first + loop.end_lineno - 1:
            continue
        took = names(loop.target.elts)
        for put in (t for into, t in appends if into == loop.iter.id and len(t.elts) == len(took)):
            given = names(put.elts)
            swaps = [(b, a) for a, b in zip(given, took) if a and a != b and a in took]
            if not swaps:
                continue
            right = [a or next(b for b in took if b not in given) for a in given]
            said = ", and ".join(f"{b} got what was appended as {a}" if i == 0 else
                                 f"{b} what was appended as {a}" for i, (b, a) in enumerate(swaps))
            yield (f"the loop for {', '.join(took)} in {loop.iter.id}: unpacks the tuples in another "
                   f"order than they were appended, {loop.iter.id}.append({ast.unparse(put)}): "
                   f"{said}; your function raised {type(error).__name__} at line {line[0]} of "
                   f"{line[1]} ({line[2]}), inside that loop",
                   f"unpack in the order the tuples were appended: for {', '.join(right)} in "
                   f"{loop.iter.id}:")
            return


def _appended(code):
    """(the list's name, the tuple) of each list.append((...)) of a tuple in ``code``."""
    return [(node.func.value.id, node.args[0]) for node in ast.walk(code.tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append" and isinstance(node.func.value, ast.Name)
            and len(node.args) == 1 and isinstance(node.args[0], ast.Tuple)]


def indexed_by_device(fn, error, calls):
    """A list of the devices that had a share (started.append((k, share, ...)) after an empty
    share was skipped) read back by device number, started[k] for each k: a device whose share
    was empty (``calls``: how often each device's sum ran) left it shorter, and started[k]
    raised IndexError. Read from fn's code (the list appended tuples, indexed by a name on the
    line that raised) and the values in the frame that raised."""
    line = learner_line(error) if isinstance(error, IndexError) else None
    empty = [k for k, ran in enumerate(calls) if not ran]
    if not empty or line is None or (code := code_of(fn)) is None or (
            frame := frame_of(error, fn)) is None:
        return
    func = next((node for node in ast.walk(code.tree) if isinstance(node, ast.FunctionDef)), None)
    devices = func.args.args[1].arg if func and len(func.args.args) > 1 else "contexts"
    for name, put in _appended(code):
        listed = frame.f_locals.get(name)
        for index in (node.slice.id for node in ast.walk(code.tree)
                      if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name)
                      and ast.unparse(node.value) == name and code.number(node) == line[0]):
            k = frame.f_locals.get(index)
            if isinstance(listed, list) and isinstance(k, int) and k >= len(listed):
                unpacked = ", ".join(getattr(e, "id", "partial") for e in put.elts)
                entries = f"{len(listed)} {'entry' if len(listed) == 1 else 'entries'}"
                yield (f"{name} holds an entry only for each device that had a share: device "
                       f"{empty[0]}'s share was empty (sums[{empty[0]}] never ran), so {name} has "
                       f"{entries}, and {name}[{index}] with {index} = {k} raised IndexError at "
                       f"line {line[0]} of {line[1]} ({line[2]}): {name}'s places are not device "
                       f"numbers", f"loop over what was started: for {unpacked} in {name}:, "
                       f"and use that entry's device's context: with using({devices}[k]):")
                return


def share_size_rounded(n, calls, probe):
    """One share size for all devices, size = round(len(x) / n), lo, hi = k * size, (k + 1) *
    size: told by a length m where round() takes m / n up (its shares then size, size, ..., the
    rest), where len(x) // n and its kin give len(x) // n each; ``probe(m)``: the shares for m."""
    devices = len(calls)
    if devices < 2 or n % devices == 0:
        return
    m = next(m for m in range(n + 1, n + 4 * devices) if round(m / devices) > m // devices)
    up = round(m / devices)
    shares = probe(m)
    if shares != [up] * (devices - 1) + [m - up * (devices - 1)]:
        return
    size = calls[0]
    yield (f"every share held round(len(x) / n) = round({n} / {devices}) = round({n / devices:g}) "
           f"= {size} elements, one size for all devices (round() took it down), so the last "
           f"share stopped before x[{size * devices}], not at len(x) = {n}, and "
           f"{n - size * devices} of the {n} elements were in no share (for {m} elements "
           f"round({m / devices:g}) = {up} took it up, and the shares came out {shares})",
           "a share size of len(x) / n rounded either way leaves elements out or reaches past the "
           "end where n does not divide len(x): give each device its own bounds, lo = k * len(x) "
           "// n, hi = (k + 1) * len(x) // n, the last ending at len(x)")


def return_in_a_loop(fn):
    """(line, place, its text, the loop's first line) of the first return inside a for loop of
    fn's code, None where none."""
    if (code := code_of(fn)) is None:
        return None
    found = [(node, loop) for loop in ast.walk(code.tree) if isinstance(loop, ast.For)
             for node in ast.walk(loop) if isinstance(node, ast.Return)]
    return next(((code.number(node), code.place, code.text(node), code.text(loop))
                 for node, loop in found[:1]), None)


def returned_in_the_collecting_loop(fn, got, x, calls, order):
    """return float(total) indented into the loop that collects the partial sums: every device's
    sum started, the first one's alone read (its get() ran, the others' never did), the sum that
    device's share alone, and fn's code has a return inside a for loop."""
    devices, n = len(calls), x.size
    bounds = [k * n // devices for k in range(devices + 1)]
    started = [k for what, k, *_ in order if what == "start"]
    read = [k for what, k, *_ in order if what == "read"]
    if len(started) < 2 or read != started[:1] or calls != [hi - lo for lo, hi in zip(
            bounds, bounds[1:])] or got != float(x[bounds[read[0]]:bounds[read[0] + 1]].sum(
            dtype=np.float64)) or (at := return_in_a_loop(fn)) is None:
        return
    never = ", ".join(f"device {k}'s" for k in started[1:])
    yield (f"the function returned after the collecting loop's first pass: device {read[0]}'s "
           f"partial sum was read, {never} was started but never read (its get() never ran), so "
           f"the sum is device {read[0]}'s share alone ({got:g}, expected "
           f"{x.sum(dtype=np.float64):g}): the return at line {at[0]} of {at[1]} is indented "
           "inside the loop, for k, share, partial in started:", "dedent return float(total) out "
           "of the collecting loop, to the function's level, so that it runs once, after every "
           "partial sum is added")


def _list_replaced(fn):
    """(code, the statement, its list's name) of the first assignment of a one-item list display
    to a name inside a for loop of fn's code whose name another for loop walks (started = [(k, share,
    sums[k](share))] in the launching loop, for ... in started: after it); None where none."""
    if (code := code_of(fn)) is None:
        return None
    walked = {loop.iter.id for loop in ast.walk(code.tree)
              if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Name)}
    found = [node for loop in ast.walk(code.tree) if isinstance(loop, ast.For)
             for node in ast.walk(loop) if isinstance(node, ast.Assign) and
             isinstance(node.value, ast.List) and len(node.value.elts) == len(node.targets) == 1 and
             isinstance(node.targets[0], ast.Name) and node.targets[0].id in walked]
    return (code, found[0], found[0].targets[0].id) if found else None


def list_replaced(fn, got, x, calls, order):
    """The list of started sums assigned anew on each pass of the launching loop (started =
    [(k, share, sums[k](share))]), not appended to: every device's sum started, the last one's
    alone read, the sum that device's share alone, and fn's code assigns a list display, in a
    loop, to a name a loop walks."""
    devices, n = len(calls), x.size
    bounds = [k * n // devices for k in range(devices + 1)]
    started = [k for what, k, *_ in order if what == "start"]
    read = [k for what, k, *_ in order if what == "read"]
    if len(started) < 2 or read != started[-1:] or calls != [hi - lo for lo, hi in zip(
            bounds, bounds[1:])] or got != float(x[bounds[read[0]]:bounds[read[0] + 1]].sum(
            dtype=np.float64)) or (found := _list_replaced(fn)) is None:
        return
    code, node, name = found
    never = ", ".join(f"device {k}'s" for k in started[:-1]) + \
        (" sum was" if len(started) == 2 else " sums were")
    yield (f"{name} holds only device {read[0]}'s partial sum: {ast.unparse(node)}, at "
           f"{code.at(node)}, replaces the list on each pass of the loop that starts the sums, "
           f"so {never} started but never read (its get() never ran) and the sum is device "
           f"{read[0]}'s share alone ({got:g}, expected {x.sum(dtype=np.float64):g})",
           f"append to the list, so that it keeps every device's: {name}.append("
           f"{ast.unparse(node.value.elts[0])})")


def divided_by_the_devices(fn, got, x, calls, order):
    """The sum averaged, float(total) / n (or / len(x)): the shares right, every partial sum read,
    and the sum the right one divided, exactly, by the number of devices (or of elements); the
    statement of fn's code that divides (a /) named where there is one."""
    devices, n = len(calls), x.size
    want = float(x.sum(dtype=np.float64))
    bounds = [k * n // devices for k in range(devices + 1)]
    started = [k for what, k, *_ in order if what == "start"]
    read = {k for what, k, *_ in order if what == "read"}
    divisors = [(d, what) for d, what in ((devices, "the number of devices"),
                                          (n, "the number of elements")) if d > 1]
    if devices < 2 or not want or set(started) != read or calls != [
            hi - lo for lo, hi in zip(bounds, bounds[1:])]:
        return
    d, what = next(((d, what) for d, what in divisors if got == want / d), (None, None))
    if d is None:
        return
    code = code_of(fn)
    divides = [] if code is None else [
        stmt for stmt in ast.walk(code.tree) if isinstance(stmt, (ast.Return, ast.Assign,
                                                                  ast.AugAssign))
        and (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Div) or any(
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) for node in ast.walk(stmt)))]
    divides.sort(key=lambda stmt: not isinstance(stmt, ast.Return))
    said = f", as {code.quoted(divides[0])} does" if divides else ""
    name = "n" if d == devices else "len(x)"
    yield (f"the sum is {got:g}, expected {want:g}: {'half' if d == 2 else f'1/{d}'} of it, "
           f"exactly {want:g} / {d}, the partial sums' total divided by {name} = {d}, {what}"
           f"{said}", "a sum is not averaged: return the total of the partial sums as it is, "
           "return float(total), with no division")


def sum_not_called(fn, error, sums, order):
    """``error``, an AttributeError asked of one of ``sums`` itself (its ``obj``), a function
    never called (no ("start", k) in ``order``): sums[k] stored where its partial sum belongs.
    Named with the line whose sums[...] is not called, where the code shows one."""
    j = next((k for k, s in enumerate(sums) if getattr(error, "obj", None) is s), None)
    if not isinstance(error, AttributeError) or j is None or ("start", j) in order:
        return
    name = getattr(error, "name", "get")
    told = (f"{name}() was asked of device {j}'s sum function, sums[{j}], itself: the function "
            "was stored where its partial sum belongs, and never called, so no device summed "
            "its share")
    hint = "call sums[k] on the share, sums[k](share), and keep what it returns, the partial sum"
    if (code := code_of(fn)) is None or not code.tree.body or not isinstance(
            code.tree.body[0], ast.FunctionDef) or len(code.tree.body[0].args.args) < 3:
        yield told, hint
        return
    param = code.tree.body[0].args.args[2].arg
    called = {id(c.func) for c in ast.walk(code.tree) if isinstance(c, ast.Call)}
    bare = next((s for s in ast.walk(code.tree) if isinstance(s, ast.Subscript) and isinstance(
        s.value, ast.Name) and s.value.id == param and id(s) not in called), None)
    if bare is None or bare.end_lineno != bare.lineno:
        yield told, hint
        return
    shares = [t.id for a in ast.walk(code.tree) if isinstance(a, ast.Assign) and isinstance(
        a.value, ast.Call) and ast.unparse(a.value.func).endswith("to_gpu") for t in a.targets
        if isinstance(t, ast.Name)]
    line, said = code.lines[bare.lineno - 1], ast.unparse(bare)
    fixed = (line[:bare.end_col_offset] + f"({shares[0] if shares else 'share'})"
             + line[bare.end_col_offset:]).strip()
    yield (f"{code.quoted(bare)} stores {said}, device {j}'s sum function, without calling it: "
           f"no device summed its share, and the loop that reads the partial sums got the "
           f"function, so .{name}() was asked of a function, not of a partial sum", f"call it on "
           f"the share: {fixed}, which starts device k's sum and keeps its partial sum")


def uploaded_outside(fn, error, order):
    """The share uploaded before `with using(contexts[k]):`, outside it: ``error`` is a kernel's
    LaunchError for memory of another device (its ``kind``, "no peer access"), raised in the sum
    of the device started last (``order``), and ``fn``'s code calls to_gpu in a statement that no
    with block holds: the share was allocated in the context current then, another device's."""
    from helpers.exercises.function import current_device

    started = [k for what, k, *_ in order if what == "start"]
    here = current_device()  # the context current when fn was called: the checker restored it
    if (getattr(error, "kind", None) != "no peer access" or not started or here is None
            or here == started[-1] or (code := code_of(fn)) is None):
        return
    held = {id(n) for w in ast.walk(code.tree) if isinstance(w, ast.With) for n in ast.walk(w)}
    upload = next((n for n in ast.walk(code.tree) if isinstance(n, (ast.Assign, ast.Expr))
                   and id(n) not in held and any(
                       isinstance(c, ast.Call) and "to_gpu" in (getattr(c.func, "attr", None),
                                                                getattr(c.func, "id", None))
                       for c in ast.walk(n))), None)
    if upload is None:
        return
    k = started[-1]
    yield (f"{code.text(upload)} ({code.at(upload)}) runs before `with using(contexts[k]):`, "
           f"outside it, so device {k}'s share was allocated on device {here}, the context "
           f"current then, and sums[{k}], which runs on device {k}, cannot read it: a kernel reads "
           "its own device's memory", "move the to_gpu inside the with block: with using("
           f"contexts[k]): {code.text(upload)}, then sums[k] on it, so that the share lives on "
           "device k")


def _names(target):  # the names a for loop's target binds
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _context_by_name(loop):
    """The first ``contexts[k]`` (a subscript by a name) made current in ``loop``: the argument
    of a call of using(), or the subscript whose push() is called; None where none."""
    for call in (c for c in ast.walk(loop) if isinstance(c, ast.Call)):
        made = (call.args[0] if call.args and ast.unparse(call.func).endswith("using") else
                call.func.value if getattr(call.func, "attr", "") == "push" else None)
        if isinstance(made, ast.Subscript) and isinstance(made.slice, ast.Name):
            return made
    return None


def k_left_over(fn, order):
    """Every partial sum read while the last device started was current, and fn's code reads
    them in a loop after the launching loop whose contexts[k] takes a k that loop does not set
    but the launching loop did: the k it left, the last device's; named with the append."""
    elsewhere = [event[1:] for event in order if event[0] == "read elsewhere"]
    last = [k for what, k, *_ in order if what == "start"][-1:]
    if not elsewhere or {c for _, c in elsewhere} != set(last) or not (code := code_of(fn)):
        return
    loops = [n for n in ast.walk(code.tree) if isinstance(n, ast.For)]
    for loop in (n for n in loops if isinstance(n.iter, ast.Name) and "get()" in ast.unparse(n)):
        context = _context_by_name(loop)
        name = context and context.slice.id
        if not name or name in _names(loop.target) or not any(
                n.end_lineno < loop.lineno and name in _names(n.target) for n in loops):
            continue
        kept = ", ".join(ast.unparse(e) for e in getattr(loop.target, "elts", [loop.target]))
        append = next((c for c in ast.walk(code.tree) if isinstance(c, ast.Call) and ast.unparse(
            c.func) == f"{loop.iter.id}.append" and len(c.args) == 1), None)
        held = ", ".join(ast.unparse(e) for e in getattr(append.args[0], "elts", append.args)
                         ) if append else kept
        yield (f"the collecting loop, {code.quoted(loop)}, does not set {name}: "
               f"{ast.unparse(context)} in it is the {name} the launching loop left, device "
               f"{last[0]}, the last, so device {elsewhere[0][0]}'s partial sum was read while "
               f"device {last[0]}'s context was current, and that read waits only for device "
               f"{last[0]}'s work", f"keep each partial sum's device with it: "
               f"{loop.iter.id}.append(({name}, {held})), and unpack it: for {name}, {kept} in "
               f"{loop.iter.id}:")
        return


def whole_x_uploaded(fn, got, x, calls):
    """Every device given all of x, to_gpu(x) (no slice): each summed len(x) elements (``calls``),
    the sum n times x's; ``fn``'s line that uploads a name, not a slice, named where known."""
    want, devices = float(x.sum(dtype=np.float64)), len(calls)
    if devices < 2 or calls != [x.size] * devices or got != devices * want or got == want:
        return
    up = (code := code_of(fn)) and next((c for c in ast.walk(code.tree) if isinstance(c, ast.Call)
                                         and ast.unparse(c.func).endswith("to_gpu") and c.args
                                         and isinstance(c.args[0], ast.Name)), None)
    said, name = (code.quoted(up), ast.unparse(up.args[0])) if up else ("to_gpu(x)", "x")
    yield (f"every device was given all {x.size} elements of x, not its share: {said} uploads "
           f"the whole array, so each device summed all of x, and the sum is {devices} times "
           f"x's ({got:g}, expected {want:g})", "upload the device's share alone: "
           f"gpuarray.to_gpu({name}[lo:hi]), with the lo and hi you computed")
