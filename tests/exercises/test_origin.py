"""Where a wrong element came from (helpers.exercises.origin): the clause a mistake that no
detector names gets, from the simulator's provenance of the element (its stores, their threads
and line, the loads before the last), with long runs of loads summed up; and the runner passes
every other mistake on as it was. (The exercises' own tests check the clause in their verdicts:
multiply_vectors' b_at_half_the_index, say.)"""

from helpers.exercises import origin
from helpers.exercises.kernel import traced_back
from helpers.sim.microscope.provenance import Load, Provenance

BLOCK, GRID = (128, 1, 1), (7, 1, 1)


def test_one_store_names_its_thread_block_line_and_loads():
    seen = Provenance("out", 300, ((2, 44),), 10, (Load("a", 300, False, 10),
                                                   Load("b", 150, False, 10)))
    assert origin.words(seen, BLOCK, GRID) == ("out[300] was stored by thread (44, 0, 0) of block "
                                               "(2, 0, 0) at line 10, which loaded a[300] and "
                                               "b[150]")


def test_several_stores_are_counted_and_many_loads_summed_up_by_their_ends_and_step():
    loads = tuple(Load("A", 32 * k, False, 7) for k in range(16)) + (Load("s", 3, True, 9),)
    seen = Provenance("C", 5, ((0, 5), (1, 5)), 12, loads)
    assert origin.words(seen, (16, 16, 1), (2, 2, 1)) == (
        "C[5] was stored 2 times, last by thread (5, 0, 0) of block (1, 0, 0) at line 12, which "
        "loaded 16 elements of A (A[0] to A[480], 32 apart) and s[3]")


def test_a_matrixs_element_is_named_by_its_sides_and_as_the_kernel_indexes_it():
    seen = Provenance("C", 79, ((0, 7),), 27, (Load("A", 64, False, 20),))
    assert origin.words(seen, (16, 16, 1), (2, 2, 1), shape=(3, 77)) == (
        "C[1][2], C[79] as the kernel indexes it, was stored by thread (7, 0, 0) of block "
        "(0, 0, 0) at line 27, which loaded A[64]")


def test_an_element_no_thread_stored_adds_nothing():
    assert origin.words(Provenance("out", 3, (), 0, ()), BLOCK, GRID) is None


def test_no_provenance_kept_adds_nothing():
    # provenance() gives None where the trace kept only some of the launch's accesses (more than
    # origin.ACCESSES) or no parameter has the array's name: the mistake goes on as it was
    assert origin.words(None, BLOCK, GRID) is None


def test_the_runner_passes_other_mistakes_on_as_they_were():
    mistakes = [("a problem", "a hint"), ("another", "hint")]
    assert list(traced_back(object(), None, iter(mistakes))) == mistakes
