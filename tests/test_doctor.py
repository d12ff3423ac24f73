"""`python -m helpers.doctor` always finishes and reports every section."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ["Python", "Course files", "C++ compiler", "nvcc", "NVIDIA driver", "PyCUDA", "CUDA device", "Backend",
            "OpenCL"]


def doctor(**env):
    full_env = dict(os.environ, **env)
    p = subprocess.run([sys.executable, "-m", "helpers.doctor"], cwd=ROOT, env=full_env,
                       capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def section_lines(out):
    """{label: line} for the report lines (they start with ok, -- or !!)."""
    found = {}
    for line in out.splitlines():
        if line[:2] in ("ok", "--", "!!"):
            for s in SECTIONS:
                if line[4:].startswith(s):
                    found.setdefault(s, line)
    return found


@pytest.fixture(scope="module")
def report():
    """The doctor's report in this environment: read by more than one test, run once."""
    return doctor()


def test_doctor_reports_every_section(report):
    rc, out, err = report
    assert rc == 0, f"doctor exited {rc}:\n{out}\n{err}"
    assert "Traceback" not in out + err, out + err
    lines = section_lines(out)
    assert set(lines) == set(SECTIONS), f"missing sections {set(SECTIONS) - set(lines)}:\n{out}"
    assert lines["Python"].startswith("ok"), out
    # Every problem line says what to do (after a colon).
    for line in out.splitlines():
        if line.startswith("!!"):
            assert ": " in line[18:], f"problem line without advice: {line}"


def test_doctor_explains_a_missing_compiler(tmp_path):
    # A PATH with no compiler, no nvcc and no nvidia-smi: the doctor must say what to install,
    # not crash. (It finds this Python through sys.executable, not PATH.)
    rc, out, err = doctor(PATH=str(tmp_path), CXX="")
    assert rc == 0, f"doctor exited {rc}:\n{out}\n{err}"
    assert "Traceback" not in out + err, out + err
    line = section_lines(out)["C++ compiler"]
    assert line.startswith("!!") and "missing" in line and "apt install g++" in line, line


def test_doctor_survives_a_bad_backend_setting():
    rc, out, err = doctor(CUDA_COURSE_BACKEND="no-such-backend")
    assert rc == 0, f"doctor exited {rc}:\n{out}\n{err}"
    assert "Traceback" not in out + err, out + err
    bad = [ln for ln in out.splitlines() if ln.startswith("!!") and "no-such-backend" in ln]
    assert bad and "auto, pycuda or simulator" in bad[0], out


def opencl_lines(out):
    return [ln for ln in out.splitlines() if ln[4:].startswith("OpenCL")]


def test_doctor_lists_the_opencl_platforms_and_the_one_notebook_12_uses(report):
    rc, out, err = report
    lines = opencl_lines(out)
    assert any(ln.startswith("ok") and "Oclgrind Simulator" in ln for ln in lines), out
    assert lines[-1].startswith("ok") and "notebook 12 runs on " in lines[-1], out


def test_doctor_explains_a_pyopencl_that_does_not_load(tmp_path):
    # A pyopencl package that fails to import, ahead of the real one on the path.
    (tmp_path / "pyopencl").mkdir()
    (tmp_path / "pyopencl" / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    rc, out, err = doctor(PYTHONPATH=str(tmp_path))
    assert rc == 0 and "Traceback" not in out + err, out + err
    line = opencl_lines(out)[0]
    assert line.startswith("!!") and "broken on purpose" in line and "pip install" in line, line


def test_doctor_says_where_the_course_is_or_where_it_looked(tmp_path, monkeypatch, capsys):
    from helpers import course, doctor as doc

    monkeypatch.setattr(doc, "_problems", [])
    monkeypatch.delenv("CUDA_COURSE_ROOT", raising=False)
    monkeypatch.chdir(ROOT / "notebooks")
    doc.check_course()
    assert capsys.readouterr().out.split() == ["ok", "Course", "files", str(ROOT)]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUDA_COURSE_ROOT", str(tmp_path / "nothing-here"))
    doc.check_course()
    line = capsys.readouterr().out
    assert line.startswith("!!  Course files") and doc._problems == ["Course files"]
    with pytest.raises(course.CourseNotFound) as caught:
        course.root()
    assert str(caught.value) in line
