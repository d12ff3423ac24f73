"""The split sum of notebook 11 (a Python file, cuda_src/exercises/split_sum.py): the solution and
two unusual right functions pass, the file as shipped and the usual mistakes fail, each with the
verdict that names it (on the simulator's two devices, or a machine's GPUs)."""

import pytest

from kernel_sources import ROOT, variant

from helpers.exercises import catalog
from helpers.exercises.split_sum import check_split_sum, check_split_sum_function

SOLUTION = (ROOT / "cuda_src" / "solutions" / "split_sum.py").read_text()
BOUNDS = "lo, hi = k * len(x) // n, (k + 1) * len(x) // n"
ADD = "total += float(partial.get())"
CALL = "started.append((k, share, sums[k](share)))"
COLLECT = "    for k, share, partial in started:\n        with using(contexts[k]):\n            " + ADD + "\n"

# name: (replacements in the solution, words of the verdict's problem, words of its hint)
WRONG = {
    "device_0_alone": ([(ADD, "total = float(partial.get()) if k == 0 else total")],
                       "device 0's share alone", "every device's partial sum"),
    # blind audit TQB-split_sum-1: return float(total) indented into the collecting loop (was 'the
    # sum is device 0's share alone ... Hint: add every device's partial sum to total', the
    # early return not named)
    "return_inside_the_collecting_loop": ([(ADD + "\n    return float(total)", ADD + "\n        return float(total)")],
                                          "the function returned after the collecting loop's first "
                                          "pass: device 0's partial sum was read, device 1's was "
                                          "started but never read",
                                          "dedent return float(total) out of the collecting loop"),
    # blind audit TB-split_sum-1: hi without the parentheses around k + 1 (was '500 of the 1001
    # elements were in no share ... Hint: device k's share is x[lo:hi], ...', the formula restated)
    "hi_without_parentheses": ([(BOUNDS, "lo, hi = k * len(x) // n, k + 1 * len(x) // n")],
                               "device 1's share was x[500:501], 1 element, where it is "
                               "x[500:1001]: hi = k + 1 * len(x) // n is k + (1 * len(x) // n)",
                               "put k + 1 in parentheses: hi = (k + 1) * len(x) // n"),
    # blind audit AIC-split_sum-1 (was 'PASS: the sum is exact for every length ... each of the 2
    # devices summed its share'): lo from a share size rounded down, hi from the notebook's
    # formula; the same bounds on 2 devices, shares that overlap from 3 on
    "lo_from_a_rounded_share_size": ([(BOUNDS, "lo, hi = k * (len(x) // n), (k + 1) * len(x) // n")],
                                     "right on 2 devices, but on 3 x[666] was summed twice, by devices 1 and 2",
                                     "lo = k * len(x) // n, the same formula as hi"),
    # blind audit TFB-split_sum-1: hi taken as the share's last element, - 1 (was '2 of the 1001
    # elements were in no share ... Hint: device k's share is x[lo:hi], ...', the - 1 not named)
    "hi_minus_one": ([(BOUNDS, BOUNDS + " - 1")],
                     "each share stopped one element short: device 0's share was x[0:499], where "
                     "it is x[0:500], and device 1's x[500:1000], where it is x[500:1001], as hi = "
                     "(k + 1) * len(x) // n - 1 gives, hi taken as the share's last element: but a "
                     "slice's end is exclusive, x[lo:hi] leaves out x[hi], so x[499] and x[1000] "
                     "were in no share",
                     "drop the - 1: hi = (k + 1) * len(x) // n, where the next share starts"),
    # blind audit AK (was '2 of the 1001 elements were in no share ... Hint: device k's share is
    # x[lo:hi], ...', which and why not named): lo one past the previous share's hi, + 1
    "lo_plus_one": ([(BOUNDS, "lo, hi = k * len(x) // n + 1, (k + 1) * len(x) // n")],
                    "each share started one element late: device 0's share was x[1:500], where "
                    "it is x[0:500], and device 1's x[501:1001], where it is x[500:1001], as lo = "
                    "k * len(x) // n + 1 gives",
                    "drop the + 1: lo = k * len(x) // n, the previous share's hi"),
    # blind audit TJB-split_sum-1: the shares sliced x[lo:hi + 1] (was 'the shares hold 1002
    # elements for 1001: some were summed twice ... Hint: device k's share is x[lo:hi], ...')
    "sliced_to_hi_plus_one": ([("share = gpuarray.to_gpu(x[lo:hi])",
                                "share = gpuarray.to_gpu(x[lo:hi + 1])")],
                              "each share but the last reached one element into the next: device "
                              "0's share was x[0:501], where it is x[0:500]",
                              "a slice's end is not included: x[lo:hi] stops at x[hi - 1]"),
    # blind audit AG (was 'the shares hold 2002 elements for 1001: some were summed twice ...
    # Hint: device k's share is x[lo:hi], ...'): the slice left out of the upload, to_gpu(x), so
    # every device summed all of x
    "whole_x_uploaded": ([("share = gpuarray.to_gpu(x[lo:hi])", "share = gpuarray.to_gpu(x)")],
                         "every device was given all 1001 elements of x, not its share: line 21 "
                         "of your cell (share = gpuarray.to_gpu(x)) uploads the whole array",
                         "upload the device's share alone: gpuarray.to_gpu(x[lo:hi])"),
    "tail_left_out": ([(BOUNDS, "lo, hi = k * (len(x) // n), (k + 1) * (len(x) // n)")],
                      "were in no share", "none left out"),
    # blind audit TDB-split_sum-1: each share len(x) // n long from its start (was '1 of the 1001
    # elements were in no share' with the right bounds as hint); on two devices its shares are
    # tail_left_out's, and the verdict names both
    "hi_from_lo_plus_len_over_n": ([(BOUNDS, "lo, hi = k * len(x) // n, k * len(x) // n + len(x) // n")],
                                   "every share held len(x) // n = 1001 // 2 = 500 elements, "
                                   "rounded down: hi = lo + len(x) // n",
                                   "hi = (k + 1) * len(x) // n"),
    # blind audit TPB-split_sum-1: one share size for all, round(len(x) / n) (was 'every share held
    # len(x) // n = 1001 // 2 = 500 elements, rounded down: hi = lo + len(x) // n ...', a line
    # the learner did not write)
    "share_size_rounded": ([(BOUNDS, "size = round(len(x) / n)\n        lo, hi = k * size, (k + 1) * size")],
                           "every share held round(len(x) / n) = round(1001 / 2) = round(500.5) = "
                           "500 elements, one size for all devices",
                           "a share size of len(x) / n rounded either way leaves elements out"),
    # blind audit W17 (was 'your function raised TypeError: slice indices must be integers or
    # None ... Hint: read the message: it names the line of your function that failed')
    "true_division_bounds": ([(BOUNDS, BOUNDS.replace("//", "/"))],
                             "x was sliced with float bounds, x[0.0:",
                             "use // (integer division): lo = k * len(x) // n"),
    # hi one too large: the same shares as sliced_to_hi_plus_one, told the same
    "shares_overlap": ([(BOUNDS, BOUNDS + " + 1")], "x[500], the next share's first, was summed "
                       "twice", "x[lo:hi] with hi = (k + 1) * len(x) // n, no + 1"),
    "outside_the_context": ([("            share = gpuarray.to_gpu(x[lo:hi])\n            " + CALL,
                              "            share = gpuarray.to_gpu(x[lo:hi])\n        " + CALL)],
                            "context was not current", "with using(contexts[k])"),
    # blind audit AB (was 'your function raised LaunchError at line 22 ... an illegal memory
    # access ... Hint: a copy or a sum failed: call sums[k] inside `with using(contexts[k]):`, on
    # a gpuarray made there'): the share uploaded before the with block, on device 0
    "share_uploaded_outside_the_context": ([("        with using(contexts[k]):\n            share = "
                                             "gpuarray.to_gpu(x[lo:hi])\n", "        share = "
                                             "gpuarray.to_gpu(x[lo:hi])\n        with using("
                                             "contexts[k]):\n")],
                                           "share = gpuarray.to_gpu(x[lo:hi]) (line 20 of your "
                                           "cell) runs before `with using(contexts[k]):`, outside "
                                           "it, so device 1's share was allocated on device 0, "
                                           "the context current then",
                                           "move the to_gpu inside the with block"),
    # blind audit TMB-split_sum-1: sums[0] for sums[k] (was 'sums[0] was called while device 0's
    # context was not current ... Hint: call sums[k] inside `with using(contexts[k]):`', though
    # the call was inside it)
    "every_share_to_sums_0": ([("sums[k](share)", "sums[0](share)")],
                              "every device's share was summed by sums[0], device 0's function: "
                              "device 1's share, x[500:1001], was given to sums[0]",
                              "each device's share goes to its own device's function: "
                              "sums[k](share)"),
    # blind audit TAAB-split_sum-1: sums[k] stored in started, not called (was 'your function
    # raised AttributeError at line 25 of split_sum.py (total += float(partial.get())): 'function'
    # object has no attribute 'get' ... Hint: the message says what went wrong on that line')
    "sums_k_stored_not_called": ([("sums[k](share)))", "sums[k]))")],
                                 "line 22 of your cell (started.append((k, share, sums[k]))) "
                                 "stores sums[k], device 0's sum function, without calling it",
                                 "call it on the share: started.append((k, share, "
                                 "sums[k](share)))"),
    "host_array": ([("sums[k](share)", "sums[k](x[lo:hi])")], "not a gpuarray", "to_gpu"),
    "empty_share_summed": ([("        if lo == hi:\n            continue\n", "")],
                           "was given an empty share", "skip a device"),
    "stops_at_an_empty_share": ([("            continue\n", "            break\n")],
                                "stopped at device 0's empty share: device 1's share (1 element)",
                                "continue (not break)"),
    # blind audit AJ (was 'the loop stopped at device 0's empty share ... Hint: ... if lo == hi:
    # continue (not break)', a continue in the code): the skip test about the whole x, if len(x)
    # < n, which skips every device, device 1 too, whose share is not empty
    "skip_test_on_the_whole_x": ([("        if lo == hi:\n", "        if len(x) < n:\n")],
                                 "skip test, line 18 of your cell (if len(x) < n:), skipped device "
                                 "1 too, whose share (1 element) is not empty",
                                 "skip only a device whose own share is empty: if lo == hi: "
                                 "continue"),
    # blind audit TEB-split_sum-1: the first loop stops one short (was 'the sum is device 0's
    # share alone ... Hint: add every device's partial sum to total', the adding, which was right)
    "last_device_left_out": ([("for k in range(n):", "for k in range(n - 1):")],
                             "was never summed: sums[", "for k in range(n), n = len(contexts)"),
    # blind audit TGB-split_sum-1: the collecting loop indented into the launching loop (was 'the
    # sum is 165, expected 764 ... Hint: add each device's partial sum once', the loop not named)
    "collected_inside_the_launch_loop": ([(COLLECT, "".join("    " + line for line in
                                                          COLLECT.splitlines(keepends=True)))],
                                         "device 0's partial sum was added 2 times, device 1's "
                                         "once: the loop that collects them, for k, share, "
                                         "partial in started:, runs inside the loop that starts "
                                         "them", "collect after the launch loop"),
    "one_device_does_all": ([(BOUNDS, "lo, hi = (0, len(x)) if k == 0 else (0, 0)")],
                            "device 1 summed nothing", "x[lo:hi]"),
    "context_left_pushed": ([("    return float(total)", "    contexts[0].push()\n"
                                                          "    return float(total)")],
                            "a context it pushed was not popped", "push and pop in pairs"),
    "devices_take_turns": ([(CALL, "total += float(sums[k](share).get())"),
                            ("    for k, share, partial in started:\n        with using(contexts"
                             "[k]):\n            " + ADD + "\n", "")],
                           "device 0's partial sum was read before device 1's sum was started",
                           "in a second loop"),
    # blind audit AH (was 'PASS: the sum is exact for every length ...'): the share left out of
    # started, so rebinding share frees device 0's while its sum runs, and the free waits for it
    "share_not_kept_in_started": ([(CALL, "started.append((k, sums[k](share)))"),
                                   ("for k, share, partial in started:", "for k, partial in started:")],
                                  "device 0's share (the sum's input) was freed before device 1's "
                                  "sum was launched, once nothing held it",
                                  "started.append((k, sums[k](share), share)), and unpack it"),
    # blind audit AO (was '... device 0's gpuarray.to_gpu(x[lo:hi]) (the sum's input) was freed
    # ... (binding gpuarray.to_gpu(x[lo:hi]) to the next device's array lets go of the one it
    # held) ... Hint: ...: started.append((k, None, sums[k](gpuarray.to_gpu(x[lo:hi])),
    # gpuarray.to_gpu(x[lo:hi]))), ...', a second upload kept): the share uploaded inside the
    # sum's call, None kept in its place
    "share_uploaded_inside_the_call": ([("share = gpuarray.to_gpu(x[lo:hi])\n            " + CALL,
                                         "started.append((k, None, sums[k](gpuarray.to_gpu("
                                         "x[lo:hi]))))")],
                                       "device 0's share, gpuarray.to_gpu(x[lo:hi]) made inside "
                                       "the sum's call, was freed before device 1's sum was "
                                       "launched: no name held it",
                                       "share = gpuarray.to_gpu(x[lo:hi]), then "
                                       "started.append((k, share, sums[k](share)))"),
    "read_outside_its_context": ([("        with using(contexts[k]):\n            " + ADD,
                                   "        " + ADD)],
                                 "partial sum was read while", "with using(contexts[k])"),
    # blind audit AE (was 'device 0's partial sum was read while device 1's context was current
    # ... Hint: ... inside `with using(contexts[k]):`', the line it had): started holds no k, so
    # the collecting loop's contexts[k] is the last device's, the k the launching loop left
    "k_left_over_from_the_launch_loop": ([(CALL, "started.append((share, sums[k](share)))"),
                                          ("for k, share, partial in started:",
                                           "for share, partial in started:")],
                                         "(for share, partial in started:), does not set k: "
                                         "contexts[k] in it is the k the launching loop left, "
                                         "device 1",
                                         "started.append((k, share, sums[k](share))), and unpack "
                                         "it: for k, share, partial in started:"),
    "total_assigned_not_added": ([(ADD, ADD.replace("+=", "="))],
                                 "the last device's share alone", "total +="),
    # blind audit AC (was 'the sum is the last device's share alone: each partial sum replaced
    # the one before (total = ...) ... Hint: ... total += ...', which the learner had): the list
    # of started sums reassigned in the launching loop, not appended to
    "started_reassigned_not_appended": ([(CALL, "started = [(k, share, sums[k](share))]")],
                                        "started holds only device 1's partial sum: started = "
                                        "[(k, share, sums[k](share))], at line",
                                        "started.append((k, share, sums[k](share)))"),
    # blind audit Q33 (was 'your function raised LaunchError: ... Hint: a copy or a sum failed:
    # call sums[k] inside `with using(contexts[k]):` ...', though every sum was called there)
    "partial_sums_added_as_gpuarrays": ([(ADD, "total += partial")],
                                        "the partial sums were added as gpuarrays, none read back "
                                        "with .get(): your function raised LaunchError in "
                                        "GPUArray.__iadd__", "total += float(partial.get())"),
    # blind audit TIB-split_sum-1: the collecting loop unpacks (share, k, partial), the tuples
    # appended as (k, share, partial) (was 'your function raised TypeError at line 24 of
    # split_sum.py (with using(contexts[k]):): ... Hint: the message says what went wrong on
    # that line', the unpacking not named)
    "unpacked_out_of_order": ([("for k, share, partial in started:", "for share, k, partial in started:")],
                              "the loop for share, k, partial in started: unpacks the tuples in "
                              "another order than they were appended, started.append((k, share, "
                              "sums[k](share))): share got what was appended as k, and k what was "
                              "appended as share",
                              "unpack in the order the tuples were appended: for k, share, partial "
                              "in started:"),
    # blind audit AD (was 'your function raised IndexError at line 25 of split_sum_1.py (total +=
    # float(started[k][2].get())): list index out of range ... Hint: the message says what went
    # wrong on that line'): the collecting loop indexes started by device number, though a device
    # with an empty share has no entry there
    "started_indexed_by_device": ([(COLLECT, "    for k in range(n):\n        with using(contexts[k]):\n"
                                             "            total += float(started[k][2].get())\n")],
                                  "started holds an entry only for each device that had a share: "
                                  "device 0's share was empty (sums[0] never ran), so started has "
                                  "1 entry, and started[k] with k = 1 raised IndexError at line",
                                  "loop over what was started: for k, share, partial in started:"),
    # blind audit TNB-split_sum-1: n = len(x) where n = len(contexts) belongs (was 'your function
    # raised IndexError at line 20 of split_sum.py (with using(contexts[k]):): list index out of
    # range ... Hint: the message says what went wrong on that line', the n not named)
    "n_from_len_x": ([("n = len(contexts)", "n = len(x)")],
                     "n = len(x) = 1001, the number of elements, where n counts the devices, 2: "
                     "the loop went on past the last device, contexts[1], and contexts[2] raised "
                     "IndexError at line 20 of",
                     "n is the number of devices: n = len(contexts)"),
    # blind audit TXB-split_sum-1: the devices counted from 1 (was 'your function raised
    # IndexError at line 20 of split_sum.py (with using(contexts[k]):): list index out of range
    # ... Hint: the message says what went wrong on that line', the range not named); the same
    # on one device (contexts[1] raises there)
    "devices_counted_from_1": ([("for k in range(n):", "for k in range(1, n + 1):")],
                               "the loop for k in range(1, n + 1) counts the devices from 1",
                               "devices are numbered from 0 to n - 1, as list indices are: for k "
                               "in range(n)"),
    # blind audit TYB-split_sum-1: the sum averaged over the devices, float(total) / n (was 'the
    # sum is 382, expected 764 ... Hint: add each device's partial sum once', the / n not named);
    # on one device / n divides by 1 and the sum is right (a split mistake)
    "divided_by_the_devices": ([("    return float(total)", "    return float(total) / n")],
                               "the sum is 382, expected 764: half of it, exactly 764 / 2, the "
                               "partial sums' total divided by n = 2, the number of devices, "
                               "as line 26 of your cell (return float(total) / n) does",
                               "a sum is not averaged: return the total of the partial sums "
                               "as it is, return float(total), with no division"),
    "returns_the_list": ([("    return float(total)", "    return started")],
                         "returned list, not a number", "return the sum"),
    # an error of the learner's own code: the line that raised, its number and its text
    "raises": ([("    return float(total)", "    return float(total) / len(started[3])")],
               "your function raised IndexError at line 26 of your cell (return float(total) / "
               "len(started[3])): list index out of range",
               "the message says what went wrong on that line"),
}
RIGHT = {
    "every_nth_element": [(BOUNDS, "lo, hi = k, len(x)"), ("x[lo:hi]", "x[lo:hi:n].copy()")],
    "array_split_and_push_pop": [
        (BOUNDS, "lo, hi = [(p[0], p[-1] + 1) if len(p) else (0, 0) for p in "
                 "np.array_split(np.arange(len(x)), n)][k]"),
        ("        with using(contexts[k]):\n            " + ADD,
         "        contexts[k].push()\n        " + ADD + "\n        contexts[k].pop()")],
}


def function(replacements):
    return catalog.define_function(variant(SOLUTION, *replacements), "my_split_sum")


def test_the_file_as_shipped_is_not_yet(capsys):
    verdict = check_split_sum()
    assert not verdict.passed and "were in no share" in verdict.problem, verdict
    assert catalog.as_shipped(catalog.find("split_sum")) == (
        ROOT / "cuda_src" / "exercises" / "split_sum.py").read_text()


def test_the_solution_passes_with_the_grader_s_cases(capsys):
    verdict = check_split_sum("solutions/split_sum.py", hidden=11)
    assert verdict.passed and "2 cases of the grader's own" in verdict.problem, verdict


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_right_but_unusual_functions_pass(name, capsys):
    verdict = check_split_sum_function(function(RIGHT[name]))
    assert verdict.passed, verdict


SPLIT_MISTAKES = {"device_0_alone", "tail_left_out", "shares_overlap", "outside_the_context",
                  "empty_share_summed", "one_device_does_all", "stops_at_an_empty_share",
                  "skip_test_on_the_whole_x",
                  "devices_take_turns", "read_outside_its_context", "total_assigned_not_added",
                  "partial_sums_added_as_gpuarrays", "hi_without_parentheses",
                  "hi_from_lo_plus_len_over_n", "hi_minus_one", "lo_plus_one", "share_size_rounded",
                  "collected_inside_the_launch_loop", "last_device_left_out",
                  "sliced_to_hi_plus_one", "every_share_to_sums_0", "n_from_len_x",
                  "return_inside_the_collecting_loop", "divided_by_the_devices",
                  "share_uploaded_inside_the_call",
                  "share_uploaded_outside_the_context", "started_reassigned_not_appended",
                  "started_indexed_by_device", "k_left_over_from_the_launch_loop",
                  "whole_x_uploaded", "share_not_kept_in_started"}
"""Mistakes in how the work is split between devices: with one device there is nothing to split
(the H200 run passed them all, and its verdict says to check on the simulator's two devices)."""


THREE_DEVICE_MISTAKES = {"lo_from_a_rounded_share_size"}
"""Mistakes in the split that only 3 devices or more show: the simulator presents them, a GPU
machine has the devices it has."""


@pytest.mark.parametrize("name", sorted(WRONG))
def test_each_mistake_gets_its_verdict(name, capsys):
    from helpers.backend import BACKEND, drv

    if name in SPLIT_MISTAKES and BACKEND != "simulator" and drv.Device.count() < 2:
        pytest.skip("one device: the split is checked on the simulator's two devices")
    if name in THREE_DEVICE_MISTAKES and BACKEND != "simulator" and drv.Device.count() < 3:
        pytest.skip("fewer than 3 devices: these shares are checked on the simulator's three")
    replacements, problem, hint = WRONG[name]
    verdict = check_split_sum_function(function(replacements))
    assert not verdict.passed
    assert problem in verdict.problem and hint in verdict.hint, verdict


def test_a_function_that_pops_the_notebooks_context_is_told_so(capsys):
    from helpers.ch11.multigpu import device_contexts, using

    with using(device_contexts()[0]):  # current in the notebook when the check runs
        verdict = check_split_sum_function(function([(
            "    return float(total)", "    contexts[0].pop()\n    return float(total)")]))
    assert "it popped a context it had not pushed" in verdict.problem, verdict
    assert "pop only what you pushed" in verdict.hint, verdict


# red-team audit AVB-02: the file, as it was run, replaced the checker's detector in the
# checker's own process (a PASS for a function that returns 0.0)
CHECKER_REWRITTEN = """import sys
m = sys.modules.get("helpers.exercises.split_sum")
if m is not None:
    m._mistakes = lambda fn, contexts, n: iter(())
def my_split_sum(x, contexts, sums):
    return 0.0
"""


def test_a_file_that_rewrites_the_checker_is_refused_unrun(monkeypatch, tmp_path, capsys):
    from helpers.exercises import split_sum

    monkeypatch.setattr(split_sum, "_mistakes", split_sum._mistakes)   # put back, whatever ran
    detector = split_sum._mistakes
    file = tmp_path / "split_sum.py"
    file.write_text(CHECKER_REWRITTEN)
    verdict = check_split_sum(str(file))
    assert not verdict.passed, verdict
    assert verdict.problem.startswith("line 4 of split_sum.py names _mistakes"), verdict
    assert split_sum._mistakes is detector
