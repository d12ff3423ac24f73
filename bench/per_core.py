"""Benchmark: the simulator's cost per core on the course's barrier-free kernels, against their
serial C++ loops, in CPU time (what a shared machine's load does not change much).

    python bench/per_core.py [--tiny] [--rounds 10] [--record [--key KEY]]

``bench/course_kernels.py`` compares wall-clock times: the simulator on all its workers against
one core of serial C++, which on a machine shared with other work says as much about the other
work as about the simulator. Here each of vector_add (01), saxpy (02), rgb_to_gray and
rgb_to_gray_x16 (04), mandelbrot (03) and iterate_sin (05), at course_kernels.py's simulator
sizes and launch configurations, is run on one worker and then on two, ``--rounds`` launches
back to back, and its serial C++ loop (``bench/serial/``, g++ -O2) ``--rounds`` times on one
set of inputs; the least CPU time of the process (``time.process_time``, every thread of it)
counts. Printed for each kernel: the simulator's CPU time on one and two workers, serial C++'s,
and serial C++ over the simulator on two workers ("per core": 1.00x is as fast per core as
serial C++; the wall-clock ratio on two idle cores would be about twice that). The rounds take
turns (simulator, serial, simulator, ...) three times, so that a burst of other work does not
land on one of them only. ``--record`` also writes what it prints into ``bench/RESULTS.md``, as
the section ``--key`` (default ``per_core``). Exit status 1 when the simulator's result disagrees
with NumPy's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: bench, helpers

from bench import cases, results  # noqa: E402
from bench.course_kernels import SIZES  # noqa: E402
from bench.reference import NUMPY, SerialLibrary  # noqa: E402
from helpers.sim.settings import settings  # noqa: E402

KERNELS = 6   # the first MAKERS of bench/cases.py: the barrier-free kernels with a serial loop


class NoCeilings:
    """cases' makers want the run's ceilings for their rates, which are not printed here."""

    def bandwidth(self, nbytes, ms):
        return 0.0, "GB/s", None


def least_cpu_ms(fn, rounds):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best * 1e3


def measure(case, lib, rounds):
    """(CPU ms on 1 worker, on 2 workers, of serial C++, whether the result agrees)."""
    inputs, index = case.sample(case.n)
    work = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in inputs)
    sim = {1: float("inf"), 2: float("inf")}
    serial = float("inf")
    for _ in range(3):
        for workers in sim:
            with settings.changed(workers=workers):
                case.launch()
                sim[workers] = min(sim[workers], least_cpu_ms(case.launch, rounds))
        serial = min(serial, least_cpu_ms(lambda: case.serial(lib, *work), rounds))
    small, small_index = case.sample(min(case.n, 1 << 16))
    ok = bool(case.check(np.asarray(case.result()[small_index]),
                         (case.numpy_op or case.xp_op)(NUMPY, *small)))
    return sim[1], sim[2], serial, ok


def run(args):
    """Measures and prints every kernel; True when every result agrees with NumPy's."""
    size = 2 if args.tiny else 1
    lib = SerialLibrary()
    print(f"CPU time of this process, least of {3 * args.rounds} runs; {os.cpu_count()} cores; "
          f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'kernel':<16} {'size':<18} {'1 worker':>10} {'2 workers':>10} {'serial C++':>11} "
          f"{'per core':>9}")
    agree = True
    for make, key in list(zip(cases.MAKERS, cases.SIZE_OF))[:KERNELS]:
        case = make(SIZES[key][size], NoCeilings())
        one, two, serial, ok = measure(case, lib, args.rounds)
        agree &= ok
        print(f"{case.kernel:<16} {case.size:<18} {one:>7.2f} ms {two:>7.2f} ms {serial:>8.2f} ms "
              f"{serial / two:>8.2f}x{'' if ok else '  WRONG'}")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return agree


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny sizes: checks that the script runs")
    p.add_argument("--rounds", type=int, default=10, help="launches (and serial runs) a turn")
    p.add_argument("--record", action="store_true", help="also write the output into bench/RESULTS.md")
    p.add_argument("--key", default="per_core", help="the section of RESULTS.md --record writes")
    args = p.parse_args(argv)
    if not cases.SIM:
        sys.exit("bench/per_core.py measures the simulator: run it with CUDA_COURSE_BACKEND=simulator")
    agree = results.run_and_record(lambda: run(args), args.key, "bench/per_core.py", argv,
                                   args.record)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
