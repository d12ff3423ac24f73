"""The add_constant checker's reading of a thread's own value declared ``__shared__`` (its index,
``__shared__ int i; i = threadIdx.x;``): one variable for the whole block, which every thread
stores into. The race check cannot see it there: the compiler keeps each thread's value in a
register for the read that follows, and drops the store to a variable nothing else reads, so the
kernel's text tells."""

from __future__ import annotations

from helpers.exercises.microscope import kernel_words, source_line

STATEMENT_STARTS = ("{", ";", "}")


def declared_shared(kernels):
    """(problem, hint) for a ``__shared__`` variable of one element (no ``[ ]``), declared at the
    top of the kernel's body and stored into there, under no if: every thread stores into it.
    Nothing where it is stored under an if (one thread's value, handed to the block)."""
    if (text := kernel_words(kernels)) is None:
        return
    source, tokens, words, body, end = text
    depth, declared = 0, {}
    for s in range(body + 1, end):
        depth += {"{": 1, "}": -1}.get(words[s], 0)
        if depth or words[s - 1] not in STATEMENT_STARTS:
            continue
        if words[s] == "__shared__" and ";" in words[s:end]:
            stop = words.index(";", s, end)
            declared.update((words[j], (s, stop)) for j in range(s + 1, stop)
                            if words[j].isidentifier() and words[j + 1] in (",", ";"))
        elif words[s] in declared and words[s + 1] == "=" and ";" in words[s:end]:
            name, (start, stop) = words[s], declared[words[s]]
            plain = source[tokens[start + 1].start:tokens[stop].end]
            store = source[tokens[s].start:tokens[words.index(";", s, end)].end]
            yield (f"{name} is declared __shared__, which makes one {name} for the whole block, "
                   f"not one for each thread: every thread stores into that one {name} ({store} "
                   f"at line {source_line(source, tokens[s].start)}; declared at line "
                   f"{source_line(source, tokens[start].start)}), and a thread may read back "
                   "another thread's value in place of its own",
                   f"declare {name} without __shared__, {plain}, a plain local variable: each "
                   f"thread then has its own {name}")
            return
