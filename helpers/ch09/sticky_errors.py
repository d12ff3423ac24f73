"""What an error inside a kernel does to the rest of the program: a program of its own.

    python -m helpers.ch09.sticky_errors null-pointer   # a kernel writes through a null pointer
    python -m helpers.ch09.sticky_errors assert         # a kernel's assert fails

It makes the faulty launch, then four ordinary calls (wait for the GPU, copy an array to it,
launch a correct kernel, copy a result back), and prints what each did, with a last line
``summary: ...``. On a GPU an illegal address or a failed assert is a *sticky* error: the CUDA
context is broken for good, every later call in the process fails with the same error, and only
a new process (in Jupyter: a restarted kernel) gets a working GPU again. So notebook 09 runs this
in a process of its own. On the simulator the faulty launch raises at once and the rest works.
"""

from __future__ import annotations

import sys

import numpy as np

KINDS = ("null-pointer", "assert")


def _steps(kind):
    """(what, call) for the faulty launch and the ordinary calls after it."""
    from helpers.backend import compile_cu, drv, gpuarray

    mod = compile_cu("debugging.cu", options=["-lineinfo"])
    n = 1024
    x = np.ones(n, np.float32)
    if kind == "assert":
        x[5] = np.nan
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.empty(n, np.float32)
    launch = dict(block=(256, 1, 1), grid=(n // 256, 1))
    if kind == "null-pointer":  # an output array that was never allocated
        faulty = ("scale_plain(x, 0, n): y is a null pointer",
                  lambda: mod.get_function("scale_plain")(x_gpu, np.uintp(0), np.int32(n),
                                                          **launch))
    else:
        faulty = ("scale_checked(x, y, n) with a NaN in x[5]: its assert fails",
                  lambda: mod.get_function("scale_checked")(x_gpu, y_gpu, np.int32(n),
                                                            **launch))

    def correct_launch():
        mod.get_function("scale_plain")(x_gpu, y_gpu, np.int32(n), **launch)
        drv.Context.synchronize()

    return [faulty,
            ("drv.Context.synchronize(): wait for the GPU", drv.Context.synchronize),
            ("gpuarray.to_gpu(np.arange(4.0)): copy a new array to the GPU",
             lambda: gpuarray.to_gpu(np.arange(4.0))),
            ("scale_plain(x, y, n): a correct kernel", correct_launch),
            ("y.get(): copy a result back", y_gpu.get)]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in KINDS:
        print(f"usage: python -m helpers.ch09.sticky_errors {'|'.join(KINDS)}", file=sys.stderr)
        return 2
    from helpers.backend import BACKEND

    print(f"backend: {BACKEND}")
    failed_at, later_failures = None, 0
    steps = _steps(argv[0])
    for i, (what, call) in enumerate(steps, 1):
        try:
            call()
            outcome = "ok"
        except Exception as err:  # noqa: BLE001 - what each call does is what we show
            outcome = f"{type(err).__name__}: {str(err).splitlines()[0]}"
            if failed_at is None:
                failed_at = i
            else:
                later_failures += 1
        print(f"{i}. {what}\n   -> {outcome}", flush=True)
    later = len(steps) - (failed_at or len(steps))
    print(f"summary: the error surfaced at call {failed_at}; {later_failures} of the {later} "
          "calls after it failed too", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
