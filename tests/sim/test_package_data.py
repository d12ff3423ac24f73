"""What an installed copy of the course holds (pyproject.toml's package data)."""

from pathlib import Path

import pytest


def test_an_installed_copy_of_the_helpers_has_every_file_the_simulator_compiles():
    """pip install . (not editable) copies the package data pyproject.toml names: every header
    and runner source in helpers/sim/include must be among it."""
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[2]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["helpers"]
    helpers = root / "helpers"
    shipped = {p for pattern in globs for p in helpers.glob(pattern)}
    include = helpers / "sim" / "include"  # with its folders (cooperative_groups/)
    missing = [p.relative_to(include).as_posix() for p in include.rglob("*")
               if p.is_file() and p not in shipped]
    assert not missing, f"add these to [tool.setuptools.package-data] in pyproject.toml: {missing}"
