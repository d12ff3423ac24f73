"""Kernel printf must show in the notebook cell that launched the kernel, on either backend."""

import os

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.backend import CUDA_SRC


@pytest.mark.slow
def test_kernel_printf_appears_in_the_launching_cell(monkeypatch):
    # ipykernel forwards fd 1 into cells except under pytest (it looks for this variable).
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    # this checkout's helpers first in the kernel, whose folder (notebooks/) is not the repository
    # (else an editable install of another checkout, in a worktree sharing its venv, compiled it)
    monkeypatch.setenv("PYTHONPATH", str(CUDA_SRC.parent), prepend=os.pathsep)
    cells = [
        "from helpers.backend import compile_cu, drv\nhello = compile_cu('hello.cu').get_function('hello')",
        "hello(block=(2, 1, 1), grid=(2, 1))\ndrv.Context.synchronize()\nprint('after the launch')",
        "print('next cell')",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=300,
                   resources={"metadata": {"path": str(CUDA_SRC.parent / "notebooks")}}).execute()
    text = lambda cell: "".join(o.get("text", "") for o in cell.outputs)  # noqa: E731
    launch = text(nb.cells[1])
    assert launch.count("Hello from block") == 4, launch
    assert "Hello from block" not in text(nb.cells[2])


def test_a_launch_waits_until_jupyter_has_read_what_it_printed(monkeypatch):
    # In a Jupyter kernel fd 1 is a pipe that a thread of ipykernel drains into the running cell;
    # a launch returns only once the pipe is empty, or the lines could land in the next cell.
    import os
    import threading
    import time
    import types

    from helpers.sim.run import printed

    read_end, write_end = os.pipe()
    os.write(write_end, b"Hello from block 0, thread 0\n")
    drained = []

    def ipykernel_thread():
        time.sleep(0.2)                     # a busy machine: the thread gets to it late
        drained.append(os.read(read_end, 1024))

    monkeypatch.setattr("sys.stdout", types.SimpleNamespace(_fid=read_end))
    thread = threading.Thread(target=ipykernel_thread)
    thread.start()
    try:
        printed.wait_until_forwarded()
        assert drained == [b"Hello from block 0, thread 0\n"]
    finally:
        thread.join()
        os.close(read_end)
        os.close(write_end)
