"""Near misses: what a wrong output's effect shows when no known mistake of the exercise matches.

A checker's last detector used to say only how many elements are wrong. Many new mistakes leave
a plain relation between the output ``got`` and the right one ``want`` (NumPy arrays of one
shape), and naming the relation points at the line to read. ``misses(name, got, want)`` yields
``(problem, hint)`` for each relation that holds, the most telling first:

- every element a constant factor times the right one (``values``), or the right one plus a
  constant, or the right one cut to a whole number (it went through an ``int``);
- the transpose (``transposed``); rows or columns, or the elements within each block, taken
  from others: reversed, swapped, repeating, a run moved (``reordered``); the elements shifted
  by k along an axis or the flat index, those moved out at the edge aside (``shifted``);
- the right values in only the first p (2 or more) elements of each block or row (``prefix``).

A relation counts only when it holds for every element, or every one but the edge that a shift
moves out, within the exercise's tolerance: ``close(a, b)``, elementwise (default
``np.isclose(a, b, rtol=1e-5, atol=1e-6)``), with ``slack``, the share of elements that may miss
(for outputs such as escape counts, where a few points differ from NumPy's by rounding). And
only where the output is not right anyway within the same tolerance.

The exercise names its output (``name``), may give its own ``index_hint`` for an index mistake,
and ``block = (size, word)`` for a 1-D output made of blocks (``(48, "group")``: 16 pixels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from fractions import Fraction

import numpy as np

Mistake = tuple[str, str]

INDEX_HINT = ("compare each index the kernel reads and stores with the element its thread owns: "
              "printf, from one thread, the indices it computes, and work out by hand the ones "
              "they should be")
FACTOR_HINT = ("check each number the formula multiplies or divides by: in C, an int divided by "
               "an int drops the fraction (1 / 2 is 0), and ^ is exclusive or, not a power")
OFFSET_HINT = "compare the formula term by term: one is added that does not belong, or one is missing"
INT_HINT = ("keep the value a float all the way to the store: an int variable, or a cast to int, "
            "drops the fraction")
ROUNDING = 1e-6
"""The difference, a share of the right values' largest magnitude, that a model may be off by
(float32's rounding, over a few operations)."""
MAX_SHIFT = 64
"""The largest shift tried along the flat index or an axis."""
MAP_WORK = 5e7
"""The most element comparisons a search for reordered rows may make."""


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """When ``got`` matches a model: ``close(a, b)`` elementwise, everywhere but a ``slack``
    share of the elements."""

    close: Callable[[np.ndarray, np.ndarray], np.ndarray]
    slack: float = 0.0

    def misses(self, a, b) -> int:
        """How many elements of a are not b: not ``close``, nor within ``ROUNDING`` of b's
        largest magnitude (a model from NumPy rounds otherwise than the kernel, as where a sum
        cancels to near 0)."""
        finite = np.abs(b[np.isfinite(b)])
        ok = np.asarray(self.close(a, b))
        if finite.size:
            ok = ok | (np.abs(a - b) <= ROUNDING * finite.max())
        return int(np.count_nonzero(~ok))

    def holds(self, a, b) -> bool:
        """Whether a is b, but for the slack (and a has elements)."""
        return a.size > 0 and self.misses(a, b) <= self.slack * a.size


def within(rtol: float = 1e-5, atol: float = 1e-6):
    """``close`` for ``np.isclose(a, b, rtol, atol)``: the tolerance most checkers use."""
    return lambda a, b: np.isclose(a, b, rtol=rtol, atol=atol)


def misses(name: str, got, want, close=None, slack: float = 0.0, block=None,
           index_hint: str = INDEX_HINT, store: str | None = None) -> Iterator[Mistake]:
    """(problem, hint) of each near miss that ``got`` is of ``want``, the most telling first;
    nothing when ``got`` is right (see the module's docstring). ``store``: the right store of a
    2-D output's element (row, col), as the exercise writes it, for a transposed store."""
    tol = Tolerance(close or within(), slack)
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape or tol.holds(got, want):
        return
    yield from values(name, got, want, tol)
    yield from transposed(name, got, want, tol, index_hint, store)
    yield from reordered(name, got, want, tol, block, index_hint)
    yield from shifted(name, got, want, tol, index_hint)
    yield from prefix(name, got, want, tol, block)


def _factor(f: float) -> str:
    """A factor as a number, and as a fraction of small numbers when it is one."""
    frac = Fraction(f).limit_denominator(32)
    if frac.denominator == 1 and abs(f - frac) <= 1e-6 * abs(f):
        return f"{int(frac)}"
    shown = f"{f:.4g}"
    if abs(float(shown) - f) > 1e-9 * abs(f) and frac.denominator > 1 and abs(f - float(frac)) <= 1e-5 * abs(f) and abs(frac.numerator) < 1000:
        shown += f" ({frac.numerator}/{frac.denominator})"
    return shown


def values(name, got, want, tol: Tolerance) -> Iterator[Mistake]:
    """Every element the right one times a factor, plus a constant, or cut to a whole number."""
    nonzero = want != 0
    if np.count_nonzero(nonzero) >= 2:
        f = float(np.median(got[nonzero] / want[nonzero]))
        if np.isfinite(f) and not np.isclose(f, 1, rtol=1e-5) and \
                not tol.holds(got, np.zeros_like(got)) and tol.holds(got, want * f):
            what = (f"every element of {name} has the wrong sign: it is -1 times the right value"
                    if np.isclose(f, -1, rtol=1e-5) else
                    f"every element of {name} is {_factor(f)} times the right value: a factor is off")
            yield what, FACTOR_HINT
    c = float(np.median(got - want))
    if np.isfinite(c) and not tol.holds(np.full(1, c), np.zeros(1)) and tol.holds(got, want + c):
        yield (f"every element of {name} is the right value {'plus' if c > 0 else 'minus'} "
               f"{abs(c):.4g}: a constant is added", OFFSET_HINT)
    if np.count_nonzero(want != np.round(want)) >= want.size / 2:
        for cut, how in ((np.trunc, "toward zero"), (np.floor, "down"), (np.round, "to the nearest")):
            if np.count_nonzero(cut(want)) and tol.holds(got, cut(want)):
                yield (f"every element of {name} is the right value cut to a whole number "
                       f"({how}): the fraction was dropped", INT_HINT)
                return


def transposed(name, got, want, tol: Tolerance, index_hint=INDEX_HINT,
               store=None) -> Iterator[Mistake]:
    """A 2-D output transposed: square, or stored column after column (with ``store``, the
    right store, named as the line to mend: each element holds its right value, only its
    place is column-major)."""
    if got.ndim != 2 or min(got.shape) < 2:
        return
    rows, cols = got.shape
    if rows == cols and tol.holds(got, want.T):
        yield (f"{name} is transposed: {name}[r][c] holds the right value of {name}[c][r]",
               index_hint)
    elif rows != cols and tol.holds(got.ravel(), want.T.ravel()) and store:
        yield (f"{name} holds the right values column after column: element (r, c) was "
               f"stored at {name}[c * {rows} + r] (col * {rows} + row), but {name} is stored row "
               f"after row, a row {cols} long: the store's index is transposed",
               f"store element (row, col) at row * {cols} + col: {store}")
    elif rows != cols and tol.holds(got.ravel(), want.T.ravel()):
        yield (f"{name} holds the right values column after column: element (r, c) went to "
               f"c * {rows} + r, where a row holds {cols}: the output is transposed", index_hint)


def _shift(got, want, tol: Tolerance, k: int, axis: int) -> bool:
    """Whether got's element i holds want's i + k along ``axis``, all but the |k| at the edge,
    where got is not want."""
    n = got.shape[axis]
    if abs(k) * 2 > n or (n - abs(k)) * (got.size // n) < 4:
        return False
    take = lambda a, s: np.take(a, np.arange(s, s + n - abs(k)), axis=axis)  # noqa: E731
    g, w = take(got, max(0, -k)), take(want, max(0, k))
    return tol.holds(g, w) and not tol.holds(g, take(want, max(0, -k)))


def _plus(k: int) -> str:
    return f"+ {k}" if k > 0 else f"- {-k}"


def shifted(name, got, want, tol: Tolerance, index_hint=INDEX_HINT) -> Iterator[Mistake]:
    """got's element i holds want's element i + k: along an axis of a 2-D output (rows first),
    or along the flat index."""
    if got.ndim == 2:
        for axis, k in _shifts(got.shape, (0, 1)):
            if _shift(got, want, tol, k, axis):
                where = (f"row r of {name} holds the right values of row r {_plus(k)}" if axis == 0
                         else f"{name}[r][c] holds the right value of {name}[r][c {_plus(k)}]")
                yield f"{where}: an index is off by {abs(k)}", index_hint
                return
    flat_got, flat_want = got.ravel(), want.ravel()
    for _, k in _shifts(flat_got.shape, (0,)):
        if _shift(flat_got, flat_want, tol, k, 0):
            where = (f"{name}[i] holds the right value of {name}[i {_plus(k)}]" if got.ndim == 1
                     else f"element i of {name}, counted row after row, holds the right value of "
                          f"element i {_plus(k)}")
            yield f"{where}: an index is off by {abs(k)}", index_hint
            return


def _shifts(shape, axes):
    """(axis, k) to try, the smallest |k| first."""
    for size in range(1, MAX_SHIFT + 1):
        for axis in axes:
            if 2 * size <= shape[axis]:
                yield from ((axis, size), (axis, -size))


@dataclasses.dataclass(frozen=True)
class _Axis:
    """How to speak of the parts along one axis: "rows 3 to 5 of C", "in every group of 48
    elements of out, elements 16 to 31"."""

    noun: str
    nouns: str
    before: str = ""
    of: str = ""


def _views(name, got, want, block):
    """(got, want, axis words) with the parts to reorder along axis 0: a 2-D output's rows, then
    its columns; a 1-D output's elements within each block."""
    if got.ndim == 2:
        yield got, want, _Axis("row", "rows", of=f" of {name}")
        yield got.T, want.T, _Axis("column", "columns", of=f" of {name}")
    elif got.ndim == 1 and block and got.size >= 2 * block[0]:
        size, word = block
        whole = got.size // size * size
        yield (got[:whole].reshape(-1, size).T, want[:whole].reshape(-1, size).T,
               _Axis("element", "elements", before=f"in every {word} of {size} elements of {name}, "))


def _parts_map(got, want, tol: Tolerance):
    """For each part (row) of got, the part of want it holds (its own when it can), or None when
    one holds none."""
    parts = got.shape[0]
    if parts < 2 or parts * parts * got[0].size > MAP_WORK:
        return None
    found = []
    for i in range(parts):
        fits = [j for j in range(parts) if tol.holds(got[i], want[j])]
        if not fits:
            return None
        found.append(i if i in fits else min(fits, key=lambda j: abs(j - i)))
    return np.array(found)


def _describe(m, ax: _Axis) -> str | None:
    """What a map of parts (part i holds part m[i]) shows, in words; None for no plain pattern."""
    n, i = len(m), np.arange(len(m))
    if (m == n - 1 - i).all():
        return (f"{ax.before}the {ax.nouns}{ax.of} are in reverse order: {ax.noun} 0 holds the "
                f"right values of {ax.noun} {n - 1}")
    if (m == m[0]).all():
        return f"{ax.before}every {ax.noun}{ax.of} holds the right values of {ax.noun} {m[0]}"
    for p in range(2, n):
        if (m == i % p).all():
            return (f"{ax.before}the {ax.nouns}{ax.of} repeat the first {p}: {ax.noun} r holds the "
                    f"right values of {ax.noun} r % {p}")
    wrong = np.flatnonzero(m != i)
    a, b = int(wrong[0]), int(wrong[-1])
    if wrong.size == 2 and m[a] == b and m[b] == a:
        return f"{ax.before}{ax.nouns} {a} and {b}{ax.of} are swapped"
    d = int(m[a] - a)
    if wrong.size == 1:
        return f"{ax.before}{ax.noun} {a}{ax.of} holds the right values of {ax.noun} {a + d}"
    if wrong.size == b - a + 1 and (m[wrong] - wrong == d).all():
        return (f"{ax.before}{ax.nouns} {a} to {b}{ax.of} hold the right values of {ax.nouns} "
                f"{a + d} to {b + d}")
    return None


def reordered(name, got, want, tol: Tolerance, block=None,
              index_hint=INDEX_HINT) -> Iterator[Mistake]:
    """Each row (column; element of a block) holds the right values of another one."""
    for g, w, ax in _views(name, got, want, block):
        m = _parts_map(g, w, tol)
        words = None if m is None or (m == np.arange(len(m))).all() else _describe(m, ax)
        if words:
            yield words, index_hint
            return


def prefix(name, got, want, tol: Tolerance, block=None) -> Iterator[Mistake]:
    """The right values in only the first p elements of each block, rows of a 2-D output, or
    columns of each of its rows."""
    for g, w, ax in _views(name, got, want, block):
        right = np.asarray(tol.close(g, w))          # (parts, blocks): part i of each block
        p, size = int(np.argmin(right.all(axis=1))), len(right)   # the first part ever wrong
        if p < 2 or right[p:].mean() > 0.5 or not tol.holds(g[:p], w[:p]):
            continue
        wrong = f"{ax.nouns} {p} to {size - 1}" if p < size - 1 else f"{ax.noun} {p}"
        if ax.noun == "element":
            where, whole = f"{ax.before}only the first {p} are right ({wrong} of each are wrong)", \
                f"each {block[1]}"
        elif ax.noun == "row":
            where, whole = f"only the first {p} rows of {name} are right ({wrong} are wrong)", name
        else:
            where, whole = (f"only the first {p} columns of each row of {name} are right ({wrong} "
                            "are wrong)"), "each row"
        tail = np.asarray(g[p:], np.float64)
        if np.all(tail == tail.flat[0]) or np.isnan(tail).all():   # one value: never computed
            yield (where, f"a loop or a guard stops short: {whole} has {size} {ax.nouns}, and "
                          "every one needs its value (check the bound the loop runs to)")
        else:
            yield (f"{where}, computed from other inputs", f"from {ax.noun} {p} of {whole} on, "
                   "the values come from elements the kernel should not have read: check the "
                   "indices of the loads that feed them")
        return
