"""Where an access fell against its allocation or its array, in words, counted as memcheck counts
(the first byte past the end is 1 byte past it): the errors' messages, the bounds check's and the
checkers' verdicts say it the same way."""


def distance_words(offset, size):
    """Where an access at ``offset`` fell against an allocation of ``size`` bytes, as memcheck
    counts (the first byte past the end is 1 byte past it): "4 bytes past the end of a
    4000-byte allocation"."""
    if 0 <= offset < size:
        return f"at offset {offset} of a {size}-byte allocation"
    n, side = (offset - size + 1, "past the end") if offset >= size else (-offset, "before the start")
    return f"{n} byte{'s' * (n != 1)} {side} of a {size}-byte allocation"


def element_words(element, length):
    """Where an access at element ``element`` fell against an array of ``length`` elements: "1
    element past the end of its 16", "2 elements before its start", or, for one that starts
    inside and runs past the end (a wide load), "which runs past the end of its 16 elements"."""
    if length == 0:
        return "and it has no elements"
    if element >= length:
        n, side = element - length + 1, f"past the end of its {length}"
    elif element < 0:
        n, side = -element, "before its start"
    else:
        return f"which runs past the end of its {length} element{'s' * (length != 1)}"
    return f"{n} element{'s' * (n != 1)} {side}"
