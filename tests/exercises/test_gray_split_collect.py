"""The multi-GPU exercise (notebook 11), its collecting loop: what it copies back and where it
stores it, with several devices (on the simulator's two, or a machine's GPUs)."""

import pytest

from test_gray_split import SEVERAL, assert_named

QUEUED = "queued.append((k, lo, hi, rgb_k, grey_k))"
UNPACKED = "for k, lo, hi, rgb_k, grey_k in queued:"

# name: (replacements in the solution, pieces of the expected verdict)
WRONG = {
    # blind audit AH (was "your function raised ValueError at line 21 of your cell (grey[lo:hi] =
    # grey_k.get()): could not broadcast ... Hint: the message says what went wrong on that line.
    # Device k's share is images[lo:hi] ...", silent on lo and hi): lo and hi left out of queued,
    # so the collecting loop's grey[lo:hi] is the last device's share for every device
    "bounds_left_out_of_queued": (
        [(QUEUED, "queued.append((k, rgb_k, grey_k))"),
         (UNPACKED, "for k, rgb_k, grey_k in queued:")],
        ("the line stores device 0's 3 grey images into grey[3:7], the last launched device's "
         "share (device 1's)", "lo and hi are not set in the collecting loop (for k, rgb_k, grey_k in "
         "queued:), so they still hold the values the launching loop left",
         "Hint: keep each device's lo and hi with its output: queued.append((k, rgb_k, grey_k, "
         "lo, hi)), and unpack them there: for k, rgb_k, grey_k, lo, hi in queued:")),
    # blind audit AJ (was "your function raised TypeError at line 27 of your cell (grey[lo:hi] =
    # grey_k): int() argument must be ... Hint: the message says what went wrong on that line",
    # NumPy's words alone): device k's gpuarray stored into the host array without get()
    "stored_without_get": (
        [("grey[lo:hi] = grey_k.get()", "grey[lo:hi] = grey_k")],
        ("(grey[lo:hi] = grey_k)", "puts grey_k, a gpuarray in device 0's memory, into grey, a "
         "NumPy array in host memory", "Hint: copy it back first, with device 0's context "
         "current: grey[lo:hi] = grey_k.get()")),
}


@pytest.mark.skipif(not SEVERAL, reason="this mistake shows only with several devices")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_collecting_loop_s_mistake_is_named(name, capsys):
    replacements, expected = WRONG[name]
    assert_named(replacements, expected, capsys)
