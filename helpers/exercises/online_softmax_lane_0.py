"""A merge of online_softmax's lanes (``helpers.exercises.online_softmax``) that hands lane 0 no
other lane's pair, so that it stores its own: the pair of its columns 0, 32, 64, ... alone. The
kernel's text (on the simulator) tells a scan by __shfl_up_sync, which gathers the row in lane 31,
from a merge left out."""

from __future__ import annotations

import types

import numpy as np

from helpers.exercises.microscope import kernel_words, source_line
from helpers.exercises.online_softmax_models import pairs

BUTTERFLY = ("float m2 = __shfl_xor_sync(0xffffffffu, m, offset), and l2 from l, for (int offset "
             "= 16; offset > 0; offset /= 2), every lane merging at every step, so that lane 0 "
             "ends with the whole row's pair")


def _shfl_up_line(kernel):
    """The line of the kernel's first __shfl_up_sync; None where it has none, or its text cannot
    be read (a GPU's kernel has no simulated twin here)."""
    text = kernel_words(types.SimpleNamespace(simulated=getattr(kernel, "simulated", kernel)))
    if text is None:
        return None
    source, tokens, words, body, end = text
    k = next((k for k in range(body, end) if words[k] == "__shfl_up_sync"), None)
    return None if k is None else source_line(source, tokens[k].start)


def lane_0_merged_nothing(kernel, x, m, sums):
    """row_max and row_sum lane 0's own pair (``pairs`` with no offset): no other lane's pair
    reached lane 0 in the merge; named a scan by __shfl_up_sync where the kernel's text has one."""
    own_m, own_l = pairs(x, offsets=())
    want_m, want_l = pairs(x)
    wrong = ~np.isclose(own_m, want_m) | ~np.isclose(own_l, want_l, rtol=1e-3)
    if not wrong.any() or not np.allclose(m, own_m) or not np.allclose(sums, own_l, rtol=1e-3):
        return
    r = int(np.argmax(wrong))
    pair = (f"row_max and row_sum are lane 0's own pair, of its columns 0, 32, 64, ... alone "
            f"(row {r} got row_max = {m[r]:.6g}, row_sum = {sums[r]:.6g}, expected "
            f"{want_m[r]:.6g}, {want_l[r]:.6g})")
    line = _shfl_up_line(kernel)
    if line is None:
        yield (f"{pair}: no other lane's pair reached lane 0 in the merge", "after the column "
               f"loop, merge the 32 lanes' pairs with the butterfly: {BUTTERFLY}")
        return
    yield (f"{pair}: the merge shuffles with __shfl_up_sync (line {line}), which hands lane l the "
           "value of lane l - offset: lane 0 has no lane below it, so it never received another "
           "lane's pair (the scan gathers the whole row in lane 31, and lane 0 stores its own)",
           "merge with the butterfly, whose partner is lane ^ offset, above or below: "
           + BUTTERFLY)
