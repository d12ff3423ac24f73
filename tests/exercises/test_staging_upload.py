"""The double-buffering exercise (notebook 05): the reference solution and right functions written
another way pass, the notebook's cell as shipped fails, and each usual mistake gets its own
verdict, on both backends: on a GPU the checker keeps the streams busy first, so that a staging
buffer refilled too early shows there too. The variants are Python source, defined the way a
notebook cell defines the function."""

import pytest
from staging_upload_cases import (RIGHT_BODY, WAIT, assert_named, assert_named_on_the_simulator,
                                   define, right_but)

from helpers.exercises import catalog
from helpers.exercises.solutions.staging_upload import my_upload as solution
from helpers.exercises.staging_upload import CASES, _scaled, check_staging_upload

COPY = "drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo], s)"
FINAL = "    for s in streams:\n        s.synchronize()\n"
N, CHUNK = _scaled(CASES[0])  # the first case's sizes on this backend (16 times larger on a GPU)
LAST_C, LAST_LO = (N - 1) // CHUNK, (N - 1) // CHUNK * CHUNK  # the last, shorter chunk's c and lo


# name: (source, {field: words that the verdict's field must contain})
WRONG = {
    "no_wait_before_refilling": (right_but((WAIT, "        buf")),
                                 {"problem": "filled again before its copy had run",
                                  "hint": "wait for streams[c % 2]"}),
    "one_staging_buffer_for_both_streams": (right_but(("staging[c % 2]", "staging[0]")),
                                            {"problem": "differs from h", "hint": "staging[c % 2]"}),
    # blind audit TXC-staging_upload-1 (was "chunk 1 (elements 32,768 to 65,535) of d differs
    # from h ... Hint: chunk c goes through staging[c % 2] on streams[c % 2] ...", a chunk whose
    # own offset was right): the offset as c times the chunk's own length, right for the full
    # chunks, but the shorter last chunk lands at c * (its length), over an earlier chunk
    "offset_by_the_chunk_s_own_length": (
        right_but(("int(d) + lo * 4", "int(d) + c * (hi - lo) * 4")),
        {"problem": (f"the last chunk, chunk {LAST_C} (elements {LAST_LO:,} to {N - 1:,}, "
                     f"{N - LAST_LO:,} of them), was copied to element {LAST_C * (N - LAST_LO):,} "
                     f"of d, c * (hi - lo) = {LAST_C} * {N - LAST_LO:,}",
                     f"over chunk {LAST_C * (N - LAST_LO) // CHUNK}"),
         "hint": ("lo = c * chunk", "int(d) + lo * h.itemsize")}),
    # blind audit THC-staging_upload-1 (was "your function raised IndexError at line 5 of your
    # cell (buf = staging[c // 2]): list index out of range ... Hint: the message says what went
    # wrong on that line"): floor division where the remainder belongs
    "staging_by_floor_division": (right_but(("staging[c % 2]", "staging[c // 2]")),
                                  {"problem": "list index out of range: the buffers were taken "
                                              "two chunks at a time, as c // 2 (floor division) "
                                              "gives: chunks 0 and 1 got staging[0] (on two "
                                              "streams), chunks 2 and 3 staging[1], and chunk 4 "
                                              "staging[2], past the two buffers",
                                   "hint": "take the buffers in turn: buf = staging[c % 2]"}),
    # blind audit TSC-staging_upload-1 (was "your function raised TypeError at line 10 of your
    # cell (...): unsupported operand type(s) for +: 'DeviceAllocation' and 'int' ... Hint: the
    # message says what went wrong on that line"): the offset added to d, not to int(d)
    "offset_added_to_d_itself": (right_but((COPY, "drv.memcpy_htod_async(d + lo * 4, buf[:hi - lo], s)")),
                                 {"problem": "d + lo * 4 adds a number to d, a DeviceAllocation",
                                  "hint": "int(d) + lo * 4"}),
    "no_wait_at_the_end": (right_but((FINAL, "")),
                           {"problem": "still on their way", "hint": "TODO 3"}),
    "offsets_in_elements": (right_but((COPY, "drv.memcpy_htod_async(int(d) + lo, buf[:hi - lo], s)")),
                            {"problem": "a quarter of the way", "hint": "lo * 4"}),
    # blind audit TIC-staging_upload-1 (was "chunk 0 (elements 0 to 32,767) of d differs from h
    # ... Hint: chunk c goes through staging[c % 2] on streams[c % 2], after waiting for that
    # stream"): every chunk copied to d itself, with no offset
    "every_chunk_at_the_start_of_d": (right_but((COPY, "drv.memcpy_htod_async(d, buf[:hi - lo], s)")),
                                      {"problem": "every chunk was copied to the start of d "
                                                  "(memcpy_htod_async(d, ...), no offset): "
                                                  "elements 0 to",
                                       "hint": "int(d) + lo * h.itemsize"}),
    # blind audit TQC-staging_upload-1 (was "every chunk was copied to the start of d
    # (memcpy_htod_async(d, ...), no offset) ... Hint: chunk c goes to element lo of d ...", the
    # offset right): the copy's source sliced at the chunk's place in h, buf[lo:hi], which past
    # chunk 0 lies beyond the staging buffer's end and is empty
    "source_sliced_at_lo": (right_but((COPY, "drv.memcpy_htod_async(int(d) + lo * 4, buf[lo:hi], "
                                             "s)")),
                            {"problem": ("buf[lo:hi]", "empty", "0 bytes",
                                         f"elements {CHUNK:,} to {N - 1:,} of d were never written"),
                             "hint": "buf[:hi - lo]"}),
    # blind audit TJC-staging_upload-1 (was "chunk 0 (elements 0 to 32,767) of d differs from h
    # ... Hint: chunk c goes through staging[c % 2] on streams[c % 2], after waiting for that
    # stream"): the chunk's number, c, where its first element's, lo, belongs in the offset
    "offset_of_the_chunk_number": (right_but((COPY, "drv.memcpy_htod_async(int(d) + c * 4, buf[:hi - lo], s)")),
                                   {"problem": "chunk c was copied to element c of d (int(d) + "
                                               "c * 4): its number, where its first element's, "
                                               "lo, belongs",
                                    "hint": "int(d) + lo * h.itemsize"}),
    # blind audit TNC-staging_upload-1 (was "the copies wrote past the end of d ... Hint: the last
    # chunk is shorter: copy buf[:hi - lo], not the whole staging buffer", which it did): the
    # chunk's end, hi, where its start, lo, belongs in the offset
    "offset_of_the_chunk_s_end": (right_but((COPY, "drv.memcpy_htod_async(int(d) + hi * h.itemsize, buf[:hi - lo], s)")),
                                  {"problem": "each chunk's copy went to element hi of d, the "
                                              "chunk's end, not lo, its start: chunk 0 (elements "
                                              f"0 to {CHUNK - 1:,}) went to elements {CHUNK:,} to "
                                              f"{2 * CHUNK - 1:,}, so d's first chunk was never "
                                              "written, and the last",
                                   "hint": "int(d) + lo * h.itemsize"}),
    "the_whole_buffer_copied": (right_but((COPY, "drv.memcpy_htod_async(int(d) + lo * 4, buf, s)")),
                                {"problem": "past the end of d", "hint": "buf[:hi - lo]"}),
    "nothing_copied": (right_but((COPY, "pass")), {"problem": "nothing was copied",
                                                   "hint": "memcpy_htod_async"}),
    "waits_for_one_stream_at_the_end": (right_but((FINAL, "    streams[0].synchronize()\n")),
                                        {"problem": "still on their way", "hint": "both streams"}),
    # blind audit TTC-staging_upload-1 (was "your function returned while copies were still on
    # their way ... Hint: wait for both streams before returning (TODO 3)", a wait it had): the
    # final wait without its loop, s.synchronize(), waits for the loop's last stream alone
    "final_wait_for_the_loop_s_last_stream": (
        right_but((FINAL, "    s.synchronize()\n")),
        {"problem": ("still on their way: after the last copy only streams[",
                     "line 11 of your cell (s.synchronize()), after the loop, waits for s alone"),
         "hint": "wait for both streams after the loop: for s in streams: s.synchronize()"}),
    "copies_straight_from_h": (right_but((COPY, "drv.memcpy_htod_async(int(d) + lo * 4, h[lo:hi], s)")),
                               {"problem": "the copies came from h itself",
                                "hint": "from its staging buffer"}),
    # blind audit AC (was 'the copies came from h itself ... Hint: copy each chunk from its
    # staging buffer: memcpy_htod_async(..., buf[:hi - lo], s)', the copy it had): buf = h[lo:hi]
    # rebinds the name buf to a slice of h, so the unchanged copy from buf reads h itself
    "staging_name_rebound_to_a_slice_of_h": (
        right_but(("buf[:hi - lo] = h[lo:hi]", "buf = h[lo:hi]")),
        {"problem": ("line 9 of your cell (buf = h[lo:hi]) rebinds the name buf to a slice of h",
                     "does not fill staging[c % 2]"),
         "hint": "fill the staging buffer in place: buf[:hi - lo] = h[lo:hi]"}),
    "chunks_one_short": (right_but(("hi = min(n, lo + chunk)", "hi = min(n, lo + chunk - 1)")),
                         {"problem": "the last element of the chunks was never copied",
                          "hint": "hi = min(n, lo + chunk)"}),
    # blind audit TGC-staging_upload-1 (was "the last element of the chunks was never copied: a
    # chunk ends at hi - 1 ...", of every chunk, where only h[n - 1] was lost): n - 1 as the end
    "last_chunk_ends_at_n_minus_1": (right_but(("hi = min(n, lo + chunk)", "hi = min(n - 1, lo + chunk)")),
                                     {"problem": "the last element of h alone, h[n - 1] = h[",
                                      "hint": "hi = min(n, lo + chunk)"}),
    "last_chunk_left_out": (right_but(("range(0, n, chunk)", "range(0, n - chunk, chunk)")),
                            {"problem": "the last chunk", "hint": "range(0, n, chunk)"}),
    # d right, and no filling beside a copy: the order of the copies and the waits names it
    "waits_for_the_other_stream": (right_but((WAIT, "        streams[(c + 1) % 2].synchronize()\n        buf")),
                                   {"problem": "waited for the copy it had just queued",
                                    "hint": "not for the other stream"}),
    # blind audit AJ (was 'd holds h, but before filling each chunk the host waited for the copy
    # it had just queued (the other stream's) ... Hint: ... not for the other stream'): the chunks
    # numbered by lo, staging[lo % 2] on streams[lo % 2], always 0 since lo steps by an even chunk
    "buffer_and_stream_by_lo": (right_but(("c, lo in enumerate(range(0, n, chunk))",
                                           "lo in range(0, n, chunk)"),
                                          ("staging[c % 2]", "staging[lo % 2]"),
                                          ("streams[c % 2]", "streams[lo % 2]")),
                                {"problem": ("every chunk went through staging[0] on streams[0]",
                                             "lo % 2 is 0 for every chunk"),
                                 "hint": "for c, lo in enumerate(range(0, n, chunk))"}),
    # blind audit AK (was 'd holds h, but every chunk went through streams[0] ...: c % 2 is 0
    # for every chunk ... Hint: number the chunks ...', chunks it numbered): every copy queued on
    # streams[0], not on the chunk's stream s, though buffers and waits alternate
    "copies_all_on_streams_0": (right_but((COPY, COPY.replace(", s)", ", streams[0])"))),
                                {"problem": ("every copy was queued on streams[0] (line 10 of "
                                             "your cell (" + COPY.replace(", s)", ", streams[0])")
                                             + ")), not on chunk c's stream, s = streams[c % 2] (line 7"),
                                 "hint": "queue chunk c's copy on s: " + COPY}),
    # blind audit AE (was 'd holds h, but before filling each chunk the host waited for the copy
    # it had just queued (the other stream's) ... Hint: ... not for the other stream', a wait
    # that was right): the final wait for both streams indented into the chunk loop
    "final_wait_inside_the_loop": (right_but((COPY + "\n" + FINAL, COPY + "\n        for s in "
                                              "streams:\n            s.synchronize()\n")),
                                   {"problem": ("the wait for both streams, line 11 of your cell "
                                                "(for s in streams:), lies inside the chunk loop",
                                                "no filling ran beside a copy"),
                                    "hint": "dedent it, so that it runs once, after the loop"}),
    # blind audit AL (was 'd holds h, but before filling each chunk the host waited for the copy
    # it had just queued (the other stream's) ... Hint: ... not for the other stream', a wait on
    # s itself): s.synchronize() right after the copy, not before the filling
    "waited_right_after_the_copy": (right_but((WAIT, "        buf"), (COPY, COPY + "\n        "
                                                                      "s.synchronize()")),
                                    {"problem": ("s.synchronize() (line 10 of your cell) comes "
                                                 "right after the copy it waits for",
                                                 "no filling ran beside a copy"),
                                     "hint": "move s.synchronize() above the filling, "
                                             "buf[:hi - lo] = h[lo:hi] (line 8 of your cell)"}),
    # blind audit AH (was 'PASS: d holds h ...'): drv.Context.synchronize() before each refill
    "context_waited_for_each_refill": (right_but((WAIT, WAIT.replace("s.", "drv.Context."))), {
        "problem": ("(line 8 of your cell), which waits for the whole context: for both streams",
                    "no filling ran beside a copy"), "hint": "this buffer's stream alone"}),
    "blocking_copies": (right_but((COPY, "drv.memcpy_htod(int(d) + lo * 4, buf[:hi - lo])")),
                        {"problem": "returns only once the copy is done",
                         "hint": "memcpy_htod_async"}),
    "filled_then_waited": (right_but((WAIT, "        buf[:hi - lo] = h[lo:hi]\n        s.synchronize()\n        buf")),
                           {"problem": "the chunk two after it", "hint": "wait first, then fill"}),
    # blind audit AD (was 'your function raised TypeError at line 9 ...: memoryview: a
    # bytes-like object is required, not 'int' ... Hint: the message says what went wrong'): the
    # copy's arguments source first, the staging slice before the address in d
    "copy_arguments_source_first": (
        right_but((COPY, "drv.memcpy_htod_async(buf[:hi - lo], int(d) + lo * 4, s)")),
        {"problem": "gives memcpy_htod_async the host array buf[:hi - lo] first and the device "
                    "buffer int(d) + lo * 4 second",
         "hint": "the destination comes first: drv.memcpy_htod_async(int(d) + lo * 4, "
                 "buf[:hi - lo], s)"}),
    # blind audit TC-staging_upload-1 (was "your function raised ValueError: could not broadcast
    # input array from shape (5095,) into shape (32768,) ... Hint: read the message: it names the
    # line of your function that failed"): the last chunk not cut short
    "last_chunk_not_cut_short": (right_but(("hi = min(n, lo + chunk)", "hi = lo + chunk")),
                                 {"problem": "the last chunk's h[lo:hi] runs past the end of h, "
                                             "n = ",
                                  "hint": "cut the last chunk short: hi = min(n, lo + chunk)"}),
    # blind audit TC-staging_upload-2 (was "your function raised LogicError: cuMemcpyHtoDAsync
    # failed: ... at offset 1310720 of a 1331100-byte allocation); is the array larger than the
    # device buffer? ... Hint: read the message ..."): 8 bytes an element, as for a Python float
    "offsets_of_8_bytes_an_element": (
        right_but((COPY, COPY.replace("lo * 4", "lo * 8"))),
        {"problem": "runs past the end of d: 8 bytes an element, where a float32 has 4",
         "hint": "element lo is at int(d) + lo * 4 (lo * h.itemsize), not lo * 8"}),
    # blind audit TLC-staging_upload-1 (was "chunk 0's copy of 131,072 bytes went to byte
    # 419,038,299,697,440 of d and runs past its end ... Hint: element lo of d is at int(d) + lo *
    # 4, ...", the parentheses never named): the whole address multiplied by the element's bytes
    "address_multiplied": (
        right_but((COPY, COPY.replace("int(d) + lo * 4", "(int(d) + lo) * h.itemsize"))),
        {"problem": "(int(d) + lo) * 4 multiplies the address of d too, not only lo: the whole "
                    "address times 4 lands at byte",
         "hint": "int(d) + lo * h.itemsize"}),
    # blind audit TDC-staging_upload-1 (was "your function raised ValueError at line 15 of your
    # cell (buf[lo:hi] = h[lo:hi]): could not broadcast input array from shape (32768,) into shape
    # (0,) ... Hint: the message says what went wrong on that line"): buf filled at h's places
    # blind audit TPC-staging_upload-1 (was "your function raised ValueError at line 15 of your
    # cell (buf[:] = h[lo:hi]): could not broadcast input array from shape (5095,) into shape
    # (32768,) ... Hint: the message says what went wrong on that line"): the buffer filled whole
    "buffer_filled_whole": (
        right_but(("buf[:hi - lo] = h[lo:hi]", "buf[:] = h[lo:hi]")),
        # the sizes differ between backends (chunk 32,768 on the simulator, 524,288 on a GPU)
        {"problem": ("the last chunk, h[", "elements, fewer than a staging buffer's",
                     "buf[:] = h[lo:hi] fills the whole buffer"),
         "hint": "fill the buffer's first hi - lo elements: buf[:hi - lo] = h[lo:hi]"}),
    "buffer_filled_at_the_chunk_s_place": (
        right_but(("buf[:hi - lo] = h[lo:hi]", "buf[lo:hi] = h[lo:hi]")),
        # the sizes differ between backends (chunk 32,768 on the simulator, 524,288 on a GPU)
        {"problem": "went to a slice of its staging buffer that is empty, as buf[lo:hi] is: a "
                    "staging buffer holds",
         "hint": "fill the staging buffer from its start: buf[:hi - lo] = h[lo:hi]"}),
    # blind audit TRC-staging_upload-1 (was "your function raised ValueError at line 15 of your
    # cell (buf[:hi - lo] = h[lo:hi]): could not broadcast input array from shape (150003,) into
    # shape (32768,) ... Hint: the message says what went wrong on that line"): a chunk half of h
    "chunk_half_of_h": (
        right_but(("n, chunk = h.size, staging[0].size", "n, chunk = h.size, h.size // 2")),
        # the sizes differ between backends (chunk 32,768 on the simulator, 524,288 on a GPU)
        {"problem": ("elements, more than a staging buffer holds (",
                     "the chunk length was set to half of h, n // 2 (line ",
                     "of your cell: n, chunk = h.size, h.size // 2), but every chunk goes into "
                     "one staging buffer"),
         "hint": "chunk = staging[0].size, the buffer's number of elements"}),
    # blind audit TKC-staging_upload-1 (was "your function raised ValueError at line 15 of your
    # cell (buf[:hi - lo] = h[lo:hi]): could not broadcast input array from shape (131072,) into
    # shape (32768,) ... Hint: the message says what went wrong on that line"): bytes for elements
    "chunk_of_the_buffer_s_bytes": (
        right_but(("staging[0].size", "staging[0].nbytes")),
        # the sizes differ between backends (chunk 32,768 on the simulator, 524,288 on a GPU)
        {"problem": "elements for a staging buffer of ",
         "hint": "chunk = staging[0].size"}),
    # blind audit TEC-staging_upload-1 (was "chunk 0 (elements 0 to 32,767) of d differs from h
    # ... Hint: chunk c goes through staging[c % 2] on streams[c % 2], after waiting for that
    # stream"): the wait skipped for the first three chunks, one too many
    "wait_skipped_for_chunk_2": (right_but((WAIT, "        if c > 2:\n            s.synchronize()\n"
                                                  "        buf")),
                                 {"problem": "staging[0] was filled again for chunk 2 before "
                                             "chunk 0's copy out of it had run: the host did not "
                                             "wait for streams[0] before chunk 2's filling",
                                  "hint": "wait for streams[c % 2] for every chunk"}),
    # blind audit TFC-staging_upload-1 (was "each chunk holds the data of the last chunk that
    # went through its staging buffer: ... Hint: before filling staging[c % 2], wait for
    # streams[c % 2]: ...", the wait the learner believed written): the call's parentheses left out
    "wait_without_parentheses": (right_but((WAIT, "        s.synchronize\n        buf")),
                                 {"problem": "s.synchronize at line 8 of your cell names the "
                                             "method without calling it (no parentheses), so the "
                                             "host never waited there: each chunk holds the data "
                                             "of the last chunk",
                                  "hint": "call it: s.synchronize()"}),
    # blind audit TMC-staging_upload-1 (was "your function raised ValueError at line 15 of your
    # cell (buf[:hi - lo] = h[lo:hi]): could not broadcast input array from shape (300007,) into
    # shape (32768,) ... Hint: the message says what went wrong on that line"): max for min
    "chunk_end_with_max": (right_but(("hi = min(n, lo + chunk)", "hi = max(n, lo + chunk)")),
                           # the sizes differ between backends
                           {"problem": "every chunk ran to the end of h: hi = max(n, lo + chunk) "
                                       "(line 5 of your cell) takes the larger of the two, n, so "
                                       "chunk 0 was h[0:",
                            "hint": "the chunk ends at the smaller of the two: hi = min(n, lo + "
                                    "chunk)"}),
    # blind audit TYC-staging_upload-1 (was "from chunk 1 on, each copy's source was buf[lo:hi],
    # ... Hint: ... copy buf[:hi - lo] from there", a slice the learner did not write): the
    # chunk's end without lo, hi = min(n, chunk), so from chunk 1 on hi - lo <= 0 and the chunks
    # are empty
    "chunk_end_without_lo": (right_but(("hi = min(n, lo + chunk)", "hi = min(n, chunk)")),
                             {"problem": (f"from chunk 1 on, hi = min(n, chunk) (line 5 of your "
                                          f"cell) leaves lo out of the chunk's end: every chunk "
                                          f"ended at hi = {CHUNK:,}, so chunk 1 ran from lo = "
                                          f"{CHUNK:,} to hi = {CHUNK:,}, hi - lo = 0, and each "
                                          "later chunk's hi - lo was below 0",
                                          "h[lo:hi] and buf[:hi - lo] were empty and 0 bytes "
                                          f"were copied, so elements {CHUNK:,} to {N - 1:,} of d "
                                          "were never written"),
                              "hint": "a chunk ends chunk elements past its start, lo: hi = "
                                      "min(n, lo + chunk)"}),
    # blind audit TVC-staging_upload-1 (was "each chunk holds the data of the last chunk that
    # went through its staging buffer: ... Hint: before filling staging[c % 2], wait for
    # streams[c % 2] ...", the wait it had): the copy queued without its stream, in the default one
    "copy_without_its_stream": (right_but((COPY, "drv.memcpy_htod_async(int(d) + lo * 4, buf[:hi - lo])")),
                                {"problem": ("line 10 of your cell (drv.memcpy_htod_async(int(d) + "
                                             "lo * 4, buf[:hi - lo])) queues the copy without its "
                                             "stream", "default stream", "s.synchronize() never "
                                             "waits for it"),
                                 "hint": "pass the chunk's stream as the third argument"}),
    # blind audit AB (was 'PASS: d holds h after every upload tried (2 sizes, the last chunk
    # shorter), each staging buffer refilled only once its copy had run, ...'): the copy queued
    # before its buffer was filled, which a queued copy that runs at once reads before the chunk
    "copy_queued_before_the_filling": (
        right_but(("        buf[:hi - lo] = h[lo:hi]\n        " + COPY,
                   "        " + COPY + "\n        buf[:hi - lo] = h[lo:hi]")),
        {"problem": ("the copy of chunk 0 was queued (line 9 of your cell: " + COPY + ") before "
                     "staging[0] was filled with it (line 10: buf[:hi - lo] = h[lo:hi])",
                     "a queued copy may run at once"),
         "hint": ("fill the buffer first, then queue its copy: buf[:hi - lo] = h[lo:hi], then "
                  + COPY)}),
    # blind audit AG (was 'each chunk holds the data of the chunk two after it: its buffer was
    # filled again before the wait for its copy (fill, then wait) ...', where it waited first):
    # the buffer's event recorded before its copy was queued, so waiting for it does not wait
    # for the copy
    "event_recorded_before_its_copy": (
        right_but(("    n, chunk", "    free = [None, None]\n    n, chunk"),
                  (WAIT, "        if free[c % 2] is not None:\n            free[c % 2]"
                         ".synchronize()\n        buf"),
                  (COPY, "free[c % 2] = drv.Event().record(s)\n        " + COPY)),
        {"problem": ("line 12 of your cell (free[c % 2] = drv.Event().record(s)) records the "
                     "event before line 13 (" + COPY + ") queues the copy"),
         "hint": "record the buffer's event after queuing its copy"}),
    "final_wait_without_parentheses": (right_but((FINAL, "    for s in streams:\n"
                                                         "        s.synchronize\n")),
                                       {"problem": "s.synchronize at line 12 of your cell names "
                                                   "the method without calling it",
                                        "hint": "call it: s.synchronize()"}),
}
RACES = {"no_wait_before_refilling", "one_staging_buffer_for_both_streams", "filled_then_waited",
         "wait_skipped_for_chunk_2", "wait_without_parentheses", "event_recorded_before_its_copy"}
"""Mistakes that a GPU shows only when a copy is still pending as its buffer is refilled (the
H200, 2026-12-02, run alone: neither showed), and the simulator's run then names: under
pytest-xdist the other workers' kernels change when the copies run, and what the GPU's run shows,
so on a GPU they are run alone."""
RIGHT = {
    "events_mark_each_buffer_free": right_but(
        ("    n, chunk", "    free = [None, None]\n    n, chunk"),
        (WAIT, "        if free[c % 2] is not None:\n            free[c % 2].synchronize()\n"
               "        buf"),
        (COPY, COPY + "\n        free[c % 2] = drv.Event().record(s)")),
    "the_context_waited_for": right_but((FINAL, "    drv.Context.synchronize()\n")),
    "np_copyto": right_but(("buf[:hi - lo] = h[lo:hi]", "np.copyto(buf[:hi - lo], h[lo:hi])")),
}


def test_the_solution_passes(capsys):
    verdict = check_staging_upload(solution)
    assert verdict.passed is True, verdict
    assert capsys.readouterr().out == f"{verdict}\n"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_function_written_another_way_passes(name):
    assert check_staging_upload(define(RIGHT[name])).passed is True


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.gpu_timing) if name in RACES
                                  else name for name in sorted(WRONG)])
def test_each_mistake_gets_its_own_verdict(name):
    assert_named(*WRONG[name])


@pytest.mark.parametrize("name", sorted(RACES))
def test_the_simulator_s_run_names_a_race_on_any_backend(name):
    """What a GPU whose copies are quick does not show, the checker's run on the simulator does."""
    assert_named_on_the_simulator(*WRONG[name])


def test_the_cell_as_shipped_is_not_yet():
    shipped = catalog.as_shipped(catalog.find("staging_upload"))
    verdict = check_staging_upload(define(shipped))
    assert verdict.passed is False
    assert verdict.problem.startswith("d still holds the NaN")


def test_only_a_function_that_reads_the_global_drv_runs_again_on_the_simulator():
    """On a GPU the checker runs a function it found right once more, with the simulator's
    driver as its global ``drv``. One that imports PyCUDA's driver itself would hand the
    simulator's streams to PyCUDA (the reference solution once did, and failed on the H200 with
    a TypeError that the verdict blamed on it): it is not run there, and the GPU's verdict
    stands."""
    from helpers.exercises import staging_upload

    own_import = define(RIGHT_BODY.replace("    n, chunk", "    import pycuda.driver as drv\n"
                                                          "    n, chunk"))
    assert staging_upload._reads_global_drv(solution)
    assert staging_upload._reads_global_drv(define(RIGHT_BODY))
    assert not staging_upload._reads_global_drv(own_import)
