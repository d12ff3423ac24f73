"""A while or for loop with no braces, the statements after its one statement indented as that
one (Python's way of writing a loop's body): C takes the first statement alone for the body, and
the rest runs once, after the loop; and an else indented for an outer if, which C pairs with the
nearest. Read from the kernel's words (its simulated twin's source)."""

from __future__ import annotations

from collections import namedtuple

Unbraced = namedtuple("Unbraced", "keyword line header body body_line after rest stuck")
"""keyword: "while" or "for", at ``line``; header: its text up to its ")" (while (i < n));
body: the one statement C takes for the body, at ``body_line``; after: the first and last lines
of the statements indented after it, whose text is ``rest``; stuck: True where the body changes
nothing the loop's header reads (on a GPU such a loop may never end)."""

ASSIGNED = ("=", "+=", "-=", "*=", "/=")
"""The operators that store into the name before them."""


def _laid_out(kernels):
    """``kernel_words``'s (source, tokens, words, body, end), with a word's column and line
    (``column(j)``, ``line(j)``); None where the text cannot be read."""
    from helpers.exercises.microscope import kernel_words, source_line

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens = text[0], text[1]

    def column(j):
        return tokens[j].start - source.rfind("\n", 0, tokens[j].start)

    def line(j):
        return source_line(source, tokens[j].start)

    return (*text, column, line)


def unbraced_loop(kernels):
    """The kernel's first loop with no braces whose one statement is followed, on later lines, by
    statements indented as that one (``Unbraced``); None where there is none or the text cannot
    be read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := _laid_out(kernels)) is None:
        return None
    source, tokens, words, body, end, column, line = text

    for j in range(body + 1, end - 1):
        if words[j] not in ("while", "for") or words[j + 1] != "(":
            continue
        try:
            close = closing(tokens, j + 1)
            first = words.index(";", close + 1)
            after = _indented_after(words, first + 1, end, column(close + 1), column)
        except (Unreadable, ValueError):
            return None
        if words[close + 1] in ("{", ";") or not after or line(after[0]) == line(close + 1):
            continue
        changed = {words[m + d] for m in range(close + 1, first) for d in (-1, 1)
                   if words[m] in ("++", "--") or (words[m] in ASSIGNED and d < 0)}
        rest = " ".join(source[tokens[k].start:tokens[words.index(";", k)].end] for k in after)
        return Unbraced(words[j], line(j), source[tokens[j].start:tokens[close].end],
                        source[tokens[close + 1].start:tokens[first].end], line(close + 1),
                        (line(after[0]), line(after[-1])), rest,
                        not changed & set(words[j + 2:close]))
    return None


def _indented_after(words, start, end, column, column_of):
    """The first words of the statements from ``start`` on whose first word stands at ``column``
    (``column_of``: a word's column), up to the first that does not."""
    found, k = [], start
    while k < end and words[k] != "}" and column_of(k) == column:
        found.append(k)
        k = words.index(";", k) + 1
    return found


Dangling = namedtuple("Dangling", "outer outer_line inner inner_line else_line")
"""outer, inner: the conditions' text, "(r2 <= 255.0f)", of an if with no braces and of the if
that is its one statement; else_line: the line of the else that C pairs with the inner if."""


def dangling_else(kernels):
    """The kernel's first else that C pairs with the nearest if, an if with no braces that is the
    one statement of another, where its indentation shows it meant the outer if (it stands at the
    outer if's column); None where there is none or the text cannot be read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := _laid_out(kernels)) is None:
        return None
    source, tokens, words, body, end, column, line = text

    for j in (j for j in range(body + 1, end - 1) if words[j:j + 2] == ["if", "("]):
        try:
            close = closing(tokens, j + 1)
            if words[close + 1:close + 3] != ["if", "("]:
                continue
            inner = closing(tokens, close + 2)
            last = closing(tokens, inner + 1) if words[inner + 1] == "{" else \
                words.index(";", inner + 1)
        except (Unreadable, ValueError):
            return None
        if words[last + 1] == "else" and column(last + 1) == column(j) != column(close + 1):
            return Dangling(source[tokens[j + 1].start:tokens[close].end], line(j),
                            source[tokens[close + 2].start:tokens[inner].end], line(close + 1),
                            line(last + 1))
    return None
