"""A headless Chromium driven through the DevTools protocol (Debian's ``chromium`` package and
``websocket-client``): enough to open a page, run JavaScript in it and wait for what it shows."""

import itertools
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket


def find_chromium():
    """The path of a Chromium executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with one page; ``evaluate(js)`` and ``wait_for(js)``."""

    def __init__(self, executable, profile: Path):
        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run", "--remote-debugging-port=0",
             "--remote-allow-origins=*", "--window-size=1400,1000",
             f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port = self._debugging_port(profile / "DevToolsActivePort")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=10) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
        self._ids = itertools.count(1)

    def _debugging_port(self, file, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.process.returncode}")
            if file.is_file() and file.read_text().strip():
                return int(file.read_text().split()[0])
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its DevTools port")

    def send(self, method, **params):
        """Call a DevTools method and return its result (events in between are skipped)."""
        call_id = next(self._ids)
        self.socket.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60, what=None):
        """Evaluate ``expression`` until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        raise TimeoutError(f"waited {timeout} s for {what or expression}")

    def screenshot(self, path: Path):
        import base64

        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot")["data"]))

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
