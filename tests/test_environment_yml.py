"""environment.yml (conda, repo2docker/Binder) installs what pyproject.toml names, with the same
bounds, and nothing else but Python, pip and the C++ compiler; and the lab it starts, like Binder's
link in the README, serves the repository's root, as `make lab` does (a server rooted in
notebooks/ turns every exercise link into a 404)."""

import re
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
ENVIRONMENT = ROOT / "environment.yml"
ALSO = {"python", "pip", "cxx-compiler"}
"""What environment.yml may have beyond pyproject.toml's dependencies."""


def _requirement(spec: str) -> tuple[str, str]:
    requirement = Requirement(spec)
    return canonicalize_name(requirement.name), str(requirement.specifier)


def _pyproject():
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _environment():
    """(conda's requirements, pip's) of environment.yml."""
    dependencies = yaml.safe_load(ENVIRONMENT.read_text())["dependencies"]
    conda = [d for d in dependencies if isinstance(d, str)]
    pip = next(d["pip"] for d in dependencies if isinstance(d, dict))
    return conda, pip


def _first_notebook():
    return re.search(r"^FIRST_NOTEBOOK := (\S+)$", (ROOT / "Makefile").read_text(), re.M)[1]


def test_environment_yml_has_pyprojects_dependencies_and_their_bounds():
    project, (conda, pip) = _pyproject(), _environment()
    extras = project["optional-dependencies"]
    wanted = dict(map(_requirement, [*project["dependencies"], *extras["test"], *extras["lab"]]))
    local = [line for line in pip if line.startswith("-e ")]
    assert local == ["-e ."]                      # the course's own package
    named = [_requirement(r) for r in conda + [p for p in pip if p not in local]]
    have = dict(named)
    assert len(have) == len(named), "a package named twice"
    assert {name: have.get(name) for name in wanted} == wanted
    assert set(have) - set(wanted) == ALSO
    assert have["python"] == project["requires-python"]
    text = ENVIRONMENT.read_text()
    assert all(f"# - {r}\n" in text for r in extras["gpu"])  # offered, commented out


def test_the_lab_serves_the_repository_root_opened_on_the_first_notebook():
    command = f"jupyter lab --LabApp.default_url=/lab/tree/{_first_notebook()}"
    header = [line for line in ENVIRONMENT.read_text().splitlines() if "jupyter lab" in line]
    assert header == [f"#   conda env create -f environment.yml && conda activate cuda-course "
                      f"&& {command}"]
    readme = (ROOT / "README.md").read_text()
    assert command in readme
    binder = re.findall(r"https://mybinder\.org/v2/gh/[^)\s`]+", readme)
    assert binder and all(b.endswith(f"?urlpath=lab/tree/{_first_notebook()}") for b in binder)
    assert (ROOT / "apt.txt").read_text().split() == ["g++", "binutils"]
