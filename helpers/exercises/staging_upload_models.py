"""The models of notebook 05's double-buffering exercise that ``helpers.exercises.staging_upload``
compares d with: the chunks a skipped wait let a later filling carry, the chunks copied to byte
offset lo (element lo / 4), and every chunk copied to the start of d; and a chunk length taken
in bytes (``chunk_in_bytes``)."""

from __future__ import annotations

import ast

import numpy as np

from helpers.exercises.learner_code import code_of, without_stream


def carried_of(log, bounds):
    """For each chunk c (the c-th copy, out of staging[c % 2]), the chunk whose data its copy
    carried, as ``log`` orders the copies and the waits: a copy reads its buffer when the host
    next waits for its stream (or at the end), and by then the buffer holds the last chunk
    queued through it. None when the copies are not one a chunk, on alternating streams."""
    at = [k for k, (what, _) in enumerate(log) if what == "copy"]
    if len(at) != len(bounds) or ("blocking", None) in log or any(
            log[k][1] is not log[at[c % 2]][1] for c, k in enumerate(at)):
        return None
    carried = []
    for c, k in enumerate(at):
        until = next((j for j, (what, s) in enumerate(log)
                      if j > k and what == "wait" and s is log[k][1]), len(log))
        carried.append(max(d for d in range(c % 2, len(at), 2) if at[d] < until))
    return carried


def waits_skipped(got, h, bounds, log):
    """d as it is when the host skipped the wait for a stream before refilling its buffer for
    some chunks (not all): the chunk two back's copy carried the later filling."""
    carried = carried_of(log, bounds)
    if carried is None or carried == list(range(len(bounds))):
        return
    model, bufs = h.copy(), [np.full(bounds[0][1], np.nan, np.float32) for _ in range(2)]
    for c, (lo, hi) in enumerate(bounds):
        buf = bufs[c % 2].copy()
        for d in range(c % 2, carried[c] + 1, 2):  # the buffer's fillings up to the one carried
            buf[:bounds[d][1] - bounds[d][0]] = h[bounds[d][0]:bounds[d][1]]
        model[lo:hi] = buf[:hi - lo]
    if np.array_equal(got, model):
        c = next(c for c, d in enumerate(carried) if d != c)
        yield (f"staging[{c % 2}] was filled again for chunk {c + 2} before chunk {c}'s copy out "
               f"of it had run: the host did not wait for streams[{c % 2}] before chunk "
               f"{c + 2}'s filling, so chunk {c} of d (elements {bounds[c][0]:,} to "
               f"{bounds[c][1] - 1:,}) holds chunk {carried[c]}'s data",
               "wait for streams[c % 2] for every chunk before filling staging[c % 2], with no "
               "if around s.synchronize(): for the first two chunks nothing is queued yet, and "
               "the wait returns at once")


def at_element_offsets(got, h, bounds):
    """Whether d shows the chunks copied to byte offset lo (element lo / 4). Their destinations
    then overlap, and the two streams' copies race there: an element may hold any chunk's value
    that covers it (the later chunk's where the copies landed in order); one no chunk covers,
    the NaN d was filled with."""
    return at_elements(got, h, bounds, [lo // 4 for lo, _ in bounds])


def at_elements(got, h, bounds, starts):
    """Whether d shows chunk c copied to element ``starts[c]`` (lo // 4 for byte offsets lo, c
    for offsets of the chunk's number), the overlaps raced as ``at_element_offsets`` says."""
    covered, landed = np.zeros(got.size, bool), np.zeros(got.size, bool)
    for (lo, hi), start in zip(bounds, starts):
        at = np.arange(start, min(start + hi - lo, got.size))
        covered[at] = True
        landed[at] |= got[at] == h[lo:lo + at.size]
    return bool(covered.any() and (landed | (~covered & np.isnan(got))).all())


def at_the_start_of_d(got, h, bounds):
    """Whether d shows every chunk copied to d itself, with no offset (memcpy_htod_async(d, ...)):
    the rest of d never written (the NaN it was filled with), its first chunk's elements each
    holding one of the chunks' values there (the two streams' copies race on them: any may land
    last)."""
    chunk = bounds[0][1] - bounds[0][0]
    if len(bounds) < 2 or not np.isnan(got[chunk:]).all():
        return False
    landed = np.zeros(chunk, bool)
    for lo, hi in bounds:
        landed[:hi - lo] |= got[:hi - lo] == h[lo:hi]
    return bool(landed.all())


def sliced_at_lo(places, got, h, chunk):
    """(problem, hint) when each copy went to its right place in d (int(d) + lo * 4) but its
    source was the staging buffer sliced at the chunk's place in h, buf[lo:hi], as ``places``
    (each copy's byte offset in d and its bytes) show: past chunk 0 that slice lies beyond the
    buffer's ``chunk`` elements and is empty, so d holds chunk 0 and the NaN it was filled with."""
    n, itemsize = h.size, h.itemsize
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]
    if len(bounds) < 2 or places != [(lo * itemsize, max(0, min(hi, chunk) - lo) * itemsize)
                                     for lo, hi in bounds]:
        return
    if not (np.array_equal(got[:chunk], h[:chunk]) and np.isnan(got[chunk:]).all()):
        return
    lo, hi = bounds[1]
    yield (f"from chunk 1 on, each copy's source was buf[lo:hi], the staging buffer sliced at the "
           f"chunk's place in h (chunk 1: buf[{lo:,}:{hi:,}]), which lies past the buffer's "
           f"{chunk:,} elements and is empty: 0 bytes were copied to int(d) + lo * 4 (the "
           f"offset is right), so elements {chunk:,} to {n - 1:,} of d were never written (they "
           "still hold the NaN d was filled with)", "the chunk sits at the start of its staging "
           "buffer (buf[:hi - lo] = h[lo:hi]): copy buf[:hi - lo] from there: "
           "drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s)")


def at_the_chunk_ends(places, n, chunk, itemsize=4):
    """Copy c of each chunk put at element hi, the chunk's end (int(d) + hi * 4), not lo, its
    start, as ``places`` (each copy's byte offset in d and its bytes) show: d's first chunk is
    never written, and the last chunk lands past the end of d."""
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]
    if len(places) != len(bounds) or places != [(hi * itemsize, (hi - lo) * itemsize)
                                                for lo, hi in bounds]:
        return
    lo, hi = bounds[-1]
    yield (f"each chunk's copy went to element hi of d, the chunk's end, not lo, its start: chunk "
           f"0 (elements 0 to {chunk - 1:,}) went to elements {chunk:,} to {2 * chunk - 1:,}, so "
           f"d's first chunk was never written, and the last (elements {lo:,} to {n - 1:,}) went "
           f"to elements {n:,} to {n + hi - lo - 1:,}, past the end of d",
           "a chunk's place in d starts at lo, as in h: drv.memcpy_htod_async(int(d) + lo * "
           "h.itemsize, buf[:hi - lo], s)")


def chunk_in_bytes(fn, length, chunk, itemsize):
    """``(what, hint)`` of chunk 0, ``length`` = ``itemsize`` times a staging buffer's ``chunk``
    elements: the chunk's length taken from the buffer's bytes, with the line of ``fn``'s code
    that reads a ``.nbytes`` (chunk = staging[0].nbytes) where it is known."""
    where, size = "", "staging[0].size"
    if (code := code_of(fn)) is not None:
        def to_chunk(node):  # an assignment to chunk is looked at first
            return any(getattr(t, "id", "") == "chunk" for t in ast.walk(node.targets[0]))

        for node in sorted((n for n in ast.walk(code.tree) if isinstance(n, ast.Assign)),
                           key=lambda n: not to_chunk(n)):
            read = [a for a in ast.walk(node.value)
                    if isinstance(a, ast.Attribute) and a.attr == "nbytes"]
            if read:
                size = ast.unparse(read[0].value) + ".size"
                where = f" ({code.at(node)}: {code.text(node)})"
                break
    return (f"chunk 0, h[0:{length:,}], is a chunk of {length:,} elements for a staging buffer of "
            f"{chunk:,}: the chunk length was taken in bytes{where}, and nbytes counts bytes, "
            f"{itemsize} a float32, so a chunk was {itemsize} times what a buffer holds",
            f"count the chunk in elements: chunk = {size}, the buffer's number of elements")


def max_for_min(fn, n, chunk):
    """``(what, hint)`` of chunk 0 taken as all of h, h[0:n], where ``fn``'s code gives hi the
    larger of two values (hi = max(n, lo + chunk), max where min belongs); None where the code is
    not known or holds no such line."""
    if (code := code_of(fn)) is None:
        return None
    for node in ast.walk(code.tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", "") == "hi" and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "max" and len(node.value.args) == 2):
            a, b = (ast.unparse(arg) for arg in node.value.args)
            return (f"every chunk ran to the end of h: {code.text(node)} ({code.at(node)}) "
                    f"takes the larger of the two, n, so chunk 0 was h[0:{n:,}], "
                    f"{n:,} elements for a staging buffer of {chunk:,}",
                    f"the chunk ends at the smaller of the two: hi = min({a}, {b}) (lo + chunk, "
                    "and n for the last chunk alone)")
    return None


def filled_whole(err, lo, hi, chunk):
    """``(what, hint)`` of NumPy's broadcast error ``err`` at the last chunk, h[lo:hi] (shorter
    than a staging buffer's ``chunk`` elements, the earlier ones filled), raised on a line of the
    learner's that assigns to a whole buffer (buf[:] = ..., buf[...] = ...); else None."""
    from helpers.exercises.learner_code import learner_line

    line = learner_line(err)
    if not (lo > 0 and lo % chunk == 0 and 0 < hi - lo < chunk) or line is None:
        return None
    try:
        node = ast.parse(line[2].strip()).body[0]
    except (SyntaxError, IndexError):
        return None
    target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
    whole = isinstance(target, ast.Subscript) and (
        isinstance(target.slice, ast.Slice) and target.slice.lower is target.slice.upper is None
        or isinstance(target.slice, ast.Constant) and target.slice.value is Ellipsis)
    if not whole:
        return None
    buf = ast.unparse(target.value)
    return (f"the last chunk, h[{lo:,}:{hi:,}], holds {hi - lo:,} elements, fewer than a staging "
            f"buffer's {chunk:,}, and {line[2].strip()} fills the whole buffer, which only a full "
            f"chunk fits", f"fill the buffer's first hi - lo elements: {buf}[:hi - lo] = "
            f"{ast.unparse(node.value)}")


def chunk_too_long(fn, length, n, chunk):
    """``(what, hint)`` of chunk 0, h[0:``length``], longer than a staging buffer's ``chunk``
    elements (and not ``n`` nor a whole number of buffers' bytes, which others tell): the chunk
    length not the buffer's, with the one line of ``fn``'s code that assigns to chunk (one that
    reads staging is not blamed); half of h where ``length`` is n // 2 or (n + 1) // 2. None when
    ``length`` fits or no such line is found."""
    if length <= chunk or length >= n or (code := code_of(fn)) is None:
        return None
    sets = [node for node in ast.walk(code.tree) if isinstance(node, ast.Assign) and any(
        getattr(t, "id", "") == "chunk" for t in ast.walk(node.targets[0]))]
    if len(sets) != 1 or "staging" in ast.unparse(sets[0].value):
        return None   # the chunk the buffer's: the slice is at fault, not the chunk's line
    where = f" ({code.at(sets[0])}: {code.text(sets[0])})"
    what = ("half of h, n // 2" if length in (n // 2, (n + 1) // 2) else f"{length:,}")
    return (f"chunk 0, h[0:{length:,}], holds {length:,} elements, more than a staging buffer "
            f"holds ({chunk:,}): the chunk length was set to {what}{where}, but every chunk goes "
            "into one staging buffer, so none may be longer than a buffer",
            "chunk = staging[0].size, the buffer's number of elements: the two buffers take the "
            "chunks in turn (c % 2), however many chunks h needs")


def one_stream_waited(log, streams, pending, fn):
    """(problem, hint) where the function returned with copies pending on ``streams[i]`` for
    each i of ``pending`` after waiting, past the last copy in ``log``, only for other streams:
    with the line of ``fn``'s code that waits, after a loop, for a name the loop sets alone (the
    stream the loop left in it); else None."""
    copies = [k for k, (what, _) in enumerate(log) if what == "copy"]
    after = {id(s) for what, s in log[copies[-1] + 1:] if what == "wait"} if copies else set()
    if not after or any(id(streams[i]) in after for i in pending):
        return None
    ways = [s for what, s in log if what == "copy"]
    waited = ", ".join(f"streams[{j}]" for j, s in enumerate(streams) if id(s) in after)
    late = "; ".join(f"streams[{i}]'s last copy (chunk "
                     f"{max(c for c, s in enumerate(ways) if s is streams[i])}) was still on its way"
                     for i in pending if any(s is streams[i] for s in ways))
    problem = (f"your function returned while copies were still on their way: after the last "
               f"copy only {waited} was waited for, so {late or 'copies were pending'} when it "
               "returned")
    if (code := code_of(fn)) is not None:
        tree = code.tree
        body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
        loops = {t.id for n in body if isinstance(n, ast.For) for t in ast.walk(n)
                 if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}  # set in a loop
        for n in body:
            call = n.value if isinstance(n, ast.Expr) else None
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "synchronize" and isinstance(call.func.value, ast.Name)
                    and call.func.value.id in loops):
                name = call.func.value.id
                problem += (f": {code.quoted(n)}, after the loop, waits for {name} alone, the "
                            f"stream the loop left in {name} ({waited}, the last chunk's)")
                break
    return problem, "wait for both streams after the loop: for s in streams: s.synchronize()"


def waited_for_both_each_chunk(log, fn):
    """(problem, hint) where between every two copies of ``log`` the host waited for every
    stream the copies ran on, and ``fn``'s code waits for the streams in a loop that lies in the
    chunk loop, after its copy: the final wait indented into the chunk loop; else None."""
    ways = {id(s) for what, s in log if what == "copy"}
    copies = [k for k, (what, _) in enumerate(log) if what == "copy"]
    if len(ways) < 2 or not all(ways <= {id(s) for what, s in log[a:b] if what == "wait"}
                                for a, b in zip(copies, copies[1:])) or not (code := code_of(fn)):
        return None
    for outer in (n for n in ast.walk(code.tree) if isinstance(n, (ast.For, ast.While))):
        copy = next((n for n in ast.walk(outer) if isinstance(n, ast.Call) and getattr(
            n.func, "attr", "") == "memcpy_htod_async"), None)
        wait = copy and next((n for n in outer.body if isinstance(n, ast.For) and n.lineno
                              > copy.lineno and "synchronize" in ast.unparse(n)), None)
        if wait:
            return (f"d holds h, but the wait for both streams, {code.quoted(wait)}, lies inside "
                    "the chunk loop, after the copy: it runs after every chunk, so the host "
                    "waited for each copy, the one just queued included, before filling the "
                    "next chunk, and no filling ran beside a copy", "dedent it, so that it runs "
                    "once, after the loop: before filling a chunk, the wait for streams[c % 2] "
                    "is all it needs")
    return None


def context_waited(log, fn):
    """(problem, hint) where the host waited for the whole context (``("context wait", None)``
    in ``log``) between two copies: that waits for both streams, the copy just queued on the
    other one included, so no filling ran beside a copy; named at fn's line where known."""
    copies = [k for k, (what, _) in enumerate(log) if what == "copy"]
    if not any(what == "context wait" and copies[0] < k < copies[-1]
               for k, (what, _) in enumerate(log)):
        return None
    code = code_of(fn)
    call = code and next((n for n in ast.walk(code.tree) if isinstance(n, ast.Call)
                          and ast.unparse(n.func).endswith("Context.synchronize")), None)
    where = f"{ast.unparse(call)} ({code.at(call)})" if call else "drv.Context.synchronize()"
    return (f"d holds h, but before refilling a buffer the host waited with {where}, which "
            "waits for the whole context: for both streams, the copy of the chunk just queued on "
            "the other one included, so no filling ran beside a copy", "wait for this buffer's "
            "stream alone: s.synchronize() (s = streams[c % 2]), whose last copy, two chunks "
            "back, is the one that used staging[c % 2]")


def default_stream(log, fn):
    """(problem, hint) when a copy was queued without a stream (``log``: ``_Copies``'s, a copy
    noted ``("copy", None)``): it ran in the default stream, which the waits for streams[c % 2]
    do not wait for; named with the line of the call where fn's code is known; else None."""
    if not any(what == "copy" and stream is None for what, stream in log):
        return None
    where = without_stream(fn) or "drv.memcpy_htod_async(...)"
    return (f"{where} queues the copy without its stream (no third argument): it runs in the "
            "default stream, not in s = streams[c % 2], so s.synchronize() never waits for it, "
            "and a staging buffer may be filled again while its copy is still reading it",
            "pass the chunk's stream as the third argument: drv.memcpy_htod_async(int(d) + lo * "
            "h.itemsize, buf[:hi - lo], s)")


def last_at_its_length(places, n, chunk, itemsize=4):
    """(problem, hint) when each full chunk went to its place, int(d) + lo * 4, but the shorter
    last chunk c went to c times its own length (int(d) + c * (hi - lo) * 4, right only where
    hi - lo is the chunk), as ``places`` (each copy's byte offset in d and its bytes) show."""
    bounds = [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]
    c, (lo, hi) = len(bounds) - 1, bounds[-1]
    if (c < 1 or hi - lo == chunk or places[:c] != [(a * itemsize, (b - a) * itemsize)
                                                   for a, b in bounds[:c]]
            or places[c:] != [(c * (hi - lo) * itemsize, (hi - lo) * itemsize)]):
        return
    at = c * (hi - lo)
    yield (f"the last chunk, chunk {c} (elements {lo:,} to {hi - 1:,}, {hi - lo:,} of them), was "
           f"copied to element {at:,} of d, c * (hi - lo) = {c} * {hi - lo:,}, over chunk "
           f"{at // chunk}, where its first element lo = {lo:,} belongs: the offset counts c "
           f"times the chunk's own length, which is {chunk:,} for the full chunks only, so "
           f"elements {lo:,} to {hi - 1:,} of d were never written", "a chunk's first element "
           f"is lo = c * chunk (the full chunk's length, {chunk:,}), whatever its own length: "
           "copy it to int(d) + lo * h.itemsize")


def end_without_lo(slices, places, got, h, chunk, fn):
    """(problem, hint) when the chunk's end left lo out, hi = min(n, chunk): every slice of h
    (``slices``, their (start, stop)) ends at min(n, chunk), so from chunk 1 on hi - lo <= 0, h[lo:hi]
    and buf[:hi - lo] are empty, and each copy after chunk 0's is of 0 bytes (``places``): d holds
    chunk 0 and the NaN it was filled with. The line of ``fn``'s code that sets hi named where
    known."""
    n = h.size
    taken = [(int(lo or 0), int(hi)) for lo, hi in slices if hi is not None]
    end, starts = min(n, chunk), list(range(0, n, chunk))
    if len(starts) < 2 or taken != [(lo, end) for lo in starts] or [
            nbytes for _, nbytes in places[1:]] != [0] * (len(starts) - 1) or not (
            np.array_equal(got[:chunk], h[:chunk]) and np.isnan(got[chunk:]).all()):
        return
    line = "the chunk's end, hi,"
    if (code := code_of(fn)) is not None:
        line = next((f"{code.text(node)} ({code.at(node)})" for node in ast.walk(code.tree)
                     if isinstance(node, ast.Assign) and len(node.targets) == 1
                     and getattr(node.targets[0], "id", "") == "hi"), line)
    yield (f"from chunk 1 on, {line} leaves lo out of the chunk's end: every chunk ended at hi = "
           f"{end:,}, so chunk 1 ran from lo = {chunk:,} to hi = {end:,}, hi - lo = 0, and each "
           "later chunk's hi - lo was below 0: h[lo:hi] and buf[:hi - lo] were empty and 0 bytes "
           f"were copied, so elements {chunk:,} to {n - 1:,} of d were never written (they still "
           "hold the NaN d was filled with)",
           "a chunk ends chunk elements past its start, lo: hi = min(n, lo + chunk)")


def event_before_its_copy(log, fn):
    """(problem, hint) where the host waited for an event (``log``: ``_Copies``'s) recorded on a
    stream before a copy it then queued there: the wait passes before that copy has run, so the
    copy's staging buffer may be filled again under it. The lines of ``fn``'s code that record
    the event and queue the copy named where known, the record first; else None."""
    for w, (what, event) in enumerate(log):
        r = next((k for k in range(w - 1, -1, -1) if log[k] == ("record", event)), None)
        if what == "event wait" and r is not None and any(
                step == "copy" and s is event.stream for step, s in log[r + 1:w]):
            break
    else:
        return None
    lines = "the event is recorded before the copy is queued"
    if (code := code_of(fn)) is not None:
        calls = [n for n in ast.walk(code.tree) if isinstance(n, ast.Call)]
        record = next((n for n in calls if getattr(n.func, "attr", "") == "record"), None)
        copy = next((n for n in calls if getattr(n.func, "attr", "") == "memcpy_htod_async"), None)
        if record and copy and record.lineno < copy.lineno:
            lines = (f"{code.quoted(record)} records the event before line {code.number(copy)} "
                     f"({code.text(copy)}) queues the copy")
    return (f"the host waited for an event before refilling a staging buffer, but {lines}: an "
            "event marks the point of its stream where it was recorded, here before the copy "
            "out of the buffer, so its synchronize() returned while that copy was still pending, "
            "and the buffer was filled again under it", "record the buffer's event after queuing "
            "its copy: drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s), then "
            "drv.Event().record(s) (or wait for the stream itself: s.synchronize())")
