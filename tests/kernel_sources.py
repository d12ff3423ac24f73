"""Kernel sources for the exercise tests: a solution as shipped, and variants of it with a
mistake written in."""

from pathlib import Path

SOLUTIONS = Path(__file__).resolve().parent.parent / "cuda_src" / "solutions"


def solution(name):
    """The text of cuda_src/solutions/<name>."""
    return (SOLUTIONS / name).read_text()


def variant(source, *replacements):
    """source with each (old, new) replaced; every old must occur, so a typo fails loudly."""
    for old, new in replacements:
        assert old in source, f"variant: {old!r} not in the kernel"
        source = source.replace(old, new)
    return source
