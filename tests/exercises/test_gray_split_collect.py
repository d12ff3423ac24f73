"""The multi-GPU exercise (notebook 11), its collecting loop: what it copies back and where it
stores it, with several devices (on the simulator's two, or a machine's GPUs)."""

import pytest

from test_gray_split import SEVERAL, assert_named, define, run_check, wrong

from helpers.backend import BACKEND

QUEUED = "queued.append((k, lo, hi, rgb_k, grey_k))"
UNPACKED = "for k, lo, hi, rgb_k, grey_k in queued:"
COLLECTING = "    " + UNPACKED + "\n        with using(contexts[k]):\n            grey[lo:hi] = grey_k.get()\n"
# each device's kernel and copy back queued on a stream of its own, into a page-locked grey
ON_A_STREAM = [
    ("grey = np.zeros(", "grey = drv.pagelocked_zeros("),
    ("            rgb_k = gpuarray", "            stream = drv.Stream()\n            rgb_k = gpuarray"),
    ("(rows + 7) // 8))\n", "(rows + 7) // 8), stream=stream)\n"
                         "            drv.memcpy_dtoh_async(grey[lo:hi], grey_k.gpudata, stream)\n"),
    (QUEUED, "queued.append((k, lo, hi, rgb_k, grey_k, stream))")]

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
# the copies' outcome on a GPU depends on when they end: only the simulator holds them back
QUEUED_ONLY = {
    # blind audit AU (was "none of the images was converted: the result is all 0 ... Hint: launch
    # each device's kernel on its share and copy its results back into grey[lo:hi]", both done):
    # each device's copy back queued on its stream, and no stream waited for before returning
    "copies_back_never_waited_for": (
        [*ON_A_STREAM, (COLLECTING, "")],
        ("when your function returned, none of the 7 grey images had arrived in it yet: their "
         "copies back were queued on streams (asynchronous) and nothing waited for them",
         "Hint: before returning, wait for each device's stream in its own context: with "
         "using(contexts[k]): stream.synchronize()")),
}


@pytest.mark.skipif(not SEVERAL, reason="this mistake shows only with several devices")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_collecting_loop_s_mistake_is_named(name, capsys):
    replacements, expected = WRONG[name]
    assert_named(replacements, expected, capsys)


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU the copies may end before the return")
@pytest.mark.parametrize("name", sorted(QUEUED_ONLY))
def test_a_copy_back_left_queued_is_named(name, capsys):
    replacements, expected = QUEUED_ONLY[name]
    assert_named(replacements, expected, capsys)


def test_copies_back_on_streams_waited_for_pass(capsys):
    """The fix the verdict of copies back never waited for gives: each device's stream waited
    for in its context before returning."""
    waited = ("    for k, lo, hi, rgb_k, grey_k, stream in queued:\n"
              "        with using(contexts[k]):\n            stream.synchronize()\n")
    ok, out = run_check(define(wrong(*ON_A_STREAM, (COLLECTING, waited))), capsys)
    assert ok and out.startswith("PASS:"), out
