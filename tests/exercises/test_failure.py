"""The hints chosen by a failure's kind (helpers.exercises.failure), read from the simulator's
errors' fields: a race's hint depends on what the two accesses were and who made them, an overrun
of a declared array's on the declaration, and the exercise's own hint comes first where it has
one. The errors are made here with their facts, as the simulator raises them."""

from helpers.exercises.failure import (GUARD_HINT, Failure, describe, hint, mistake,
                                       shared_by_the_block)
from helpers.sim.errors import (Access, ArrayBoundsError, LaunchError, OutOfBoundsError, RaceError,
                               WarpMaskError)


def race(first, second, *, space="shared", hazard="read-after-write", array="s", element=3,
         first_line="k.cu:10", second_line="k.cu:12", within_warps=True):
    """A RaceError between thread ``first`` and ``second`` (each (thread, block));
    ``within_warps``: whether every hazard of the launch lies within one warp."""
    return RaceError("RACE", first=Access(first[0], first[1], first_line, "writes it"),
                     second=Access(second[0], second[1], second_line, "reads it"), space=space,
                     hazard=hazard, count=1, kernel="k", array=array, element=element,
                     within_warps=within_warps)


B0, B1 = (0, 0, 0), (1, 0, 0)


def test_a_race_is_placed_between_lanes_warps_or_blocks():
    lanes = Failure(race(((0, 0, 0), B0), ((5, 0, 0), B0)), block=(128, 1, 1))
    warps = Failure(race(((0, 0, 0), B0), ((32, 0, 0), B0)), block=(128, 1, 1))
    blocks = Failure(race(((0, 0, 0), B0), ((0, 0, 0), B1)), block=(128, 1, 1))
    rows = Failure(race(((0, 0, 0), B0), ((0, 1, 0), B0)), block=(16, 16, 1))  # one warp: 2 rows
    # The first pair within a warp, other hazards of the launch between warps: the barrier's hint.
    mixed = Failure(race(((0, 0, 0), B0), ((5, 0, 0), B0), within_warps=False), block=(128, 1, 1))
    assert [f.between for f in (lanes, warps, blocks, rows, mixed)] == [
        "lanes", "warps", "blocks", "lanes", "warps"]
    assert "lanes of one warp" in hint(lanes) and "__syncthreads() between" in hint(lanes)
    assert "__syncthreads() between the write and the read (k.cu:10 and k.cu:12)" in hint(warps)
    assert "blocks cannot wait for each other" in hint(blocks)


def test_a_read_modify_write_race_wants_an_atomic_on_that_element():
    update = Failure(race(((0, 0, 0), B0), ((32, 0, 0), B0), array="total", element=0,
                          second_line="k.cu:10"))
    assert update.update and "total[0] is updated by several threads at once" in hint(update)
    assert "atomicAdd" in hint(update)
    stores = Failure(race(((0, 0, 0), B0), ((1, 0, 0), B0), hazard="write-after-write",
                          second_line="k.cu:10"))
    assert not stores.update and "each element must be loaded by one thread" in hint(stores)


def test_a_scalar_stored_by_two_threads_is_named_as_declared_shared():
    """Blind audit AP: a thread's own value (n, a counter) declared __shared__, of one element;
    an array of several elements, or a read after the store, is no such mistake."""
    def stores(length, second="writes it"):
        err = RaceError("RACE", first=Access((0, 0, 0), B0, "k.cu:15", "writes it"),
                        second=Access((1, 0, 0), B0, "k.cu:18", second), space="shared",
                        hazard="write-after-write", count=9, kernel="k", array="n", element=0,
                        within_warps=True, length=length)
        return list(shared_by_the_block(Failure(err, block=(64, 1, 1))))
    [(problem, named)] = stores(1)
    assert problem.startswith("n is declared __shared__: one n for the whole block, not one for "
                              "each thread") and "k.cu:15" in problem and "k.cu:18" in problem
    assert named == ("declare n without __shared__, a plain local each thread keeps in its own "
                     "register")
    assert stores(8) == stores(None) == stores(1, "reads it") == []


def test_what_happened_is_said_from_the_fields():
    bounds = LaunchError("X", kind="array bounds", line="k.cu:7", block=B1, thread=(5, 0, 0))
    assert describe(bounds) == ("thread (5, 0, 0) of block (1, 0, 0) indexed an array past the "
                                "size it was declared with at k.cu:7")
    below = ArrayBoundsError("X", kind="array bounds", line="k.cu:7", block=B1, thread=(0, 0, 0),
                             element=-1, declared="float [256]", length=256)
    assert describe(below) == ("thread (0, 0, 0) of block (1, 0, 0) indexed an array before its "
                               "start (index -1) at k.cu:7")
    assert "came out below 0" in hint(Failure(below))
    outside = OutOfBoundsError("X", kind="out of bounds", allocation=(0, 40), offset=44,
                               is_write=True, block=B0, thread=(3, 0, 0))
    assert describe(outside) == ("block (0, 0, 0), thread (3, 0, 0): a write, 5 bytes past the "
                                 "end of a 40-byte allocation")
    # with the line, and the parameter whose allocation it is, or the element as indexed
    placed = OutOfBoundsError("X", kind="out of bounds", allocation=(4096, 40), offset=44,
                              is_write=False, block=B0, thread=(3, 0, 0), line="/t/k.cu:9")
    assert describe(placed, {4096: "x"}) == ("block (0, 0, 0), thread (3, 0, 0): a read of x at "
                                             "k.cu:9, 5 bytes past the end of its 40 bytes")
    indexed = OutOfBoundsError("X", kind="out of bounds", is_write=False, block=B0, thread=(3, 0, 0),
                               line="k.cu:9", array="tile", element=16, length=16, space="shared")
    assert describe(indexed) == ("block (0, 0, 0), thread (3, 0, 0): a read of tile[16] at "
                                 "k.cu:9, 1 element past the end of its 16")
    assert describe(race(((0, 0, 0), B0), ((1, 0, 0), B0))).startswith(
        "a data race on s[3] (shared memory): thread (0, 0, 0)")
    assert describe(RuntimeError("an illegal memory access")) == "an illegal memory access"


def test_other_kinds_get_their_own_hints():
    def launch_error(kind):
        return Failure(LaunchError("X", kind=kind, line="k.cu:7"))

    assert "declared with a fixed size" in hint(launch_error("array bounds"))
    assert "outside the if" in hint(launch_error("warp mask"))
    caller = Failure(WarpMaskError("X", rule="leaves out the caller", mask=0xFFFF, lane=16,
                                   line="k.cu:7", thread=(16, 0, 0), block=B0))
    assert describe(caller.error) == ("thread (16, 0, 0) of block (0, 0, 0) called a warp function "
                                      "whose mask, 0x0000ffff, leaves out its own lane 16 at k.cu:7")
    assert "must be in its mask" in hint(caller)
    exited = Failure(WarpMaskError("X", rule="names an exited lane", mask=0xFFFFFFFF, lane=5,
                                   line="k.cu:7"))
    assert "names lane 5, which had returned" in describe(exited.error)
    assert "same __syncthreads()" in hint(launch_error("divergent barrier"))
    assert "never becomes false" in hint(launch_error("time limit"))
    outside = Failure(OutOfBoundsError("X", kind="out of bounds", allocation=(0, 40), offset=44))
    assert hint(outside) == GUARD_HINT and hint(outside, "guard i < n") == "guard i < n"
    assert hint(Failure(RuntimeError("an illegal memory access")), "guard i < n") == "guard i < n"


def test_the_exercise_s_hint_comes_first_where_it_has_one():
    def refine(failure):
        if failure.kind == "array bounds":
            yield "tile needs 12 x 36 elements"

    bounds = LaunchError("X", kind="array bounds", line="k.cu:7")
    assert mistake("P", bounds, refine=refine) == ("P", "tile needs 12 x 36 elements")
    mask = LaunchError("X", kind="warp mask", line="k.cu:7")
    assert "outside the if" in mistake("P", mask, refine=refine)[1]


def test_an_exercise_may_name_the_mistake_itself_from_the_error_s_fields():
    def refine(failure):
        if failure.kind == "conversion":
            yield "a channel was negative", "read it as unsigned char"

    conversion = LaunchError("X", kind="conversion", line="k.cu:7")
    assert mistake("P", conversion, refine=refine) == ("a channel was negative",
                                                       "read it as unsigned char")


def test_an_access_past_a_known_arrays_end_names_its_size():
    """The exact bounds check knows the array and its length: the hint gives both."""
    past = OutOfBoundsError("X", kind="out of bounds", allocation=None, offset=None, array="tile",
                            element=16, length=16, block=B0, thread=(15, 0, 0), is_write=False,
                            space="shared")
    said = hint(Failure(past), "guard i < n")
    assert said.startswith("tile has 16 elements, tile[0] to tile[15]") and "guard i < n" in said


def test_an_index_wrapped_around_as_an_unsigned_int_is_named_and_gets_its_hint():
    """threadIdx.x - 1 for thread 0 is 4294967295: the simulator names the array, element -1 and
    the ``wrapped`` field; the hint says threadIdx.x is unsigned, whatever the crash hint."""
    wrapped = OutOfBoundsError("X", kind="out of bounds", allocation=(4096, 400),
                               offset=4 * 4294967295 + 4096, array="x", element=-1,
                               index=4294967295, wrapped=True, length=100, block=B0,
                               thread=(0, 0, 0), is_write=False, space="global", line="/t/k.cu:5")
    said = hint(Failure(wrapped), "guard i < n")
    assert said.startswith("threadIdx.x (and blockIdx.x, blockDim.x) are unsigned: threadIdx.x "
                           "- 1 for thread 0 wraps to 4294967295")
    assert "if (threadIdx.x > 0)" in said and "int t = threadIdx.x;" in said
    assert describe(wrapped) == (
        "block (0, 0, 0), thread (0, 0, 0): a read of x[4294967295] at k.cu:5: the index is -1 "
        "wrapped around as an unsigned int (threadIdx.x - 1 for thread 0, like any unsigned i - 1 "
        "at i = 0, is 4294967295, not -1)")
    bounds = ArrayBoundsError("X", kind="array bounds", declared="float [32]", length=32,
                              element=4294967295, index=4294967295, wrapped=True, block=B0,
                              thread=(0, 0, 0), line="/t/k.cu:7")
    assert hint(Failure(bounds)) == said
    assert describe(bounds) == (
        "thread (0, 0, 0) of block (0, 0, 0) indexed an array at 4294967295 at k.cu:7: the index "
        "is -1 wrapped around as an unsigned int (threadIdx.x - 1 for thread 0, like any unsigned "
        "i - 1 at i = 0, is 4294967295, not -1)")


def test_a_block_past_the_kernels_launch_bounds_is_named_before_the_exercise_s_hints():
    """From the simulator's fields, and for PyCUDA's LaunchError (no fields) from the simulated
    twin's bound and the launch's block (blind audit AW)."""
    from types import SimpleNamespace

    from helpers.sim.errors import LaunchBoundsError

    def refine(failure):
        yield "an exercise's own words"

    named = ("your kernel's __launch_bounds__(128) allows at most 128 threads a block, but the "
             "exercise launches blocks of 256 threads, (32, 8, 1)")
    over = LaunchBoundsError("X", max_threads=128, threads=256, block_dim=(32, 8, 1), kernel="k")
    problem, said = mistake("P", over, block=(32, 8, 1), refine=refine)
    assert problem.startswith(named) and "drop __launch_bounds__" in said
    kernels = SimpleNamespace(device=None, simulated=SimpleNamespace(max_threads_per_block=128))
    on_a_gpu = LaunchError("cuLaunchKernel failed: too many resources requested for launch")
    assert mistake("P", on_a_gpu, block=(32, 8, 1), kernel=kernels)[0].startswith(named)
    assert mistake("P", on_a_gpu, block=(16, 8, 1), kernel=kernels, refine=refine) == \
        ("P", "an exercise's own words")
