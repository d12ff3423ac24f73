"""The multi-GPU exercise (notebook 11), its contexts and kernels: device k's work in
``contexts[k]`` with ``kernels[k]``, with several devices (on the simulator's two, or a
machine's GPUs). A kernel called outside its own context is refused, as on a GPU, and the verdict
tells a kernel of the wrong device from a context of the wrong device."""

import pytest

from test_gray_split import SEVERAL, assert_named

PUSHED = "        with using(contexts[k]):\n            rgb_k"
LAUNCHED = "            kernels[k]("

# name: (replacements in the solution, pieces of the expected verdict)
WRONG = {
    "all_on_device_0": ([(PUSHED, PUSHED.replace("contexts[k]", "contexts[0]")),
                         (LAUNCHED, LAUNCHED.replace("[k]", "[0]"))],
                        ("device 1 did no work",)),
    "context_not_pushed": ([(PUSHED, "        if True:\n            rgb_k")],
                           ("kernels[1], device 1's kernel, was called while device 1's context "
                            "was not current", "Hint: a kernel runs in the context it was "
                            "compiled in: do device k's work inside `with using(contexts[k]):`")),
    "every_share_in_device_0_s_context": (
        [(PUSHED, PUSHED.replace("contexts[k]", "contexts[0]"))],
        ("kernels[1], device 1's kernel, was called while device 1's context was not current",
         "Hint: a kernel runs in the context it was compiled in: do device k's work inside "
         "`with using(contexts[k]):`")),
    # blind audit AMC-gray_split (was "kernels[0], device 0's kernel, was called while device 0's
    # context was not current ... Hint: ... do device k's work inside `with using(contexts[k]):`",
    # which the code does): device 1's share launched with device 0's kernel, in device 1's context
    "kernel_of_another_device": ([(LAUNCHED, LAUNCHED.replace("[k]", "[0]"))],
                                 ("kernels[0], device 0's kernel, was called again, in device 1's "
                                  "context: device 1's share was launched with device 0's kernel",
                                  "Hint: launch device k's share with its own kernel, kernels[k]")),
}


@pytest.mark.skipif(not SEVERAL, reason="these mistakes show only with several devices")
@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_context_or_kernel_of_another_device_is_named(name, capsys):
    replacements, expected = WRONG[name]
    assert_named(replacements, expected, capsys)
