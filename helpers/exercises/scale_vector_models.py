"""The models of notebook 01's scale_vector (``cuda_src/exercises/scale_vector.cu``) that
``helpers.exercises.scale_vector`` compares a kernel's y with: stores that multiply into y,
divide by alpha or take alpha, x[i] or both cut to an int, an index that counts the blocks from 1,
guards that leave out one element, the partial block or all but two, a guard placed after the
store, and one on n - i with i unsigned, each with its verdict."""

from __future__ import annotations

import ast
import re

import numpy as np

from helpers.exercises.microscope import body_words, guard_after_store, kernel_words, source_line

ALPHA = np.float32(-2.5)
FILL = np.float32(-7.0)
"""y's fill in the second launch (NaN in the first): alpha times y, where x belongs, shows there
(alpha times NaN is a NaN, which on this CPU keeps the fill's bits and looks unwritten)."""


def cut_to_ints(kernels, x, got, want):
    """Every element trunc(alpha) * x[i], alpha * trunc(x[i]) or trunc(alpha) * trunc(x[i]):
    alpha, x[i] or both went through an int (int a = alpha;, (int)x[i], scaled<int>(alpha,
    x[i])), which drops the fraction; named with the kernel body's statements that put them in
    an int (its simulated twin's source), where there are some."""
    if np.allclose(got, want, rtol=1e-6, atol=0):
        return
    e, whole = int(np.argmax(np.abs(x) >= 1)), np.trunc(ALPHA)
    wx = f"x[i] with x[i]'s fraction dropped (y[{e}] = {got[e]:g} for x[{e}] = {x[e]:g}, where " \
         f"alpha * x[{e}] = {want[e]:g})"
    for model, shown, cut, names in (
            (whole * x, f"{whole:g} * x[i], but alpha is {ALPHA:g} here", ("alpha",), "alpha"),
            (ALPHA * np.trunc(x), f"alpha * {wx}", ("x",), "x[i]"),
            (whole * np.trunc(x), f"{whole:g} * {wx}", ("alpha", "x"), "alpha and x[i]")):
        if np.allclose(got, model, rtol=1e-6, atol=0):
            one = len(cut) == 1
            found = _into_an_int(kernels, cut)
            said = f": {' and '.join(found)} put{'s' if len(found) == 1 else ''} " \
                   f"{'it in an int' if one else 'them in ints'}" if found else ""
            yield (f"every element of y is {shown}: {names} "
                   f"{'was cut to a whole number' if one else 'were both cut to whole numbers'}"
                   f", as an int drops a number's fraction{said}",
                   f"keep {names} {'a float' if one else 'floats'}: y[i] = alpha * x[i], with no "
                   f"int on {names if one else 'either'} (no int variable, (int) cast or <int>)")
            return


def _into_an_int(kernels, names):
    """'<statement> at line L' of each statement of the kernel's body (its simulated twin's
    source) that has the word int and one of ``names`` (alpha, or x indexed: x[...])."""
    if (text := kernel_words(kernels)) is None:
        return []
    source, tokens, words, body, end = text
    starts = [k + 1 for k in range(body, end) if words[k] in ("{", ";", "}")]
    return [f"{source[tokens[start].start:tokens[stop - 1].end]} at line "
            f"{source_line(source, tokens[start].start)}"
            for start, stop in ((_past_its_test(text, start), stop) for start, stop in
                                zip(starts, starts[1:], strict=False))
            if "int" in words[start:stop] and any(
                words[k] in names and (words[k] == "alpha" or words[k + 1] == "[")
                and words[k - 1] != "." for k in range(start, stop))]


def _past_its_test(text, start):
    """Where a statement of ``kernel_words``' text that starts at word ``start`` begins past the
    if (...), while (...) or else before it (an if without braces and its one statement)."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    _, tokens, words, _, _ = text
    while words[start] == "else" or words[start] in ("if", "while") and words[start + 1] == "(":
        try:
            start = start + 1 if words[start] == "else" else closing(tokens, start + 1) + 1
        except Unreadable:
            return start
    return start


def a_factor_of_its_own(kernels, x, got):
    """Every element f * x[i] for one number f other than alpha (and than -alpha, 0 and 1, which
    other verdicts name): the kernel multiplies by a number written in where alpha belongs (the
    notebook's example's 2.0f); said with whether alpha is in the kernel's body at all."""
    f = np.float32(np.round(np.median(got[x != 0] / x[x != 0]), 4))
    if abs(f) in (0, 1, abs(ALPHA)) or not np.allclose(got, f * x, rtol=1e-6, atol=0):
        return
    unused = ": alpha is not used" if "alpha" not in body_words(kernels) else ""
    yield (f"y = {f:g} * x, but alpha is {ALPHA:g} here{unused}: the kernel multiplies by a "
           "number of its own, where alpha belongs",
           "multiply by the parameter: y[i] = alpha * x[i] (each call passes its own alpha)")


def multiplied_into(runs, want):
    """y the right product times what y held before (its fill, -7 in the second launch): the
    store multiplied into y, y[i] *= alpha * x[i], where it sets it."""
    if len(runs) > 1 and np.allclose(runs[-1], FILL * want, rtol=1e-5, atol=0):
        yield ("y was multiplied into (y[i] *= alpha * x[i]): filled with -7 before a second "
               "launch, y came out -7 * alpha * x[i], the product times what y held",
               "y is written, not updated: y[i] = alpha * x[i]")


def divided_by_alpha(x, got, want):
    """Every element x[i] / alpha: the store divides by alpha, y[i] = x[i] / alpha, where
    scaling multiplies (compared within float rounding)."""
    if np.allclose(got, x / ALPHA, rtol=1e-6, atol=0) and not np.allclose(got, want, rtol=1e-6,
                                                                          atol=0):
        yield (f"every element of y is x[i] / alpha, not alpha * x[i]: y was divided by alpha = "
               f"{ALPHA:g} (y[0] = {got[0]:g} for x[0] = {x[0]:g}, where alpha * x[0] = "
               f"{want[0]:g}), so each element came out 1 / alpha^2 = {1 / ALPHA ** 2:g} times "
               "the right value", "scaling by alpha multiplies: y[i] = alpha * x[i]")


def blocks_from_1(n, block, grid, out, right):
    """Block 0 wrote the block's room before y, and y right up to where the last block would
    have begun, nothing past it: i = (blockIdx.x - 1) * blockDim.x + threadIdx.x, blocks
    counted from 1."""
    end = min(n, (grid - 1) * block)
    if (out.ahead.tolist() != list(range(-block, 0)) or not right[:end].all()
            or not np.array_equal(out.unwritten, np.arange(n) >= end) or out.past.size):
        return
    never = f", and y[{end}] to y[{n - 1}] were never written" if end < n else ""
    yield (f"block 0 wrote y[{-block}] to y[-1], before y's start{never}: the index is one "
           "block short: (blockIdx.x - 1) counts the blocks from 1, but blockIdx.x counts from 0",
           "block 0 starts at element 0: i = blockIdx.x * blockDim.x + threadIdx.x")


def _loop_test(words):
    """The variable v of the first ``while (v < n)`` in ``words`` (a kernel body's), where nothing
    after it assigns v (v =, v +=, v -=, v++, ++v, ...); None where there is none."""
    for at in range(len(words) - 5):
        if words[at:at + 2] == ["while", "("] and words[at + 3:at + 6] == ["<", "n", ")"]:
            v, rest = words[at + 2], words[at + 6:]
            moved = any(rest[k] == v and rest[k + 1] in ("=", "+=", "-=", "*=", "++", "--")
                        or rest[k] in ("++", "--") and rest[k + 1] == v
                        for k in range(len(rest) - 1))
            return None if moved else v
    return None


def while_for_if(words, seen, launch):
    """A launch stopped at the time limit whose y held, as far as the threads got, only right
    products alpha * x[i] and nothing past n, of a kernel whose body tests ``while (i < n)`` and
    never changes i: the guard's if written as a while, so each thread stores its own element
    again and again."""
    v, out = _loop_test(words), seen.outs[0]
    x, got = launch.model, out.got
    written = ~np.isnan(got)
    if v is None or out.past.size or not written.any() or \
            not np.array_equal(got[written], (ALPHA * x)[written]):
        return
    r = int(np.argmax(written))
    yield (f"the kernel never ended: while ({v} < n) repeats its body for as long as {v} < n, and "
           f"nothing in it changes {v}, so every thread with an element stores it again and again "
           f"(stopped by the simulator, y held only right values, y[{r}] = alpha * x[{r}] = "
           f"{got[r]:g}, and nothing past n)", f"the bounds guard is a test, done once: if ({v} < "
           f"n) {{ y[{v}] = alpha * x[{v}]; }}, not a while loop")


def one_left_out(n, unwritten):
    """One element alone never written: y[0] (the guard leaves out i = 0) or y[n - 1] (the
    guard stops one short)."""
    if np.flatnonzero(unwritten).tolist() == [0]:
        yield ("y[0] alone was never written: the guard leaves out i = 0",
               "thread 0 has an element too: guard with if (i < n) alone")
    if np.flatnonzero(unwritten).tolist() == [n - 1]:
        yield (f"y[n - 1] (y[{n - 1}]) alone was never written: the guard stops one short, "
               "as if (i < n - 1) does", "the last element is y[n - 1], and its thread has "
               "i = n - 1 < n: guard with if (i < n)")


def whole_blocks_alone(n, block, unwritten):
    """Every whole block's elements written and none of the last, partial block's: a guard on
    whole blocks (blockIdx.x < n / blockDim.x, the integer division dropping the partial one)."""
    start = n // block * block
    if 0 < start < n and np.array_equal(unwritten, np.arange(n) >= start):
        yield (f"the last, partial block wrote nothing (y[{start}] to y[{n - 1}] never written) "
               "and every whole block wrote its elements: the guard passes whole blocks alone, "
               "as blockIdx.x < n / blockDim.x does (the integer division drops the partial "
               "block), where each thread's own element is what is tested",
               "guard each element, not the block: if (i < n), with i = blockIdx.x * blockDim.x "
               "+ threadIdx.x")


def bound_of_two(unwritten):
    """Only y[0] and y[1] written: a guard i < sizeof(x) / sizeof(x[0]), 8 / 4 for a pointer."""
    if np.flatnonzero(~unwritten).tolist() == [0, 1]:
        yield ("only y[0] and y[1] were written: the guard's bound is 2, what sizeof(x) / "
               "sizeof(x[0]) gives in a kernel, where x is a pointer (8 bytes), not the array",
               "a kernel gets x's address, not its length: the length is the parameter n, "
               "if (i < n)")


def guard_after_the_store(kernels, written):
    """Every thread past n stored into y (``written``, those elements) and the kernel's body (its
    simulated twin's source) tests n only in an if after its first store: the guard placed after
    the store it should keep the threads past n from (``microscope.guard_after_store``)."""
    if (found := guard_after_store(kernels, "y", ("n",))) is None:
        return
    guard, guard_line, said, store_line = found
    yield (f"y is right below n, but every thread past the end wrote too ({written}): the guard "
           f"{guard} at line {guard_line} comes after the store {said} at line {store_line}, so "
           "every thread, those past n too, had stored before it reached the test",
           "test i before the store: if (i >= n) return; first, then y[i] = alpha * x[i]; (or "
           "the store inside the guard, if (i < n) { y[i] = alpha * x[i]; })")


SIZES = {"float": 4, "int": 4, "double": 8}
"""The bytes of the types a sizeof in a guard names, for the bound it gives."""


def guard_in_bytes(kernels, written, n):
    """Every thread past n stored into y (``written``, those elements) and an if of the kernel's
    body (its simulated twin's source) compares i with a bound that takes a sizeof: n counted in
    bytes, which every launched thread is below."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, _, _ = text
    for k, close in _ifs(text):
        for op in (j for j in range(k + 2, close) if words[j] in ("<", "<=", ">", ">=")):
            stop = next((j for j in range(op, close) if words[j] in ("&&", "||")), close)
            if "sizeof" not in words[op + 1:stop]:
                continue
            bound = source[tokens[op + 1].start:tokens[stop - 1].end]
            yield (f"y is right below n, but every thread past the end wrote too ({written}): "
                   f"the guard {source[tokens[k].start:tokens[close].end]} at line "
                   f"{source_line(source, tokens[k].start)} compares i with {bound}"
                   f"{_value(words[op + 1:stop], n)}, n in bytes, not elements: every launched "
                   "thread is below it", "n already counts elements, not bytes: if (i < n) "
                   "(sizeof belongs in the sizes of cudaMalloc and cudaMemcpy, which count bytes)")
            return


UNSIGNED = ("unsigned", "size_t", "uint32_t", "uint64_t")
"""The words of the unsigned integer types an index may be declared with."""


def unsigned_difference(kernels, written, n):
    """Every thread past n but the one whose i is n stored (``written``, those elements), where
    an if of the kernel's body (its simulated twin's source) tests n - v for a v declared with
    an unsigned type: the difference is unsigned too, so past n it wraps around to a huge
    positive number, and only v == n makes it 0."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    for k, close in _ifs(text):
        for at in (j for j in range(k + 2, close - 2) if words[j:j + 2] == ["n", "-"]):
            v = words[at + 2]
            if (declared := _unsigned_declaration(text, v, k)) is None:
                continue
            yield (f"the threads past the end wrote {written}, all but y[n]: the guard "
                   f"{source[tokens[k].start:tokens[close].end]} at line "
                   f"{source_line(source, tokens[k].start)} subtracts {v}, declared {declared}: "
                   f"an unsigned number is never negative, so n - {v} is unsigned too, and for "
                   f"{v} > n it wraps around to a huge positive number (n - (n + 1) is the "
                   "largest unsigned value, not -1), which passes the test; only "
                   f"{v} == n gives 0", "compare i with n itself, not their difference: "
                   "if (i < n), with i an int: int i = blockIdx.x * blockDim.x + threadIdx.x")
            return


def _unsigned_declaration(text, name, before):
    """'<the type> <name> (line L)' of the declaration of ``name`` in a kernel's body
    (``kernel_words``' text) before word ``before``, where its type is unsigned; None where it
    is not, or there is none."""
    source, tokens, words, body, _ = text
    for at in range(body + 1, before):
        if words[at] == name and words[at + 1] in ("=", ";", ",") and words[at - 1] != ",":
            start = max(j for j in range(body, at) if words[j] in ("{", ";", "}")) + 1
            if start < at and set(words[start:at]) & set(UNSIGNED):
                return (f"{source[tokens[start].start:tokens[at].end]} (line "
                        f"{source_line(source, tokens[start].start)})")
            return None
    return None


def _ifs(text):
    """(the "if", its test's ")") of each if of a kernel's body, ``kernel_words``' text, in
    order, up to one whose parentheses cannot be read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    _, tokens, words, body, end = text
    for k in (k for k in range(body + 1, end - 1) if words[k:k + 2] == ["if", "("]):
        try:
            yield k, closing(tokens, k + 1)
        except Unreadable:
            return


def _value(words, n):
    """' = <the value>' of a bound's words with n and sizeof(a type) put in, where nothing else
    is in them; '' where something is."""
    said = " ".join(words).replace("sizeof ( ", "sizeof(").replace(" )", ")")
    for name, size in SIZES.items():
        said = said.replace(f"sizeof({name})", str(size))
    said = re.sub(r"\bn\b", str(n), said)
    try:
        return f" = {_sum_of_products(ast.parse(said, mode='eval').body)}"
    except (SyntaxError, ValueError):
        return ""


def _sum_of_products(node):
    """The value of an expression of whole numbers, + and * alone (ValueError for anything else)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        left, right = _sum_of_products(node.left), _sum_of_products(node.right)
        return left + right if isinstance(node.op, ast.Add) else left * right
    raise ValueError("not a sum of products of whole numbers")


def one_past_the_end(n, past):
    """y[n] written, one past the end (``past``): by a bounds guard off by one."""
    if past.tolist() == [n]:
        yield ("y[n] was written, one element past the end: the bounds guard is off by one",
               "the last element is y[n - 1]: guard with if (i < n), not i <= n")


def read_above_the_guard(kernels, n, threads):
    """y right, but x read above the bounds guard, the first if that tests n, in the kernel's
    text (its simulated twin's source; ``sepia_guard``): the threads past n (``threads`` in the
    grid) read past the end of x before the guard sends them away."""
    from helpers.exercises.sepia_guard import read_above_the_guard as above

    if threads <= n or (text := kernel_words(kernels)) is None:
        return
    source, tokens, _, _, end = text
    read = above(source[:tokens[end].end], kernels.simulated.name, ("n",))
    if read is None:
        return
    x = read.array
    yield (f"the kernel reads {x}[{read.index}] (line {source_line(source, read.read_at)}) before "
           f"its bounds guard, if ({read.test}) (line {source_line(source, read.guard_at)}): the "
           f"threads past n (the grid has {threads} threads, n = {n}) read past the end of {x}, "
           f"as far as {x}[{threads - 1}] ({x} holds {n} elements: a read outside an array is "
           "undefined, even when, as here, its value goes nowhere and y does not show it)",
           f"the guard must come before any access to memory: read {x}[{read.index}] inside the "
           "if (i < n), not above it")


def second_element_unguarded(kernels, launch, happened):
    """Each thread with an element stored y[i] and y[i + d] too, one d > 0 for all, and no other
    thread stored anything, in a trace of ``launch`` (a small one, with room past x and y) on the
    simulator: the kernel unrolled by two, its guard if (i < n) testing i alone. ``happened``:
    what the case showed of it, said first."""
    from helpers.exercises.microscope import accesses_of

    n, block, grid = int(launch.args[3]), launch.block[0], launch.grid[0]
    kept = accesses_of(kernels, launch, "second element", 8 * block * grid)
    if kept is None:
        return
    stores = kept[kept["write"] & ~kept["shared"]]
    i = stores["block"] * block + stores["thread"]
    d = stores["index"] - i
    firsts = set(i[d == 0].tolist())
    if not len(stores) or len(set(d[d != 0].tolist())) != 1 or firsts != set(range(n)) or \
            set(i[d != 0].tolist()) != firsts:
        return
    step = int(d[d != 0][0])
    second = {block: "i + blockDim.x", block * grid: "i + blockDim.x * gridDim.x"}.get(
        step, f"i + {step}")
    yield (f"{happened}: each thread also stores a second element, y[{second}] = alpha * "
           f"x[{second}] (a trace of n = {n}, block = {block} on the simulator: thread i stored "
           f"y[i] and y[i + {step}]), and the guard if (i < n) tests only i, not {second}, so "
           f"a thread whose {second} is n or more reads x and writes y past the end",
           f"remove the second store: this exercise launches a thread for every element, so "
           f"y[{second}] is already another thread's own (a second element a thread would need "
           f"its own guard, if ({second} < n), and half the threads)")
