"""A kernel's signature read as text from the learner's source, and compared with the stub's.

The signature is compared as text so that the verdict is the same on both backends (PyCUDA would
pass a ``float`` to a ``double`` parameter without a word, and the kernel would read garbage).
Types are compared without ``const``, ``volatile`` and ``__restrict__``, which do not change what
the checker passes; names may differ.
"""

from __future__ import annotations

import re

from helpers.sim.compile.source import without_comments

_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|restrict)\b")


def parameters(signature: str) -> list[tuple[str, str]]:
    """``[(type, name), ...]`` of a C parameter list: ``"const float *x, int n"`` gives
    ``[("float*", "x"), ("int", "n")]`` (qualifiers dropped, pointers written ``T*``)."""
    found = []
    for part in filter(None, (p.strip() for p in signature.split(","))):
        match = re.fullmatch(r"(.*?)(\w+)\s*(\[\s*\])?", part, flags=re.S)
        if not match or not match.group(1).strip():
            found.append((" ".join(part.split()), ""))  # a type alone, or something odder
            continue
        ctype = _QUALIFIERS.sub(" ", match.group(1)) + ("*" if match.group(3) else "")
        ctype = re.sub(r"\s*\*\s*", "*", " ".join(ctype.split())).strip()
        found.append((ctype, match.group(2)))
    return found


def kernel_parameters(source: str, kernel: str) -> str | None:
    """The parameter list of ``__global__ void kernel(...)`` in ``source``, comments and
    preprocessor lines removed; None where it cannot be read as text (made by a macro, say)."""
    text = without_comments(source)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    match = re.search(r"__global__\s+void\s+" + re.escape(kernel) + r"\s*\(([^()]*)\)", text)
    return match.group(1) if match else None


def function_parameters(source: str, function: str) -> list[tuple[str, str]]:
    """``[(type, name), ...]`` of the parameters of ``function``'s definition in ``source``
    (``__device__ int clamp_index(int i, int n) {``), comments left out; [] where there is none."""
    text = without_comments(source or "")
    match = re.search(r"\b" + re.escape(function) + r"\s*\(([^()]*)\)\s*\{", text)
    return parameters(match.group(1)) if match else []


def signature_mistake(source: str, kernel: str, expected: str):
    """``(problem, hint)`` naming the first parameter of ``kernel`` in ``source`` whose type is
    not the one in ``expected`` (a parameter list), or None when they agree."""
    found_text = kernel_parameters(source, kernel)
    if found_text is None:
        return None
    want, got = parameters(expected), parameters(found_text)
    hint = f"keep the signature the stub gives: __global__ void {kernel}({expected})"
    moved = _moved(want, got)
    if moved is not None:
        i, got_name, want_name = moved
        return (f"parameter {i + 1} of {kernel} is {got_name}, but the checker passes {want_name} "
                f"there: arguments go by position, not by name, so {got_name} would hold "
                f"{want_name}'s value", hint)
    for i, ((want_type, want_name), (got_type, got_name)) in enumerate(zip(want, got)):
        if want_type != got_type:
            return (f"parameter {i + 1} of {kernel}, {got_name or got_type}, is declared "
                    f"'{got_type}', but the checker passes '{want_type}' there (for "
                    f"{want_name}): the kernel would read the wrong bytes", hint)
    if len(got) != len(want):
        return (f"{kernel} takes {len(got)} parameters, but the checker passes {len(want)} "
                f"({expected})", hint)
    return None


def _moved(want, got):
    """``(place, name there, the stub's name there)`` of the first parameter out of the stub's
    order, when the learner's parameters are the stub's names in another order; else None."""
    want_names, got_names = [n for _, n in want], [n for _, n in got]
    if "" in got_names or sorted(got_names) != sorted(want_names) or got_names == want_names:
        return None
    return next((i, g, w) for i, (g, w) in enumerate(zip(got_names, want_names)) if g != w)
