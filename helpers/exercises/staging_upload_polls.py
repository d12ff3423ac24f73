"""The learner's streams in notebook 05's double-buffering exercise, for
``helpers.exercises.staging_upload``: their waits and questions as the host made them
(``noting_streams``), a stream asked whether its copies are done where the host should wait for
it (``asked_not_waited``), query(), an Event's question, asked of a stream
(``stream_queried``), every copy queued on one stream (``one_way_only``), and a stream waited for
right after its copy was queued (``waited_after_its_copy``)."""

from __future__ import annotations

import ast

from helpers.exercises.learner_code import code_of

WAIT = "wait for the stream before refilling its buffer: {}.synchronize()"


def noting_streams(driver, log, queued, count):
    """``count`` streams of ``driver`` whose waits (``("wait", the stream)``, noting what the
    queued copies' sources hold: ``queued.settle``) and questions (``("asked", the stream)`` for
    an is_done() that said no, ``("done", the stream)`` for a yes) go into ``log``."""
    class Stream(driver.Stream):
        def synchronize(self):
            log.append(("wait", self))
            queued.settle()
            return super().synchronize()

        def is_done(self):
            done = super().is_done()
            log.append(("done" if done else "asked", self))
            return done

    return [Stream() for _ in range(count)]


def _call(fn, method):
    """(the first call of ``method`` on a name in ``fn``'s code, that name), (None, "s") where
    the code is not known or has none."""
    code = code_of(fn)
    node = code and next((n for n in ast.walk(code.tree) if isinstance(n, ast.Call)
                          and isinstance(n.func, ast.Attribute) and n.func.attr == method), None)
    return (code, node, ast.unparse(node.func.value)) if node else (None, None, "s")


def asked_not_waited(log, fn):
    """(problem, hint) where a copy was queued on a stream whose last is_done() said no, with no
    wait since (``log``, as ``noting_streams`` and staging_upload's copies fill it): the
    answer taken for a wait; else None. The line that asks is named where ``fn``'s code shows it."""
    last = {}
    for what, s in log:
        if what in ("context wait", "event wait", "blocking"):
            last.clear()
        elif what in ("asked", "done", "wait"):
            last[id(s)] = what
        elif what == "copy" and last.get(id(s)) == "asked":
            break
    else:
        return None
    code, node, name = _call(fn, "is_done")
    where = f" at {code.quoted(node)}" if node else ""
    return (f"{name}.is_done(){where} only asks whether the stream's copies are done and returns "
            "at once (here with False): it does not wait, so its staging buffer was refilled "
            "while the copy out of it, two chunks back, had not run, and that copy carried the "
            "later chunk's data", WAIT.format(name) + " (is_done() is for a host that does "
            "other work meanwhile and asks again)")


def stream_queried(fn, streams):
    """For ``run_catching``'s hints (AttributeError): query() asked of one of ``streams`` (the
    error's ``obj`` and ``name``), where a Stream has is_done() and an Event query()."""
    def told(err):
        if getattr(err, "name", None) != "query" or not any(
                getattr(err, "obj", None) is s for s in streams):
            return None
        name = _call(fn, "query")[2]
        return ("a Stream has no query() (an Event has one; a stream's question is is_done()), "
                f"and asking does not wait: the copy out of {name}'s staging buffer may still "
                "be queued when the buffer is refilled", WAIT.format(name))
    return told


def one_way_only(log, streams, taken, chunk, fn):
    """(problem, hint) where every copy of ``log`` went on one of ``streams`` (and, where
    ``taken``, the indices the function took of staging, holds one, through one buffer): the
    other one never used, so each wait before a refill waited for the copy just queued; the
    cause named where ``fn``'s code queues the copy on a fixed stream though the buffers take
    turns (``_fixed_stream``), or takes a buffer or stream at ``name % 2``, name stepping
    through a range by the ``chunk``, an even number (lo); else None."""
    used = [s for what, s in log if what == "copy"]
    if len(used) < 2 or any(s is not used[0] for s in used) or not any(
            s is used[0] for s in streams):
        return None
    k = next(i for i, s in enumerate(streams) if s is used[0])
    bufs = {t for t in taken if isinstance(t, int)}
    if len(bufs) != 1 and (told := _fixed_stream(fn, k, [s for what, s in log if what == "wait"
                                                          and s is streams[1 - k]])):
        return told
    way, other = ((f"staging[{min(bufs)}] on streams[{k}]", "buffer and stream were")
                  if len(bufs) == 1 else (f"streams[{k}]", "stream was"))
    why = _parity(fn, chunk) if chunk % 2 == 0 else ""
    return (f"d holds h, but every chunk went through {way}, and the other {other} never "
            f"used{why}; each wait before a refill waited for the copy just queued, so no filling "
            "ran beside a copy", "number the chunks, for c, lo in enumerate(range(0, n, chunk)), "
            "and take chunk c's buffer and stream by that number: staging[c % 2], "
            "streams[c % 2] (0, 1, 0, 1, ...)")


def _fixed_stream(fn, k, idle):
    """(problem, hint) where ``fn``'s code queues its copy on one stream, ``streams[k]`` (a
    constant index), while the buffers take turns: named with the call and the name the code
    gives chunk c's stream where it has one (s = streams[c % 2]); ``idle``, the waits for the
    stream that got no copy. None where the code does not show it."""
    code = code_of(fn)
    calls = [n for n in ast.walk(code.tree) if isinstance(n, ast.Call)
             and getattr(n.func, "attr", "") == "memcpy_htod_async"] if code else []
    call, given = next(((n, g) for n in calls for g in [*n.args[2:3], *(
        w.value for w in n.keywords if w.arg == "stream")] if isinstance(g, ast.Subscript)
        and isinstance(g.slice, ast.Constant) and g.slice.value == k), (None, None))
    if call is None:
        return None
    fixed, many = ast.unparse(given), ast.unparse(given.value)
    named = next((n for n in ast.walk(code.tree) if isinstance(n, ast.Assign)
                  and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                  and isinstance(n.value, ast.Subscript) and ast.unparse(n.value.value) == many
                  and isinstance(n.value.slice, ast.BinOp)
                  and isinstance(n.value.slice.op, ast.Mod)), None)
    own = named.targets[0].id if named else f"{many}[c % 2]"
    chosen = f"{own} = {ast.unparse(named.value)} ({code.at(named)})" if named else own
    nothing = (f"waiting for {many}[{1 - k}] before refilling staging[{1 - k}] waited for "
               f"nothing, and " if idle else "")
    return (f"d holds h, but every copy was queued on {fixed} ({code.quoted(call)}), not on "
            f"chunk c's stream, {chosen}: the copies out of staging[{1 - k}] ran on {fixed} too, "
            f"so {nothing}each wait for {fixed} waited for the copy just queued, out of the "
            "other buffer: no filling ran beside a copy", f"queue chunk c's copy on {own}: "
            f"{ast.unparse(call.func)}({', '.join(map(ast.unparse, call.args[:2]))}, {own})")


def _stepped(loop):
    """(the name a for ``loop`` steps through a range(start, stop, step), as itself or as the
    second name of enumerate's pairs, the step's text); None for another loop."""
    it, target = loop.iter, loop.target
    if (isinstance(it, ast.Call) and ast.unparse(it.func) == "enumerate" and it.args
            and isinstance(target, ast.Tuple) and len(target.elts) == 2):
        it, target = it.args[0], target.elts[1]
    if (isinstance(it, ast.Call) and ast.unparse(it.func) == "range" and len(it.args) == 3
            and isinstance(target, ast.Name)):
        return target.id, ast.unparse(it.args[2])
    return None


def _parity(fn, chunk):
    """": lo % 2 is 0 for every chunk ..." where ``fn``'s code takes a buffer or stream at
    ``name % 2`` and a loop steps name through a range by a step (the ``chunk``, even): every
    name it takes is a multiple of it, an even number; "" where the code does not show it."""
    code = code_of(fn)
    for node in ast.walk(code.tree) if code else ():
        if (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.BinOp)
                and isinstance(node.slice.op, ast.Mod) and isinstance(node.slice.left, ast.Name)
                and ast.unparse(node.slice.right) == "2"):
            name = node.slice.left.id
            step = next((s for loop in ast.walk(code.tree) if isinstance(loop, ast.For)
                         and (s := _stepped(loop)) and s[0] == name), None)
            if step:
                return (f": {name} % 2 is 0 for every chunk ({code.quoted(node)}), since "
                        f"{name} steps by {step[1]} = {chunk:,}, an even number")
    return ""


def waited_after_its_copy(fn):
    """(problem, hint) where ``fn``'s code, in its chunk loop, waits for a stream right after it
    queued the chunk's copy on that stream (the wait's stream the copy's): each copy waited for
    as soon as it was queued; None where the code is not known or has no such wait. For a run
    whose every copy the host waited for before it queued the next."""
    if (code := code_of(fn)) is None:
        return None
    for loop in (n for n in ast.walk(code.tree) if isinstance(n, (ast.For, ast.While))):
        copy = next((n for n in ast.walk(loop) if isinstance(n, ast.Call)
                     and getattr(n.func, "attr", "") == "memcpy_htod_async"), None)
        way = copy and [*copy.args[2:3], *(k.value for k in copy.keywords if k.arg == "stream")]
        wait = way and next((n.value for n in loop.body if isinstance(n, ast.Expr)
                             and isinstance(n.value, ast.Call) and n.lineno > copy.lineno
                             and getattr(n.value.func, "attr", "") == "synchronize"
                             and ast.unparse(n.value.func.value) == ast.unparse(way[0])), None)
        if wait:
            fill = next((n for n in loop.body if isinstance(n, ast.Assign) and n.lineno
                         < copy.lineno and isinstance(n.targets[0], ast.Subscript)), None)
            told = f"{ast.unparse(wait)} ({code.at(wait)})"
            return (f"d holds h, but {told} comes right after the copy it waits for "
                    f"({code.at(copy)}): each copy was waited for as soon as it was queued, so "
                    "the host filled the next chunk only once it was done, and no filling ran "
                    "beside a copy", f"move {ast.unparse(wait)} above the filling"
                    + (f", {ast.unparse(fill)} ({code.at(fill)})" if fill else " of the buffer")
                    + ": there it waits for the copy queued two chunks back, out of the same "
                    "buffer, while the other stream's copy runs on")
    return None
