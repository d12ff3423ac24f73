"""The verdicts of ``helpers.exercises.escape_steps`` that read the kernel's escape loop itself
(its simulated twin's source, ``helpers.exercises.microscope.kernel_words``): a loop whose test is
false at the start, one whose test reads a copy of |z|^2 made once before it, and one whose test
reads nothing its steps set."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import source_line
from helpers.exercises.unbraced import ASSIGNED

DECLARES = ("float", "double", "int", "unsigned", "auto")
"""The type words that declare the name after them."""


def loop_never_ran(kernels, accesses):
    """Every count 0 from a kernel with a while or for loop whose body reads c_re[...] or
    c_im[...], where ``accesses`` (a trace of one point, or None) holds no read at the lines of
    that body: the loop's test is false at the start (k = 0, z = 0), so the body never ran; the
    escape test written for the loop's, |z|^2 > 4, is."""
    if (loop := first_loop(kernels)) is None or accesses is None:
        return
    source, tokens, words, _, j, close, last = loop
    if not any(words[m] in ("c_re", "c_im") and words[m + 1] == "[" for m in range(close, last)):
        return
    lines = range(source_line(source, tokens[close].start), source_line(source, tokens[last].start)
                  + 1)
    if np.isin(accesses["line"], lines).any():
        return
    test = _said(loop_test(words, j, close))
    yield (f"every count is 0: the test of the {words[j]} at line "
           f"{source_line(source, tokens[j].start)}, {test}, is false at the start, where k = 0 "
           "and z = 0 (|z|^2 = 0), so the loop never runs: a loop's test says when to go on, "
           "not when to stop", "go on while |z|^2 <= 4 (the loop stops once |z|^2 > 4) and k < "
           "max_iter: while (k < max_iter && z_re * z_re + z_im * z_im <= 4.0f)")


def test_set_once(kernels, max_iter):
    """A loop whose test reads a name set before the loop from names the loop changes, and that
    nothing in the loop sets again (float size2 = z_re * z_re + z_im * z_im; then while (k <
    max_iter && size2 <= 4.0f)): the test reads a copy made once, which stays as it was while z
    moves, so every point counts max_iter."""
    if (loop := first_loop(kernels)) is None:
        return
    source, tokens, words, body, j, close, last = loop
    changed = {words[m + d] for m in range(j + 2, last) for d in (-1, 1)
               if words[m] in ("++", "--") or (words[m] in ASSIGNED and d < 0)}
    for name in dict.fromkeys(w for w in words[j + 2:close] if w.isidentifier()):
        sets = [m for m in range(body + 1, j) if words[m:m + 2] == [name, "="]]
        if name in changed or not sets:
            continue
        stop = words.index(";", sets[-1])
        if changed & set(words[sets[-1] + 2:stop]):
            said = source[tokens[sets[-1]].start:tokens[stop].end]
            yield (f"every point counts max_iter = {max_iter}: the loop's test reads {name}, set "
                   f"once before the loop at line {source_line(source, tokens[sets[-1]].start)}"
                   f" ({said}), and nothing in the loop sets it again: z moves each step, but "
                   f"{name} keeps the value it had before the first, so the test never fails",
                   "test |z|^2 as z is now, in the loop's test itself: while (k < max_iter && "
                   f"z_re * z_re + z_im * z_im <= 4.0f) (or set {name} again after each step)")
            return


def size_tested_outside_the_loop(kernels, max_iter):
    """Every point counts max_iter from a loop whose test reads none of the names its body sets
    (k < max_iter alone), and whose body has no break or return: z moves each step, but nothing
    stops a point once |z| passes 2; an if before the loop that reads those names (if (z_re *
    z_re + z_im * z_im <= 4.0f) around it, say) tests them once, at z = 0."""
    from helpers.sim.compile.kernel_text import closing

    if (loop := first_loop(kernels)) is None:
        return
    source, tokens, words, body, j, close, last = loop
    sets = _set_in(words[close:last])
    if not sets or sets & set(loop_test(words, j, close)) or \
            {"break", "return"} & set(words[close:last]):
        return
    named = ", ".join(sorted(sets))
    ifs = [(m, closing(tokens, m + 1)) for m in range(body + 1, j) if words[m:m + 2] == ["if", "("]]
    once = "".join(f"; the if at line {source_line(source, tokens[m].start)}, "
                   f"{source[tokens[m].start:tokens[head].end]}, tests them once, before the "
                   "first step, where z = 0" for m, head in ifs[-1:]
                   if sets & set(words[m + 2:head]))
    yield (f"every point counts max_iter = {max_iter}: the {words[j]}'s test at line "
           f"{source_line(source, tokens[j].start)}, {_said(loop_test(words, j, close))}, reads "
           f"none of {named}, which the steps set, so no point stops when |z| passes 2{once}",
           "test |z|^2 before every step, in the loop's own test: while (k < max_iter && z_re * "
           "z_re + z_im * z_im <= 4.0f) { one step; k++; }")


def _set_in(words) -> set:
    """The names that ``words`` (a loop's body) store into, less those it declares (a temporary,
    float re = ...) and those it only counts up or down by a number (k += 1)."""
    declared = {words[m + 1] for m in range(len(words) - 1) if words[m] in DECLARES}
    counted = {words[m - 1] for m in range(1, len(words) - 1)
               if words[m] in ("+=", "-=") and words[m + 1][:1].isdigit()}
    return {words[m - 1] for m in range(1, len(words)) if words[m] in ASSIGNED} - declared - \
        counted


def loop_test(words, j, close) -> list:
    """The words of the test of the loop whose for or while is words[j] and whose head closes at
    words[close]: a for's middle clause, a while's whole head."""
    head = words[j + 2:close]
    if words[j] == "for" and head.count(";") == 2:
        head = head[head.index(";") + 1:len(head) - head[::-1].index(";") - 1]
    return head


def _said(words) -> str:
    """``words`` as a line of C reads them (c_re[i], not c_re [ i ])."""
    return " ".join(words).replace(" [ ", "[").replace(" ]", "]")


def first_loop(kernels):
    """(source, tokens, words, the index of the kernel body's "{", and of its first loop's for or
    while, that loop's head's ")" and its body's last word); None where there is none or the text
    cannot be read."""
    from helpers.exercises.barrier_if import loops_in
    from helpers.exercises.microscope import kernel_words
    from helpers.sim.compile.kernel_text import Unreadable

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    try:
        return (source, tokens, words, body, *loops_in(tokens, words, body, end)[0])
    except (IndexError, Unreadable, ValueError):
        return None
