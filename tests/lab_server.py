"""Start the JupyterLab server that ``make lab`` starts (its command from ``make lab-command``) on
a free localhost port, for the tests that talk to it."""

import json
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """``make lab``'s server, with a token of the test's own; ``api(method, path, body)``."""

    def __init__(self, workdir: Path, token="course-test-token"):
        self.port, self.token = free_port(), token
        self.url = f"http://127.0.0.1:{self.port}"
        command = subprocess.run(
            ["make", "-s", "--no-print-directory", "lab-command", f"VENV={sys.prefix}",
             f"PORT={self.port}", "HOST=127.0.0.1", "NO_BROWSER=1",
             # checkpoints in the test's own folder, not .ipynb_checkpoints/ in the course
             f"LAB_ARGS=--IdentityProvider.token={token} "
             f"--FileContentsManager.checkpoints_kwargs=root_dir={workdir / 'checkpoints'}"],
            cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
        self.command = command
        # The test's own runtime, workspaces and user settings: a tester's own lab settings
        # (fetchNews, say) must not change what the course's lab shows. Autosave off: a notebook
        # the browser test opens takes the kernel's name and Python version into its metadata,
        # which JupyterLab saved into the course's own notebook 01 when the test ran past the
        # autosave interval (two minutes, in a cold run on two cores).
        settings = workdir / "user-settings" / "@jupyterlab" / "docmanager-extension"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
        env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
                   JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
                   JUPYTERLAB_SETTINGS_DIR=str(workdir / "user-settings"))
        self.log = open(workdir / "lab.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(shlex.split(command), cwd=ROOT, env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_until_up(workdir / "lab.log")

    def _wait_until_up(self, log, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"make lab's server exited: {log.read_text()[-3000:]}")
            try:
                self.api("GET", "/api/status")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"make lab's server did not answer in {timeout} s: "
                           f"{log.read_text()[-3000:]}")

    def api(self, method, path, body=None):
        """JSON from the server's REST API."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
