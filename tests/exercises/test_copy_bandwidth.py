"""The event-timing exercise (notebook 05): the reference solution and right functions written
another way pass, the notebook's cell as shipped fails, and each usual mistake gets its own
verdict. The variants are Python source, defined the way a notebook cell defines the function."""

import textwrap

import pytest

from kernel_sources import simulator_only
from verdict_words import assert_says

from helpers.exercises import catalog, copy_bandwidth
from helpers.exercises.catalog import define_function
from helpers.exercises.copy_bandwidth import check_copy_bandwidth
from helpers.exercises.solutions.copy_bandwidth import my_copy_gbs as solution

pytestmark = pytest.mark.gpu_timing  # the checker times copies (tests/conftest.py)

RIGHT_BODY = """
def my_copy_gbs(h, d, stream):
    start, end = drv.Event(), drv.Event()
    start.record(stream)
    drv.memcpy_htod_async(d, h, stream)
    end.record(stream)
    end.synchronize()
    ms = start.time_till(end)
    return {gbs}
"""
RIGHT_GBS = "h.nbytes / (ms * 1e-3) / 1e9"


def right_but(old, new):
    return RIGHT_BODY.format(gbs=RIGHT_GBS).replace(old, new)


# name: (source, {field: words that the verdict's field must contain})
WRONG = {
    "elements_for_bytes": (right_but("h.nbytes", "h.size"),
                           {"problem": "4 times too small", "hint": "h.nbytes"}),
    "milliseconds_as_seconds": (right_but(RIGHT_GBS, "h.nbytes / ms / 1e9"),
                                {"problem": "taken for seconds", "hint": "ms * 1e-3"}),
    "bytes_per_millisecond": (right_but(RIGHT_GBS, "h.nbytes / ms"),
                              {"problem": "a million times too large", "hint": "/ 1e9"}),
    # blind audit THC-copy_bandwidth-1 (was "1.175e+19 GB/s, where the checker's events measured
    # 11.31 GB/s for the same copy ... Hint: record start and end in stream, around the copy
    # alone; return ...", the events right): the bytes a second multiplied by 1e9, not divided
    "multiplied_by_1e9": (right_but("/ 1e9", "* 1e9"),
                          {"problem": "1e18 times too large: the bytes a second were multiplied "
                                      "by 1e9 (h.nbytes / (ms * 1e-3) * 1e9), not divided",
                           "hint": "divide the bytes a second by 1e9: h.nbytes / (ms * 1e-3)"}),
    # blind audit TZC-copy_bandwidth-1 (was "1.082e+10 GB/s, where the checker's events measured
    # 10.08 GB/s for the same copy ... Hint: record start and end in stream, around the copy
    # alone; return ...", the events right): bytes a second, the / 1e9 left out
    "bytes_per_second": (right_but(" / 1e9", ""),
                         {"problem": ("GB/s is 1e9 times too large: that is bytes a second "
                                      "(h.nbytes / (ms * 1e-3)), not GB/s", "the / 1e9 is missing"),
                          "hint": "divide the bytes a second by 1e9: h.nbytes / (ms * 1e-3) / 1e9"}),
    "megabytes": (right_but("/ 1e9", "/ 1e6"), {"problem": "MB/s", "hint": "1e9 bytes"}),
    # blind audit TVC-copy_bandwidth-1 (was "1.168 GB/s is 4 times too small: h.size counts
    # elements ... Hint: the bytes copied are h.nbytes", h.nbytes used): / 10e9, which is 1e10
    "ten_e9_for_1e9": (right_but("/ 1e9", "/ 10e9"),
                       {"problem": ("10 times too small", "line 9 of your cell (return h.nbytes "
                                    "/ (ms * 1e-3) / 10e9)", "10e9 is 1e10"),
                        "hint": "divide by 1e9"}),
    # blind audit TYC-copy_bandwidth-1 (was "... GB/s is 10 times too small ... Hint: 1 GB is 1e9
    # bytes: divide by 1e9: ...", the / 1e9 the function has): ms * 10e-3, which is 1e-2
    "ten_e_minus_3_for_1e_minus_3": (right_but("(ms * 1e-3)", "(ms * 10e-3)"),
                                     {"problem": ("10 times too small: line 9 of your cell "
                                                  "(return h.nbytes / (ms * 10e-3) / 1e9) "
                                                  "multiplies the ms by 10e-3", "10e-3 is 1e-2",
                                                  "10 times the seconds"),
                                      "hint": ("multiply the ms by 1e-3 to get the seconds",
                                               "h.nbytes / (ms * 1e-3) / 1e9")}),
    # blind audit TTC-copy_bandwidth-1 (was "1.037e+04 GB/s is 1000 times too large: that is
    # MB/s (1e6 bytes a second), not GB/s ...", the / 1e9 the function has): ms * 1e-6, as if
    # time_till gave microseconds
    "ms_taken_for_microseconds": (right_but(RIGHT_GBS, "h.nbytes / (ms * 1e-6) / 1e9"),
                                  {"problem": ("1000 times too large: the ms were multiplied by "
                                               "1e-6 (ms * 1e-6)", "gives milliseconds"),
                                   "hint": "multiply the ms by 1e-3, not 1e-6"}),
    # blind audit TIC-copy_bandwidth-1 (was "1268 GB/s is 1000 times too large: that is MB/s
    # (1e6 bytes a second), not GB/s ... Hint: 1 GB is 1e9 bytes: h.nbytes / (ms * 1e-3) / 1e9",
    # the return the function has): the ms divided by 1000 where they were read, and the return
    # converts them to seconds again
    "ms_converted_to_seconds_twice": (
        right_but("ms = start.time_till(end)", "ms = start.time_till(end) / 1000"),
        {"problem": ("1000 times too large: the time was converted to seconds twice: line 8 of "
                     "your cell (ms = start.time_till(end) / 1000) already made the ms seconds",
                     "and line 9 (return h.nbytes / (ms * 1e-3) / 1e9) multiplies ms by 1e-3 "
                     "again"),
         "hint": "ms = start.time_till(end) (time_till gives milliseconds)"}),
    "seconds_times_1e_minus_3_twice": (
        right_but("ms = start.time_till(end)", "ms = start.time_till(end) * 1e-3"),
        {"problem": "line 8 of your cell (ms = start.time_till(end) * 1e-3) already made the ms "
                    "seconds", "hint": "ms = start.time_till(end) (time_till gives milliseconds)"}),
    # blind audit TNC-copy_bandwidth-1 (was "0.009667 GB/s is 1000 times too small: the
    # milliseconds were taken for seconds ... Hint: GB/s = h.nbytes / (ms * 1e-3) / 1e9", the
    # return the function has): the ms multiplied by 1000 where they were read
    "ms_multiplied_by_1000": (
        right_but("ms = start.time_till(end)", "ms = start.time_till(end) * 1000"),
        {"problem": ("1000 times too small: line 8 of your cell (ms = start.time_till(end) * "
                     "1000) multiplies the ms by 1000"),
         "hint": "ms = start.time_till(end) (time_till gives milliseconds)"}),
    # within the bounds a machine's load needs: named from the learner's own events
    "gigabits": (right_but(RIGHT_GBS, "h.nbytes * 8 / (ms * 1e-3) / 1e9"),
                 {"problem": "gigabits", "hint": "leave out the * 8"}),
    "eight_bytes_an_element": (right_but("h.nbytes", "h.size * 8"), {
        "problem": "twice too large: a float32 is 4 bytes", "hint": "h.nbytes"}),
    # blind audit TLC-copy_bandwidth-1 (was "16.66 GB/s is twice too large: a float32 is 4 bytes,
    # not 8 ... Hint: the bytes copied are h.nbytes", the learner's bytes h.nbytes): a read and a
    # write counted, 2 * h.nbytes
    "read_and_write_counted": (right_but("return h.nbytes", "return 2 * h.nbytes"),
                               {"problem": ("twice too large: line 9 of your cell (return 2 * "
                                            "h.nbytes / (ms * 1e-3) / 1e9) counts the bytes "
                                            "twice (2 * h.nbytes)"),
                                "hint": "a copy moves h.nbytes bytes once"}),
    # blind audit AB (was 'PASS: every copy tried (2 sizes) arrived whole, and its GB/s agrees
    # with the host's clock and the checker's events'): the bytes multiplied by 4 again, though
    # h.nbytes already counts bytes
    "nbytes_times_4": (right_but(RIGHT_GBS, "h.nbytes * 4 / (ms * 1e-3) / 1e9"),
                       {"problem": ("4 times too large", "line 9 of your cell (return h.nbytes * "
                                    "4 / (ms * 1e-3) / 1e9) multiplies the bytes by 4",
                                    "h.nbytes already counts bytes"),
                        "hint": "the bytes copied are h.nbytes"}),
    "gibibytes": (right_but("/ 1e9", "/ 2**30"), {"problem": "GiB/s", "hint": "1e9 bytes"}),
    "events_the_other_way_round": (right_but("start.time_till(end)", "end.time_till(start)"),
                                   {"problem": "not positive", "hint": "start.time_till(end)"}),
    "no_copy": (RIGHT_BODY.format(gbs="10.0").replace(
                    "    drv.memcpy_htod_async(d, h, stream)\n", ""),
                {"problem": "the copy was not made", "hint": "memcpy_htod_async"}),
    "the_host_clock_and_no_wait": ("""
import time

def my_copy_gbs(h, d, stream):
    t0 = time.perf_counter()
    drv.memcpy_htod_async(d, h, stream)
    return h.nbytes / (time.perf_counter() - t0) / 1e9
""", {"problem": ("the time came from the host's clock (line 5 of your cell: t0 = "
                 "time.perf_counter()), not from events", "no time_till or time_since"),
      "hint": ("start.record(stream)", "end.synchronize()", "start.time_till(end)")}),
    # blind audit TAAC-copy_bandwidth-1 (was "your function returned while its copy was still on
    # its way: the time it measured ended before the copy did ... Hint: record start and end in
    # stream, around the copy, and end.synchronize() ...", the clock it used not named): the
    # events made but never recorded, the copy timed with time.perf_counter() (whether the copy
    # is still on its way when the function returns or, by luck on a GPU, done, the GB/s is the
    # queuing's: named from the code on both)
    "host_clock_with_events_unused": (right_but("    start.record(stream)\n",
                                                "    import time\n    t0 = time.perf_counter()\n")
                                      .replace("    end.record(stream)\n    end.synchronize()\n"
                                               "    ms = start.time_till(end)\n",
                                               "    ms = (time.perf_counter() - t0) * 1e3\n"),
                                      {"problem": ("the time came from the host's clock (line 5 "
                                                   "of your cell: t0 = time.perf_counter()), not "
                                                   "from events", "the events start and end "
                                                   "were made but never recorded"),
                                       "hint": ("start.record(stream)", "end.synchronize()",
                                                "start.time_till(end)")}),
    "copied_the_other_way": (right_but("drv.memcpy_htod_async(d, h, stream)",
                                       "drv.memcpy_dtoh_async(h, d, stream)"),
                             {"problem": "h changed: the copy ran from d into h",
                              "hint": "memcpy_htod_async(d, h, stream)"}),
    # blind audit AC (was 'your function raised TypeError at line 5 of your cell (...):
    # memoryview: a bytes-like object is required, not 'DeviceAllocation' ... Hint: the message
    # says what went wrong on that line'): the copy's arguments source first, as NumPy's habit
    "copy_arguments_source_first": (right_but("drv.memcpy_htod_async(d, h, stream)",
                                              "drv.memcpy_htod_async(h, d, stream)"),
                                    {"problem": ("line 5 of your cell (drv.memcpy_htod_async(h, d, "
                                                 "stream)) gives memcpy_htod_async the host array "
                                                 "h first and the device buffer d second",
                                                 "the destination first"),
                                     "hint": "drv.memcpy_htod_async(d, h, stream)"}),
    "events_in_another_stream": (right_but("    start, end = drv.Event(), drv.Event()\n",
                                           "    start, end = drv.Event(), drv.Event()\n"
                                           "    other = drv.Stream()\n").replace(
                                               "record(stream)", "record(other)"),
                                 {"problem": "still on its way",
                                  "hint": "record start and end in stream"}),
    "start_recorded_after_the_copy": (right_but("    start.record(stream)\n    drv.memcpy_htod_async(d, h, stream)\n",
                                                "    drv.memcpy_htod_async(d, h, stream)\n    start.record(stream)\n"),
                                      {"hint": "record start, then the copy, then end"}),
    "the_time_read_before_the_copy_ended": (right_but("    end.synchronize()\n", ""),
                                            {"problem": "cuEventElapsedTime failed: device not ready",
                                             "hint": "message"}),
    # blind audit AD (was 'your function raised RuntimeError at line 6 ... (ms = start.time_till(
    # end)): cuEventElapsedTime failed: device not ready ... Hint: the message says what went
    # wrong on that line'): end.synchronize() one line too late, after the time was read
    "end_waited_for_after_the_read": (
        right_but("    end.synchronize()\n    ms = start.time_till(end)\n",
                  "    ms = start.time_till(end)\n    end.synchronize()\n"),
        {"problem": "end.synchronize() (line 8) comes after ms = start.time_till(end) (line 7)",
         "hint": "wait first, then read the time: end.synchronize(), then ms = "
                 "start.time_till(end)"}),
    # blind audit AF (was 'PASS: every copy tried (2 sizes) arrived whole, ...'): end.query()
    # where end.synchronize() belongs, its answer ignored: it asks, it does not wait
    "end_queried_not_waited_for": (right_but("    end.synchronize()\n", "    end.query()\n"),
                                   {"problem": ("end.query() (line 7) only asks whether the GPU "
                                                "has reached end", "it does not wait"),
                                    "hint": "end.synchronize() before start.time_till(end)"}),
    # blind audit TGC-copy_bandwidth-1 (was "your function raised RuntimeError at line 16 of your
    # cell (ms = start.time_till(end)): cuEventElapsedTime failed: device not ready ... Hint: the
    # message says what went wrong on that line"): the host waited for start, not for end
    "start_waited_for_not_end": (right_but("    end.synchronize()\n", "    start.synchronize()\n"),
                                 {"problem": "the host waited for the start event "
                                             "(start.synchronize()), not for end",
                                  "hint": "end.synchronize()"}),
    # blind audit TOC-copy_bandwidth-1 (was "your function raised RuntimeError at line 16 of your
    # cell (ms = start.time_till(end)): cuEventElapsedTime failed: device not ready (... call
    # event.synchronize() first) ... Hint: the message says what went wrong on that line", a
    # synchronize it had): end waited for before it was recorded
    "end_waited_for_before_its_record": (
        right_but("    end.record(stream)\n    end.synchronize()\n",
                  "    end.synchronize()\n    end.record(stream)\n"),
        {"problem": "end.synchronize() came before end.record(stream)",
         "hint": "end.record(stream), then end.synchronize()"}),
    # blind audit TC-copy_bandwidth-1 (was "1.16e-05 GB/s, where the checker's events measured
    # 10.88 GB/s for the same copy. Hint: record start and end in stream, around the copy alone;
    # ..."): the seconds' parentheses left out
    "seconds_without_parentheses": (right_but(RIGHT_GBS, "h.nbytes / ms * 1e-3 / 1e9"),
                                    {"problem": "a million times too small",
                                     "hint": "put the seconds, ms * 1e-3, in parentheses"}),
    # blind audit TDC-copy_bandwidth-1 (was "1.114e-05 GB/s is a million times too small: ...
    # (h.nbytes / ms * 1e-3 multiplies by 1e-3 after dividing by ms) ... Hint: put the seconds,
    # ms * 1e-3, in parentheses ...", parentheses that were there): ms * 1e3 for ms * 1e-3
    "seconds_as_ms_times_1e3": (right_but(RIGHT_GBS, "h.nbytes / (ms * 1e3) / 1e9"),
                                {"problem": "a million times too small: the ms were multiplied "
                                            "by 1e3 (ms * 1e3)",
                                 "hint": "multiply the ms by 1e-3, not 1e3"}),
    # blind audit TJC-copy_bandwidth-1 (was "1.211e-06 GB/s is a million times too small: the
    # bytes were divided by the ms and by 1e3 more ... Hint: put the seconds, ms * 1e-3, in
    # parentheses ...", parentheses that were there): one element's bytes for the array's
    "itemsize_for_nbytes": (right_but("return h.nbytes /", "return h.itemsize /"),
                            {"problem": ("the bytes of one element, h.itemsize (4)",
                                         "where the array's, h.nbytes "
                                         f"({4 * copy_bandwidth._scaled(copy_bandwidth.CASES[0]):,}), belong",
                                         "line 9 of your cell"),
                             "hint": "h.nbytes / (ms * 1e-3) / 1e9"}),
    # blind audit TQC-copy_bandwidth-1 (was "1.547e-05 GB/s is a million times too small: the
    # bytes were divided by the ms and by 1e3 more ... Hint: put the seconds, ms * 1e-3, in
    # parentheses ...", parentheses that were there): the Python object's size, sys.getsizeof(h),
    # for the bytes, which for a page-locked array (whose memory it does not own) is its header
    "getsizeof_for_nbytes": (right_but("    return h.nbytes /",
                                       "    import sys\n    return sys.getsizeof(h) /"),
                             {"problem": ("sys.getsizeof(h)", "the Python object's size",
                                          "where the array's, h.nbytes "
                                          f"({4 * copy_bandwidth._scaled(copy_bandwidth.CASES[0]):,}), belong"),
                              "hint": "h.nbytes / (ms * 1e-3) / 1e9"}),
    "seconds_as_ms_over_1e_minus_3": (right_but(RIGHT_GBS, "h.nbytes / (ms / 1e-3) / 1e9"),
                                      {"problem": "the ms were divided by 1e-3 (ms / 1e-3)",
                                       "hint": "multiply the ms by 1e-3"}),
    # blind audit TC-copy_bandwidth-2 (was "your function raised LogicError: cuEventElapsedTime
    # failed: invalid resource handle (the event was never recorded) ... Hint: read the message:
    # it names the line of your function that failed"): which event
    "start_never_recorded": (right_but("    start.record(stream)\n", ""),
                             # the driver's own words in between differ between PyCUDA and
                             # the simulator (which adds "(the event was never recorded)")
                             {"problem": ("raised LogicError at line 7 of your cell (ms = start."
                                          "time_till(end)): cuEventElapsedTime failed: invalid "
                                          "resource handle", "the start event, the one time_till "
                                          "was called on, was never recorded"),
                              "hint": "record start in stream before the copy"}),
    "end_never_recorded": (right_but("    end.record(stream)\n", ""),
                           {"problem": "the end event, the one passed to time_till, was never "
                                       "recorded",
                            "hint": "record end in stream after the copy"}),
    # blind audit TEC-copy_bandwidth-1 (was "your function returned while its copy was still on
    # its way: ... Hint: record start and end in stream, around the copy, ..."): end recorded
    # before the copy was queued
    "end_recorded_before_the_copy": (right_but("    drv.memcpy_htod_async(d, h, stream)\n"
                                               "    end.record(stream)\n",
                                               "    end.record(stream)\n"
                                               "    drv.memcpy_htod_async(d, h, stream)\n"),
                                     {"problem": "the end event was recorded before the copy "
                                                 "was queued",
                                      "hint": "queue the copy between the two events"}),
    # blind audit TFC-copy_bandwidth-1 (was "the start event was recorded after the copy was
    # queued: ... Hint: record start, then the copy, then end, ...", the order the function
    # kept): Python's chained assignment makes start and end one event
    "one_event_under_two_names": (right_but("start, end = drv.Event(), drv.Event()",
                                            "start = end = drv.Event()"),
                                  {"problem": ("start and end are the same Event object",
                                               "start = end = drv.Event()"),
                                   "hint": "start, end = drv.Event(), drv.Event()"}),
    # blind audit TPC-copy_bandwidth-1 (was PASS: the timing bounds hid the truncation): the
    # GB/s floored to whole GB/s by Python's floor division, h.nbytes // (ms * 1e-3) // 1e9
    "floor_division": (right_but(RIGHT_GBS, "h.nbytes // (ms * 1e-3) // 1e9"),
                       {"problem": ("rounded down to a whole number of GB/s",
                                    "line 9 of your cell (return h.nbytes // (ms * 1e-3) // 1e9)",
                                    "// is floor division"),
                        "hint": "divide with /, not //: h.nbytes / (ms * 1e-3) / 1e9"}),
    # blind audit TWC-copy_bandwidth-1 (was "your function raised ZeroDivisionError ...: float
    # division by zero ... Hint: the time between the events was 0 ms: nothing was queued between
    # them; record start, then the copy, then end", the order the function kept): the ms made
    # whole by int(), 0 for a copy under 1 ms (the simulator's small copy), a truncated time and
    # a GB/s too large for a longer one (a GPU's copies, the simulator's larger one)
    "ms_made_whole_by_int": (right_but("ms = start.time_till(end)",
                                       "ms = int(start.time_till(end))"),
                             {"problem": ("line 8 of your cell (ms = int(start.time_till(end)))",
                                          "int() dropped the fraction of the ms"),
                              "hint": "keep the fraction: ms = start.time_till(end)"}),
    # blind audit TXC-copy_bandwidth-1 (was "0.1 GB/s is 1000 times too small: the milliseconds
    # were taken for seconds ... Hint: GB/s = h.nbytes / (ms * 1e-3) / 1e9 ...", a conversion that
    # was right): the fraction upside down, seconds per GB
    "fraction_upside_down": (right_but(RIGHT_GBS, "(ms * 1e-3) / (h.nbytes / 1e9)"),
                             {"problem": ("seconds per GB", "upside down",
                                          "(ms * 1e-3) / (h.nbytes / 1e9)"),
                              "hint": ("turn the fraction over", "(h.nbytes / 1e9) / (ms * 1e-3)")}),
    # blind audit AE (was 'PASS: every copy tried (2 sizes) arrived whole, and its GB/s agrees
    # with the host's clock and the checker's events'): five copies timed between the events,
    # the bytes of one counted
    "five_copies_timed_one_counted": (right_but("    drv.memcpy_htod_async(d, h, stream)\n",
                                                "    for _ in range(5):\n"
                                                "        drv.memcpy_htod_async(d, h, stream)\n"),
                                      {"problem": ("5 times too small", "the events timed 5 "
                                                   "copies of h", "line 5 of your cell (for _ in "
                                                   "range(5):)", "counts h.nbytes once"),
                                       "hint": "5 * h.nbytes / (ms * 1e-3) / 1e9"}),
    # blind audit AH (was '... raised RuntimeError ... device not ready ... Hint: the message says
    # what went wrong on that line'): end.synchronize, without its parentheses
    "end_synchronize_not_called": (right_but("end.synchronize()", "end.synchronize"), {"problem":
        "end.synchronize at line 7 of your cell names the method", "hint": "end.synchronize()"}),
    "time_read_from_start_to_itself": (right_but("start.time_till(end)", "start.time_till(start)"),
                                       {"problem": "the time was read from one event to itself",
                                        "hint": "start.time_till(end)"}),
}
SIMULATOR_ONLY = {}  # start recorded after the copy is named from the order of the calls, on a
                    # GPU too (it gave a huge GB/s there, 0 ms on the simulator)
RIGHT = {
    "the_stream_waited_for_and_time_since": right_but("end.synchronize()", "stream.synchronize()")
    .replace("start.time_till(end)", "end.time_since(start)"),
    "three_copies_averaged": right_but("    drv.memcpy_htod_async(d, h, stream)\n",
                                       "    for _ in range(3):\n"
                                       "        drv.memcpy_htod_async(d, h, stream)\n")
    .replace("h.nbytes /", "3 * h.nbytes /"),
    "seconds_at_the_read": right_but("ms = start.time_till(end)", "s = start.time_till(end) / 1000")
    .replace(RIGHT_GBS, "h.nbytes / s / 1e9"),
}


def define(source):
    return define_function(textwrap.dedent(source), "my_copy_gbs")


def test_the_solution_passes(capsys):
    verdict = check_copy_bandwidth(solution)
    assert verdict.passed is True, verdict
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_function_written_another_way_passes(name):
    assert check_copy_bandwidth(define(RIGHT[name])).passed is True


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_each_mistake_gets_its_own_verdict(name):
    source, expected = WRONG[name]
    verdict = check_copy_bandwidth(define(source))
    assert verdict.passed is False
    assert_says(verdict, expected)


@pytest.mark.parametrize("name, faster", [("bytes_per_millisecond", 3.0),
                                          ("milliseconds_as_seconds", 1 / 3)])
def test_a_slip_is_named_though_the_machines_load_set_the_two_measurements_apart(
        monkeypatch, name, faster):
    # CI's busy machine had the learner's copies and the checker's 2.9 and 4 times apart, and
    # the verdict named no slip: here the checker's copies seem 3 times faster, or slower
    measure = copy_bandwidth._measure
    monkeypatch.setattr(copy_bandwidth, "_measure", lambda *args: faster * measure(*args))
    source, expected = WRONG[name]
    assert expected["problem"] in check_copy_bandwidth(define(source)).problem


def test_the_cell_as_shipped_is_not_yet():
    shipped = catalog.as_shipped(catalog.find("copy_bandwidth"))
    verdict = check_copy_bandwidth(define(shipped))
    assert verdict.passed is False
    assert verdict.problem.startswith("your function raised NotImplementedError")


def test_something_else_than_a_function_is_named(capsys):
    verdict = check_copy_bandwidth(3.0)
    assert verdict.passed is False and "needs your function" in verdict.problem


def test_a_call_after_the_first_that_raises_is_a_verdict_too():
    # start recorded after the copy: on the simulator the events are usually 0 ms apart, and
    # the learner's division raises; once the first call was lucky and a later one raised
    calls = []

    def my_copy_gbs(h, d, stream):
        calls.append(1)
        if len(calls) > 1:
            raise ZeroDivisionError("float division by zero")
        return solution(h, d, stream)

    verdict = check_copy_bandwidth(my_copy_gbs)
    assert verdict.passed is False and "raised ZeroDivisionError" in verdict.problem, verdict
    assert "record start, then the copy, then end" in verdict.hint
