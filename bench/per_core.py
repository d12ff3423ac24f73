"""Benchmark: the simulator's cost per core on the course's barrier-free kernels, against their
serial C++ loops, in CPU time (what a shared machine's load does not change much).

    python bench/per_core.py [--tiny] [--rounds 10] [--processes 5] [--record [--key KEY]]

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
land on one of them only. One process's figures say little (on the 2-core machine vector_add's
per core moved from 0.56x to 1.25x between runs, serial C++'s time from 1.34 to 2.95 ms), so
``--processes`` runs all of it in that many processes one after another and prints each
column's median, and the range of the processes' per-core ratios. ``--record`` also writes what
it prints into ``bench/RESULTS.md``, as the section ``--key`` (default ``per_core``). Exit status
1 when the simulator's result disagrees with NumPy's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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


def measure_all(args):
    """[(kernel, size, CPU ms on 1 worker, on 2, of serial C++, whether the result agrees)] of
    every kernel, measured in this process."""
    size = 2 if args.tiny else 1
    lib = SerialLibrary()
    rows = []
    for make, key in list(zip(cases.MAKERS, cases.SIZE_OF))[:KERNELS]:
        case = make(SIZES[key][size], NoCeilings())
        rows.append((case.kernel, case.size, *measure(case, lib, args.rounds)))
    return rows


def in_processes(args):
    """measure_all in args.processes processes of their own, one after another: each kernel's
    rows, one a process."""
    command = [sys.executable, __file__, "--child", "--rounds", str(args.rounds),
               *(["--tiny"] if args.tiny else [])]
    runs = []
    for _ in range(args.processes):
        child = subprocess.run(command, capture_output=True, text=True)
        if child.returncode != 0:
            sys.exit(f"a measuring process failed:\n{child.stdout}{child.stderr}")
        runs.append(json.loads(child.stdout.splitlines()[-1]))
    return list(zip(*runs))


def run(args):
    """Measures and prints every kernel; True when every result agrees with NumPy's."""
    processes = f"median of {args.processes} processes" if args.processes > 1 else "one process"
    print(f"CPU time of a process, least of {3 * args.rounds} runs, {processes}; "
          f"{os.cpu_count()} cores; load average at start: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'kernel':<16} {'size':<18} {'1 worker':>10} {'2 workers':>10} {'serial C++':>11} "
          f"{'per core':>9}" + ("  (range)" if args.processes > 1 else ""))
    kernels = in_processes(args) if args.processes > 1 else [[row] for row in measure_all(args)]
    agree = True
    for rows in kernels:
        kernel, size = rows[0][:2]
        one, two, serial = (statistics.median(r[i] for r in rows) for i in (2, 3, 4))
        ratios = [r[4] / r[3] for r in rows]
        ok = all(r[5] for r in rows)
        agree &= ok
        spread = f"  ({min(ratios):.2f}-{max(ratios):.2f}x)" if len(rows) > 1 else ""
        print(f"{kernel:<16} {size:<18} {one:>7.2f} ms {two:>7.2f} ms {serial:>8.2f} ms "
              f"{statistics.median(ratios):>8.2f}x{spread}{'' if ok else '  WRONG'}")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return agree


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny sizes: checks that the script runs")
    p.add_argument("--rounds", type=int, default=10, help="launches (and serial runs) a turn")
    p.add_argument("--processes", type=int, default=5, help="processes whose medians count")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # one process's rows
    p.add_argument("--record", action="store_true", help="also write the output into bench/RESULTS.md")
    p.add_argument("--key", default="per_core", help="the section of RESULTS.md --record writes")
    args = p.parse_args(argv)
    if not cases.SIM:
        sys.exit("bench/per_core.py measures the simulator: run it with CUDA_COURSE_BACKEND=simulator")
    if args.child:
        print(json.dumps(measure_all(args)))
        return 0
    agree = results.run_and_record(lambda: run(args), args.key, "bench/per_core.py", argv,
                                   args.record)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
