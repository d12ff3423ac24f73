"""The multi-GPU exercise (notebook 11), the order the devices work in: an array the function
lets go of while its kernel runs is freed, and freeing device memory waits for that kernel, so
the devices take turns. Only the simulator shows the order (on a GPU the check says it did not
check it)."""

import pytest

from test_gray_split import assert_named, define, run_check

from helpers.backend import BACKEND

# name: (replacements in the solution, pieces of the expected verdict)
WRONG = {
    # blind audit AG (was 'PASS: the grey images match NumPy's for every batch ..., and every
    # device's kernel was launched before any result was copied back'): rgb_k left out of the
    # list the results are collected from, so binding the name to device 1's array freed device
    # 0's, which waited for device 0's kernel
    "input_not_kept_till_collected": (
        [("queued.append((k, lo, hi, rgb_k, grey_k))", "queued.append((k, lo, hi, grey_k))"),
         ("for k, lo, hi, rgb_k, grey_k in queued:", "for k, lo, hi, grey_k in queued:")],
        ("device 0's rgb_k (the kernel's input) was freed before device 1's kernel was launched",
         "freeing device memory waits for the kernel that uses it, so the devices took turns",
         "Hint: keep every device's arrays until its results are copied back: "
         "queued.append((k, lo, hi, grey_k, rgb_k))")),
    # the same list, and a synchronize in the launch loop: that wait came first, and is named
    "synchronized_in_the_loop_input_not_kept": (
        [("queued.append((k, lo, hi, rgb_k, grey_k))", "queued.append((k, lo, hi, grey_k))"),
         ("for k, lo, hi, rgb_k, grey_k in queued:", "for k, lo, hi, grey_k in queued:"),
         ("(rows + 7) // 8))\n", "(rows + 7) // 8))\n            drv.Context.synchronize()\n")],
        ("your function waited for device 0's kernel to finish (a synchronize inside the loop",)),
}


@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU does not tell the order of the work")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_devices_that_took_turns_are_named(name, capsys):
    replacements, expected = WRONG[name]
    assert_named(replacements, expected, capsys)


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's devices' memory is measured")
def test_the_check_lets_go_of_the_learner_s_arrays(capsys):
    """Once the check is over, every device has the memory it had before: the finalizers that
    note an array freed under its kernel reach it only weakly (one that reached it, through the
    copies' records, kept the arrays, and their memory, for good)."""
    import gc

    from test_gray_split import ON_STREAMS

    from helpers.backend import drv
    from helpers.sim.settings import settings

    def free():
        gc.collect()
        held = []
        for context in contexts:
            context.push()
            held.append(drv.mem_get_info()[0])
            context.pop()
        return held

    with settings.changed(devices=2, device_memory=8 * 2**20):
        contexts = [drv.Device(k).retain_primary_context() for k in range(2)]
        before = free()
        run_check(define(ON_STREAMS), capsys)
        assert free() == before
        for context in contexts:
            context.detach()
