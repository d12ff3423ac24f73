"""How the learner's function of notebook 05's double-buffering exercise fills its staging
buffers, for ``helpers.exercises.staging_upload``: each asynchronous copy's source as the host
queued it (``Queued``), the learner's events as the host records and waits for them
(``noting_events``) and its waits for the context (``noting_context``), a buffer filled after its copy was queued (``filled_after_queued``), and,
with d right, copies that did not go through the staging buffers (``not_staged``), a name that
held a buffer rebound to a slice of h among them (``rebound_to_h``)."""

from __future__ import annotations

import ast

import numpy as np

from helpers.exercises.learner_code import code_of


class Queued:
    """The asynchronous copies as the host queued them, in ``copies``: each one's source (None
    where not an array), what it held when the copy was queued, what it held at the host's next
    call to the driver (a copy, a wait) or its return (``settle``), and (code, line) of the frame
    that queued it."""

    def __init__(self):
        self.copies = []

    def queued(self, src, frame):
        self.settle()
        held = np.array(src, copy=True) if isinstance(src, np.ndarray) else None
        self.copies.append([src, held, None, (frame.f_code, frame.f_lineno)])

    def settle(self):
        """Note what each copy's source holds now, for the copies queued since the last call."""
        for copy in self.copies:
            if copy[1] is not None and copy[2] is None:
                copy[2] = np.array(copy[0], copy=True)


def noting_events(driver, log, queued):
    """``driver``'s Event class, its records (``("record", the event)``, the stream noted as
    the event's ``stream``) and its waits (``("event wait", the event)``) going into ``log``, a
    wait noting what the queued copies' sources hold (``queued.settle``)."""
    class Event(driver.Event):
        def record(self, stream=None):
            self.stream = stream
            log.append(("record", self))
            super().record(stream)
            return self

        def synchronize(self):
            log.append(("event wait", self))
            queued.settle()
            super().synchronize()
            return self

    return Event


def noting_context(driver, log, queued):
    """``driver``'s Context, its waits (``("context wait", None)``) going into ``log``, a wait
    noting what the queued copies' sources hold (``queued.settle``)."""
    class Context:
        def __getattr__(self, name):
            return getattr(driver.Context, name)

        @staticmethod
        def synchronize():
            log.append(("context wait", None))
            queued.settle()
            return driver.Context.synchronize()

    return Context()


def filled_after_queued(queued, places, h, chunk, staging, fn):
    """(problem, hint) of the first copy (``queued.copies``, ``places`` their byte offsets in d
    and bytes) whose source did not hold, when it was queued, the chunk of ``h`` meant for its
    place in d, and held it by the host's next call to the driver: the buffer was filled after
    its copy was queued, which a copy that runs at once does not wait for; else None."""
    for (src, then, later, (code_obj, line)), place in zip(queued.copies, places):
        if later is None or place is None or place[0] % h.itemsize:
            continue
        lo = place[0] // h.itemsize
        meant = h[lo:lo + then.size]
        if (then.shape != meant.shape or np.array_equal(then, meant)
                or not np.array_equal(later, meant)):
            continue
        buf = next((f"staging[{k}]" for k, buf in enumerate(staging)
                    if np.shares_memory(src, buf)), "its source")
        copy, fill = _copy_and_fill(fn, code_obj, line)
        queued_at = f" (line {line} of {copy[0]}: {copy[1]})" if copy else ""
        filled_at = f" (line {fill[0]}: {fill[1]})" if fill else ""
        return (f"the copy of chunk {lo // chunk} was queued{queued_at} before {buf} was filled "
                f"with it{filled_at}: a queued copy may run at once, as soon as its stream "
                "reaches it, while the host is still writing the buffer, and then sends what "
                "the buffer held before (chunk c - 2's data; for chunks 0 and 1, the buffer's "
                "first contents)", "fill the buffer first, then queue its copy: "
                f"{fill[1] if fill else 'buf[:hi - lo] = h[lo:hi]'}, then "
                f"{copy[1] if copy else 'drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s)'}")
    return None


def _root(node):  # the name an expression's subscripts and attributes hang on: buf of buf[:k]
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return ast.unparse(node)


def _written(node):
    """The expression a statement writes into: buf[...] of buf[...] = ... (or +=), of
    np.copyto(buf[...], ...); else None."""
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
        return node.targets[0]
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
        return node.target
    call = node.value if isinstance(node, ast.Expr) else None
    if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "copyto" and call.args:
        return call.args[0]
    return None


def _copy_and_fill(fn, code_obj, line):
    """((place, text) of the copy's ``line`` where ``code_obj`` is ``fn``'s, or None; (number,
    text) of the first statement after it that writes into the copy's source, or None)."""
    code = code_of(fn)
    if code is None or code_obj is not getattr(fn, "__code__", None):
        return None, None
    calls = [n for n in ast.walk(code.tree) if isinstance(n, ast.Call) and code.number(n) == line
             and getattr(n.func, "attr", "") == "memcpy_htod_async" and len(n.args) >= 2]
    if not calls:
        return None, None
    root = _root(calls[0].args[1])
    fill = min((n for n in ast.walk(code.tree) if isinstance(n, ast.stmt) and code.number(n) > line
                and (w := _written(n)) is not None and _root(w) == root),
               key=lambda n: n.lineno, default=None)
    return ((code.place, code.lines[line - code.first].strip()),
            fill and (code.number(fill), code.text(fill)))


def not_staged(staging, sources, fn):
    """With d right: copies that did not go through the staging buffers (those of a name that
    ``fn`` rebound to a slice of h told as such: ``rebound_to_h``)."""
    if any(not any(np.shares_memory(src, buf) for buf in staging) for src in sources
           if isinstance(src, np.ndarray)):
        yield from filter(None, [rebound_to_h(fn)])
        yield ("d holds h, but the copies came from h itself, not from the staging buffers: an "
               "asynchronous copy from pageable memory makes the host wait for it",
               "copy each chunk from its staging buffer: memcpy_htod_async(int(d) + lo * 4, "
               "buf[:hi - lo], s)")
    if all(np.isnan(buf).all() for buf in staging):
        yield ("d holds h, but the staging buffers were never filled: the copies came straight "
               "from h, whose pageable memory makes each copy wait for the host", "fill "
               "staging[c % 2] with the chunk and copy from it: memcpy_htod_async(int(d) + lo * "
               "4, buf[:hi - lo], s)")


def rebound_to_h(fn):
    """(problem, hint) where ``fn``'s code assigns a slice of h (its first argument) to a name
    whose slice a copy to the device reads (buf = h[lo:hi], then memcpy_htod_async(...,
    buf[:hi - lo], s)): the name now stands for a view of h's pageable memory, and no staging
    buffer is filled. The buffer the name held before, where a line gives it one, named; None
    where the code is not known or holds no such line."""
    code = code_of(fn)
    top = code and code.tree.body and code.tree.body[0]
    if not isinstance(top, ast.FunctionDef) or len(top.args.args) < 3:
        return None
    h, staging = top.args.args[0].arg, top.args.args[2].arg
    read = {_root(n.args[1]) for n in ast.walk(top) if isinstance(n, ast.Call)
            and getattr(n.func, "attr", "") == "memcpy_htod_async" and len(n.args) >= 2}
    names = sorted((n for n in ast.walk(top) if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name)), key=lambda n: n.lineno)
    node = next((n for n in names if n.targets[0].id in read
                 and isinstance(n.value, ast.Subscript) and _root(n.value) == h), None)
    if node is None:
        return None
    name = node.targets[0].id
    held = next((ast.unparse(n.value) for n in names if n.targets[0].id == name
                 and _root(n.value) == staging), "a staging buffer")
    return (f"{code.quoted(node)} rebinds the name {name} to a slice of {h}, a view of its "
            f"pageable memory: it does not fill {held}, so the copy from {name} that follows "
            f"reads {h} itself (d holds h, but not through the staging buffers)",
            f"fill the staging buffer in place: {name}[:hi - lo] = {ast.unparse(node.value)} "
            "(an assignment to a slice writes into the array; to a name, it only renames)")
