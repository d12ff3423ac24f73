"""Where an access fell, in words (helpers/sim/distances.py): as memcheck counts."""

from helpers.sim import distances


def test_a_distance_from_an_allocation_is_counted_as_memcheck_counts_it():
    assert distances.distance_words(4000, 4000) == "1 byte past the end of a 4000-byte allocation"
    assert distances.distance_words(4003, 4000) == "4 bytes past the end of a 4000-byte allocation"
    assert distances.distance_words(-8, 4000) == "8 bytes before the start of a 4000-byte allocation"
    assert distances.distance_words(12, 4000) == "at offset 12 of a 4000-byte allocation"


def test_an_element_is_counted_from_the_arrays_ends():
    assert distances.element_words(-2, 16) == "2 elements before its start"
    assert distances.element_words(14, 15) == "which runs past the end of its 15 elements"
    assert distances.element_words(0, 0) == "and it has no elements"
