"""Jupyter's interrupt button stops a kernel that never ends, and the learner's process lives on.

The button sends SIGINT to the Jupyter kernel's process; a child process stands in for it here,
so that the signal never reaches pytest itself.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

KERNELS = r"""
#line 1 "interrupt.cu"
__global__ void spin(volatile int *flag) { while (flag[0] == 0) { } }
__global__ void ones(float *out) { out[threadIdx.x] = 1.0f; }
"""


def wait_until_spinning(pid, cpu_s=0.3, timeout_s=30):
    """Return once process pid has used cpu_s more CPU time (an endless kernel running), or, where
    /proc is missing, after a second."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        time.sleep(1.0)
        return

    def used():
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime + stime

    first, deadline = used(), time.monotonic() + timeout_s
    while used() - first < cpu_s:
        assert time.monotonic() < deadline, "the endless kernel never started"
        time.sleep(0.05)


def signal_state(pid):
    """Where each thread of process pid stands with signals (pending, blocked, ignored, caught:
    hexadecimal masks, bit n-1 for signal n; SIGINT is 2), from /proc: for a hang's report."""
    lines = []
    for status in sorted(Path(f"/proc/{pid}/task").glob("*/status")):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except OSError:
            continue
        lines.append(" ".join(f"{k}={fields[k].strip()}" for k in
                              ("Name", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
                              if k in fields))
    return "\n".join(lines)


@pytest.mark.slow
def test_an_endless_kernel_can_be_interrupted_and_the_process_lives_on():
    """Jupyter's interrupt button sends SIGINT to the kernel's process. A child process plays the
    notebook (the signal goes to it, never to pytest): interrupted in the middle of an endless
    launch, it gets KeyboardInterrupt, and its next launch runs."""
    child = textwrap.dedent(f"""
        import faulthandler, signal
        faulthandler.dump_traceback_later(40)  # a hang says where: every thread's stack
        # SIGINT raises KeyboardInterrupt, as in a Jupyter kernel. A child inherits an ignored
        # SIGINT, and Python then keeps ignoring it: a test run started in the background from
        # a shell script (its SIGINT ignored) waited 60 s for this child.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import numpy as np
        from helpers.sim import gpuarray
        from helpers.sim.compiler import SourceModule
        mod = SourceModule({KERNELS!r})
        flag = gpuarray.zeros(1, np.int32)
        print("launching", flush=True)
        try:
            mod.get_function("spin")(flag, block=(32, 1, 1), grid=(8, 1))
        except KeyboardInterrupt as e:
            print("KeyboardInterrupt:", e, flush=True)
        out = gpuarray.zeros(64, np.float32)
        mod.get_function("ones")(out, block=(64, 1, 1))
        print("next launch right:", bool((out.get() == 1).all()), flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], cwd=Path(__file__).resolve().parents[3],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "launching\n", proc.communicate()
        wait_until_spinning(proc.pid)
        start = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            signals = signal_state(proc.pid)
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"still running 60 s after SIGINT:\n{out}{err}\n{signals}")
    finally:
        proc.kill()
    assert "KeyboardInterrupt: kernel 'spin' was interrupted" in out, out + err
    assert "next launch right: True" in out, out + err
    assert proc.returncode == 0 and time.perf_counter() - start < 10


class WorkersThatMissCancels:
    """A compiled module's library whose launch ends only after its third cancel, as when a
    worker lets a cancel pass (launch._execute sends one again at every wait)."""
    INTERRUPTED = 3

    def __init__(self):
        self.cancels = self.waits = 0

    def sim_set_heap(self, heap):
        pass

    def sim_set_shared(self, pairs, n):
        pass

    def sim_launch_start(self, *args):
        return 1

    def sim_launch_cancel(self, handle):
        self.cancels += 1

    def sim_launch_wait(self, handle, timeout_ms):
        self.waits += 1
        assert self.waits < 50, f"the launch was cancelled {self.cancels} times and ran on"
        return self.cancels >= 3

    def sim_launch_finish(self, handle, err):
        return self.INTERRUPTED


def test_a_launch_past_its_time_limit_is_cancelled_until_it_stops(monkeypatch):
    from types import SimpleNamespace

    from helpers.sim import driver
    from helpers.sim.run import launch
    from helpers.sim.machine import stacks
    from helpers.sim.settings import settings

    lib = WorkersThatMissCancels()
    module = SimpleNamespace(lib=lib, check_unchanged=lambda: None,
                             shared_variables=(None, 0),
                             status_name={WorkersThatMissCancels.INTERRUPTED: "INTERRUPTED"})
    monkeypatch.setattr(stacks, "for_launch", lambda workers, count: (None, workers))
    with settings.changed(time_limit=0.0), pytest.raises(driver.LaunchError) as err:
        launch._execute(SimpleNamespace(module=module, kernel=SimpleNamespace(name="spin", index=0,
                                                                          fibers=False),
                                        grid=(8, 1, 1), block=(32, 1, 1), shared=0, pointers=None))
    assert (err.value.kind, err.value.kernel, err.value.seconds) == ("time limit", "spin", 0.0)
    assert lib.cancels == 3
