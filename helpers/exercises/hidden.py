"""Hidden cases: sizes the grader draws anew on each run, so that a submission tuned to the cases
a checker ships with fails.

The checkers go out in the student release, their cases with them: a kernel could pass them by
knowing their sizes (a grid worked out for n == 1000, an early return for any other n). So each
checker takes ``hidden``, a seed. Without one (the notebooks never give one) it runs the cases the
learner can read. With one (``tools/grade.py`` draws a seed each run; ``--seed`` repeats a run),
it runs those and then more of the same family, drawn from the seed by the exercise's own rule:
sizes that are not multiples of the block, several blocks with a partial last one, one partial
block alone, the block shapes its shipped cases use. A verdict on a hidden case names its sizes,
like any other.

``cases(shipped, rule, seed)`` gives the list to run; the helpers below draw the sizes the rules
share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from helpers.exercises.coverage import Grid

Rule = Callable[[np.random.Generator], list]
"""An exercise's rule: the hidden cases it draws from a random generator, in its cases' form."""


def cases(shipped: Sequence, rule: Rule, seed: int | None) -> list:
    """``shipped``, followed, when ``seed`` is given, by the cases ``rule`` draws from it."""
    if seed is None:
        return list(shipped)
    return [*shipped, *rule(np.random.default_rng(seed))]


def success(text: str, shipped: Sequence, every: Sequence) -> str:
    """A PASS text that counts the grader's own cases, when it ran some."""
    extra = len(every) - len(shipped)
    return f"{text}; and {extra} cases of the grader's own" if extra else text


def awkward(rng: np.random.Generator, multiple: int, low: int, high: int) -> int:
    """A size in [low, high] that is not a multiple of ``multiple`` (a block, a tile)."""
    while True:
        n = int(rng.integers(low, high + 1))
        if n % multiple:
            return n


def pick(rng: np.random.Generator, choices: Sequence):
    """One of ``choices`` (tuples stay tuples)."""
    return choices[int(rng.integers(len(choices)))]


def grids(rng: np.random.Generator, blocks: Sequence[tuple], low: int, high: int,
          count: int) -> list[Grid]:
    """``count`` 2-D launches, each on one of ``blocks``, sides in [low, high] that are not
    multiples of the block's (so every grid has a partial block on both sides)."""
    drawn = []
    for _ in range(count):
        bx, by = pick(rng, blocks)[:2]
        drawn.append(Grid(awkward(rng, by, low, high), awkward(rng, bx, low, high), (bx, by)))
    return drawn
