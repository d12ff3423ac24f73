"""The halo exchange of notebook 11 (a Python file, cuda_src/exercises/halo_exchange.py): the
solution and two unusual right functions pass, the file as shipped and the usual mistakes fail,
each with the verdict that names it. On the simulator (two devices) the copies to the host are
seen; on a GPU that one mistake is not (its test skips there)."""

import pytest

from kernel_sources import ROOT, simulator_only, variant

from helpers.backend import BACKEND
from helpers.exercises import catalog
from helpers.exercises.halo_exchange import check_halo_exchange, check_halo_exchange_function

SOLUTION = (ROOT / "cuda_src" / "solutions" / "halo_exchange.py").read_text()
TO_0 = "drv.memcpy_dtod(left + (halo + m) * item, right + halo * item, halo * item)"
TO_1 = "drv.memcpy_dtod(right, left + m * item, halo * item)"

# name: (replacements in the solution, words of the verdict's problem, words of its hint)
WRONG = {
    # blind audit TPA-halo_exchange-1: the interior taken as half the size (was 'the copy landed
    # the 1 element(s) meant for device 0's right halo ... in device 0's interior ... Hint: ...
    # drv.memcpy_dtod(left + (halo + m) * item, ...)', the copy the learner wrote)
    "interior_as_half_the_size": ([("m = halves[0].size - 2 * halo", "m = halves[0].size // 2 - "
                                    "halo")], "both copies used m = 25 interior elements, not 50",
                                  "m = halves[0].size - 2 * halo"),
    "halo_not_interior": ([(TO_0, TO_0.replace("right + halo * item", "right"))],
                          "got device 1's elements [0], expected [1]: its copy's source, right, "
                          "starts at device 1's element 0, its left halo",
                          "device 0's right halo gets device 1's first interior element, its "
                          "element 1, from element halo"),
    "wrong_end": ([(TO_1, TO_1.replace("left + m * item", "left + halo * item"))],
                  "device 1's left halo got device 0's elements [1], expected [50]: its copy's "
                  "source, left + halo * item, starts at device 0's element halo = 1, its first "
                  "interior element", "device 1's left halo gets device 0's last interior element, "
                  "its element 50, from element m"),
    "elements_not_bytes": ([(TO_0, "drv.memcpy_dtod(left + halo + m, right + halo, halo)")],
                           "device 0's interior changed", "addresses count bytes"),
    "one_element": ([(TO_0, TO_0.replace(", halo * item)", ", item)"))],
                    "only the first element of device 0's right halo", "halo * item bytes"),
    "own_device": ([(TO_0, TO_0.replace("right + halo * item", "left + halo * item"))],
                   "got device 0's own elements", "halves[1].gpudata"),
    "size_in_elements": ([(TO_1, TO_1.replace(", halo * item)", ", halo)"))],
                         "got only 1 byte of its 1 element(s)", "size counts bytes, not elements"),
    # blind audit V18 (was "device 0's right halo was not written ... Hint: device 0's right halo
    # (its elements halo + m on) gets ..."): both sizes in elements, the low bytes happened to match
    "both_sizes_in_elements": ([(TO_0, TO_0.replace(", halo * item)", ", halo)")),
                                (TO_1, TO_1.replace(", halo * item)", ", halo)"))],
                               "device 0's right halo got only 1 byte of its 1 element(s): the "
                               "copy's size was given in elements",
                               "the copy's size counts bytes, not elements: halo * item"),
    "copy_the_wrong_way": ([(TO_0, "drv.memcpy_dtod(right + halo * item, left + (halo + m) * item, "
                                   "halo * item)")],
                           "device 1's interior got device 0's halo", "copies into its first"),
    "neighbours_halo_as_source": ([(TO_1, TO_1.replace("left + m * item", "left + (m + halo) * "
                                                                           "item"))],
                                  "device 1's left halo got device 0's right halo", "elements m on"),
    # blind audit TTA-halo_exchange-1 (was 'your function raised LogicError at line 15 ... Hint: a
    # copy reached outside a half: ...', every halo rule at once): m with one halo taken off
    "interior_miscounted": ([("m = halves[0].size - 2 * halo", "m = halves[0].size - halo")],
                            "the copies' offsets are those of m = 51 interior elements, not 50 "
                            "(halves[0].size - halo = 52 - 1: one halo taken off, where a half has "
                            "two): the copy into device 0's right halo, at halo + m, reaches element "
                            "52, past half 0's last, element 51",
                            "so m = halves[0].size - 2 * halo = 50"),
    # blind audit AB (was 'PASS: every halo holds its neighbour's elements ...', the extra
    # element written back with the value it held): the copy into device 1's left halo one element
    # too long, into its interior
    "left_halo_copy_one_too_long": ([(TO_1, TO_1.replace(", halo * item)", ", (halo + 1) * item)"))],
                                    "the copy into device 1's left halo is 2 elements long, (halo "
                                    "+ 1) * item = 8 bytes, where the halo holds 1 (4 bytes): it wrote device "
                                    "1's element 1 too, its first interior element",
                                    "a halo is halo * item bytes: drv.memcpy_dtod(right, left + "
                                    "m * item, halo * item)"),
    "right_halo_copy_one_too_long": ([(TO_0, TO_0.replace(", halo * item)", ", (halo + 1) * item)"))],
                                     "the copy into device 0's right halo is 2 elements long",
                                     "a halo is halo * item bytes"),
    "outer_halo": ([(TO_1, "drv.memcpy_dtod(right + (halo + m) * item, left + m * item, "
                           "halo * item)")], "an outer halo was written", "device 1's left halo"),
    # blind audit TFA-halo_exchange-1 (was "an outer halo was written (device 0's left or device
    # 1's right) ..." with both copies' targets as the hint): the first copy into device 1's own
    # right halo
    "first_copy_into_its_own_right_halo": ([(TO_0, TO_0.replace("(left +", "(right +"))],
                                           "device 1's right halo (its element 51), an end of the "
                                           "array, got device 1's element 1, meant for device 0's "
                                           "right halo, which was never filled",
                                           "drv.memcpy_dtod(left + (halo + m) * item, right + "
                                           "halo * item, halo * item)"),
    # blind audit T15 (was "device 1's interior changed: a copy wrote outside the halo ...
    # Hint: device addresses count bytes ..."): device 1's left halo addressed past its halo
    "left_halo_past_its_start": ([(TO_1, TO_1.replace("(right,", "(right + halo * item,"))],
                                 "meant for device 1's left halo (device 0's element",
                                 "int(halves[1].gpudata) + 0 (the array's start): "
                                 "drv.memcpy_dtod(right, left + m * item, halo * item)"),
    "right_halo_before_its_start": ([(TO_0, TO_0.replace("left + (halo + m) * item",
                                                         "left + m * item"))],
                                    "before its right halo, which it left as it was: its destination was m * item",
                                    "int(halves[0].gpudata) + (halo + m) * item"),
    # blind audit TJA-halo_exchange-1 (was "an outer halo was written (device 0's left or
    # device 1's right) ...", the swap never named)
    "halves_swapped": ([("left, right = int(halves[0].gpudata), int(halves[1].gpudata)",
                         "left, right = int(halves[1].gpudata), int(halves[0].gpudata)")],
                       "left and right are the other way round",
                       "left, right = int(halves[0].gpudata), int(halves[1].gpudata)"),
    # blind audit TMA-halo_exchange-1 (was "an outer halo was written: device 0's left halo ...
    # that copy's destination was left ...", though the code says right): right on half 0 too
    "right_on_half_0": ([("int(halves[1].gpudata)", "int(halves[0].gpudata)")],
                        "left and right are both device 0's address: right points at device 0's "
                        "half (halves[0]) where device 1's (halves[1]) belongs",
                        "right = int(halves[1].gpudata)"),
    "left_on_half_1": ([("int(halves[0].gpudata), int", "int(halves[1].gpudata), int")],
                       "left and right are both device 1's address: left points at device 1's "
                       "half (halves[1]) where device 0's (halves[0]) belongs",
                       "left = int(halves[0].gpudata)"),
    # blind audit AE (was 'your function raised TypeError at line 15 ...: unsupported operand
    # type(s) for +: 'DeviceAllocation' and 'int' ... Hint: the message says what went wrong on
    # that line'): the addresses taken without int(), the halves' gpudata themselves
    "gpudata_without_int": ([("left, right = int(halves[0].gpudata), int(halves[1].gpudata)",
                              "left, right = halves[0].gpudata, halves[1].gpudata")],
                            "left + (halo + m) * item adds a number to left, which is "
                            "halves[0].gpudata itself (line 14 of",
                            "take the addresses as ints first: left, right = "
                            "int(halves[0].gpudata), int(halves[1].gpudata) (line 14)"),
    # blind audit AN (was "device 1's left halo got device 0's elements [39, 3, 4], expected [37,
    # 38, 39] ... Hint: device 0's right halo (its elements halo + m on) gets ...", the layout
    # restated): the source taken from the last interior element's index, right only for halo = 1
    "last_interior_index_as_source": ([(TO_1, TO_1.replace("left + m * item",
                                                           "left + (halo + m - 1) * item"))],
                                      "device 1's left halo got device 0's elements [39, 40, 41], "
                                      "expected [37, 38, 39]: its copy's source, left + (halo + m "
                                      "- 1) * item, starts at device 0's element halo + m - 1 = "
                                      "39, its last interior element",
                                      "device 0's last 3 interior elements, its elements 37 .. "
                                      "39, from element m: drv.memcpy_dtod(right, left + m * item,"
                                      " halo * item)"),
    # blind audit AN (was "device 0's right halo got device 1's elements [50], expected [1] ...
    # Hint: device 0's right halo (its elements halo + m on) gets ..."): the first copy's source
    # at element m, the second copy's offset, on device 1
    "first_copy_source_at_m": ([(TO_0, TO_0.replace("right + halo * item", "right + m * item"))],
                               "device 0's right halo got device 1's elements [50], expected [1]: "
                               "its copy's source, right + m * item, starts at device 1's element "
                               "m = 50, its last interior element",
                               "device 1's first interior element, its element 1, from element "
                               "halo: drv.memcpy_dtod(left + (halo + m) * item, right + halo * "
                               "item, halo * item)"),
    "one_copy_forgotten": ([(TO_1, "pass")], "device 1's left halo was not written", "halo"),
    "context_left_pushed": ([(TO_1, TO_1 + "\n    contexts[1].push()")],
                            "a context it pushed was not popped", "using(contexts[k])"),
    # the line of the learner's code that raised, its number and its text (was "Hint: read the
    # message: it names the line of your function that failed", and the message named none)
    "raises": ([(TO_1, TO_1 + "\n    raise ValueError('half done')")],
               "your function raised ValueError at line 17 of your cell (raise ValueError('half "
               "done')): half done", "the message says what went wrong on that line"),
    # blind audit X35 (was PASS: every halves were float32): the element size hard-coded as 4
    "element_size_4": ([(TO_0, TO_0.replace("item", "4")), (TO_1, TO_1.replace("item", "4"))],
                       "but these halves are float64, 8 bytes an element: the element size was "
                       "taken as 4", "an element is item = halves[0].dtype.itemsize bytes"),
    # blind audit X36 (was "your function raised LogicError ... Hint: a copy reached outside a
    # half ..."): the right halo's address, the half's end in bytes minus halo in elements
    "halo_elements_taken_from_bytes": ([(TO_0, TO_0.replace("left + (halo + m) * item",
                                                             "left + halves[0].size * item - halo"))],
                                       "device 0's right halo has its destination at byte 207 of "
                                       "half 0, halves[0].size * item - halo: halo (1) counts "
                                       "elements", "halo elements are halo * item bytes"),
    # blind audit TNA-halo_exchange-1 (was "your function raised LogicError ... Hint: a copy
    # reached outside a half ...", item among other points): item = the whole half's bytes
    "item_the_half_s_bytes": ([("item = halves[0].dtype.itemsize", "item = halves[0].nbytes")],
                              "the copies counted an element as 208 bytes, halves[0].nbytes (the "
                              "whole half's bytes)", "item = halves[0].dtype.itemsize"),
}
PAST_HALF_0 = ("its copy runs past half 0's allocation: on a GPU whether that raises or writes "
               "another allocation depends on the memory map")
SIMULATOR_ONLY = {"halo_elements_taken_from_bytes": PAST_HALF_0,
                  "right_halo_copy_one_too_long": PAST_HALF_0}
THROUGH_HOST = [(TO_0, "halves[0][halo + m:] = halves[1][halo:2 * halo].get()"),
                (TO_1, "halves[1][:halo] = halves[0][m:m + halo].get()")]
RIGHT = {
    "gpuarray_slices": [(TO_0, "halves[0][halo + m:] = halves[1][halo:2 * halo]"),
                        (TO_1, "halves[1][:halo] = halves[0][m:m + halo]")],
    "async_copies_then_synchronize": [
        (TO_0, TO_0.replace("memcpy_dtod(", "memcpy_dtod_async(")),
        (TO_1, TO_1.replace("memcpy_dtod(", "memcpy_dtod_async(")
         + "\n    for context in contexts:\n        context.push()\n"
           "        drv.Context.synchronize()\n        context.pop()")],
}


def function(replacements):
    return catalog.define_function(variant(SOLUTION, *replacements), "my_halo_exchange")


def test_the_file_as_shipped_is_not_yet(capsys):
    verdict = check_halo_exchange()
    assert not verdict.passed and "was not written" in verdict.problem, verdict
    assert catalog.as_shipped(catalog.find("halo_exchange")) == (
        ROOT / "cuda_src" / "exercises" / "halo_exchange.py").read_text()


def test_the_solution_passes(capsys):
    assert check_halo_exchange("solutions/halo_exchange.py").passed
    verdict = catalog.check(catalog.find("halo_exchange"), ROOT, hidden=5)
    assert not verdict.passed, verdict   # the course's own file is the stub


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_right_but_unusual_functions_pass(name, capsys):
    verdict = check_halo_exchange_function(function(RIGHT[name]))
    assert verdict.passed, verdict


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_verdict(name, capsys):
    replacements, problem, hint = WRONG[name]
    verdict = check_halo_exchange_function(function(replacements))
    assert not verdict.passed
    assert problem in verdict.problem and hint in verdict.hint, verdict


def test_the_line_that_raised_is_named_in_the_learner_s_file(tmp_path, capsys):
    raising = tmp_path / "halo_exchange.py"
    raising.write_text(variant(SOLUTION, (TO_1, TO_1 + "\n    raise ValueError('half done')")))
    verdict = check_halo_exchange(str(raising))   # an absolute path, as the grader's
    assert ("raised ValueError at line 17 of halo_exchange.py (raise ValueError('half done'))"
            in verdict.problem), verdict


@pytest.mark.skipif(BACKEND != "simulator", reason="PyCUDA does not tell the copies to the host")
def test_a_halo_through_host_memory_is_named(capsys):
    verdict = check_halo_exchange_function(function(THROUGH_HOST))
    assert not verdict.passed and "went through host memory" in verdict.problem, verdict
    assert "drv.memcpy_dtod" in verdict.hint, verdict


def test_a_cell_that_passes_no_function_is_told(capsys):
    verdict = check_halo_exchange_function(None)
    assert not verdict.passed and "needs your function" in verdict.problem, verdict


def test_a_function_that_pops_the_notebooks_context_is_told_so(capsys):
    from helpers.ch11.multigpu import device_contexts, using

    with using(device_contexts()[0]):  # current in the notebook when the check runs
        verdict = check_halo_exchange_function(function([(TO_1, TO_1 + "\n    drv.Context.pop()")]))
    assert "it popped a context it had not pushed" in verdict.problem, verdict
    assert "pop only what you pushed" in verdict.hint, verdict
