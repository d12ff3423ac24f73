"""Where the course's files are found (helpers/course.py): the working folder and its parents
first, then CUDA_COURSE_ROOT, then the package's parent; and an error naming every folder
searched when none holds them. (tests/test_installed.py tries it with the package installed by
pip, as a class's JupyterHub has it.)"""

import pytest

from helpers import course, settings


def _course(folder):
    for mark in course.MARKS:
        (folder / mark).mkdir(parents=True)
    return folder


def test_the_working_folder_and_its_parents_come_first(tmp_path):
    mine, installed = _course(tmp_path / "mine"), _course(tmp_path / "checkout")
    other = _course(tmp_path / "other")
    assert course.root(mine / "notebooks", str(other), installed) == mine
    assert course.root(mine, str(other), installed) == mine


def test_the_setting_then_the_package_parent(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    mine, installed = _course(tmp_path / "mine"), _course(tmp_path / "checkout")
    assert course.root(outside, str(mine), installed) == mine
    assert course.root(outside, "", installed) == installed


def test_no_course_anywhere_names_the_folders_searched(tmp_path):
    outside, site = tmp_path / "home" / "me", tmp_path / "site-packages"
    outside.mkdir(parents=True)
    site.mkdir()
    with pytest.raises(course.CourseNotFound) as caught:
        course.root(outside, "", site)
    assert caught.value.searched == [outside, *outside.parents, site]
    assert caught.value.setting == ""
    assert settings.COURSE_ROOT in str(caught.value)


def test_a_setting_that_holds_no_course_is_an_error_not_passed_over(tmp_path):
    outside, wrong = tmp_path / "elsewhere", tmp_path / "not-the-course"
    outside.mkdir()
    wrong.mkdir()
    installed = _course(tmp_path / "checkout")
    with pytest.raises(course.CourseNotFound) as caught:
        course.root(outside, str(wrong), installed)
    assert caught.value.searched[-1] == wrong and installed not in caught.value.searched
    assert caught.value.setting == str(wrong)


def test_the_backend_and_the_checkers_look_when_asked(tmp_path, monkeypatch):
    """CUDA_SRC and a checker's stub are looked for when asked for, from the folder the process
    is in now (a notebook's kernel starts in the notebook's folder); importing the backend needs
    no course."""
    import helpers.backend as backend
    from helpers.exercises.scale_vector import check_scale_vector

    mine = _course(tmp_path / "mine")
    monkeypatch.chdir(mine / "notebooks")
    monkeypatch.delenv(settings.COURSE_ROOT, raising=False)
    assert backend.CUDA_SRC == mine / "cuda_src"
    with pytest.raises(FileNotFoundError, match="scale_vector.cu"):
        backend.read_cu("exercises/scale_vector.cu")
    monkeypatch.setattr(course, "PACKAGE_PARENT", tmp_path / "site-packages")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(course.CourseNotFound) as caught:
        check_scale_vector()
    assert caught.value.searched[0] == tmp_path
    assert caught.value.searched[-1] == tmp_path / "site-packages"
