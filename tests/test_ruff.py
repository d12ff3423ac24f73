"""The whole repository, notebooks included, passes `ruff check` with pyproject.toml's rules."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean():
    if importlib.util.find_spec("ruff") is None:
        if os.environ.get("CI"):
            pytest.fail("ruff is not installed but CI is set: install the test extra")
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"ruff check . found problems:\n{p.stdout}{p.stderr}"
