"""tools/collect.py takes only real files in real folders: a work file that is a symbolic link
(to another student's file, to the instructor's solution), or reached through one out of the
student's folder, and a student's folder that is a link, are skipped, and the instructor is
told which student and why (round AV of the red-team audit, AVB-23 and AVB-24). What it copies
of a whole class: test_grading_class.py."""

import sys

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import collect  # noqa: E402

WORK = "cuda_src/exercises/scale_vector.cu"
KERNEL = "// alice's kernel\n"


def _class(tmp_path):
    """alice with her kernel; the folder of students, and a file outside it ("the solution")."""
    students = tmp_path / "students"
    (students / "alice" / WORK).parent.mkdir(parents=True)
    (students / "alice" / WORK).write_text(KERNEL)
    (tmp_path / "solution.cu").write_text("// the instructor's solution\n")
    return students


def test_a_work_file_that_is_a_link_is_skipped_and_reported(tmp_path, capsys):
    students = _class(tmp_path)
    (students / "mallory" / "cuda_src" / "exercises").mkdir(parents=True)
    (students / "mallory" / WORK).symlink_to("../../../alice/" + WORK)
    (students / "mallory" / "cuda_src/exercises/add_into.cu").symlink_to(tmp_path / "solution.cu")
    handed_in = collect.collect(students, tmp_path / "out")
    assert handed_in == {"alice": ["scale_vector"], "mallory": []}
    assert not (tmp_path / "out" / "mallory" / "cuda_src").exists()
    warned = capsys.readouterr().err
    for name in ("scale_vector.cu", "add_into.cu"):
        assert f"mallory: cuda_src/exercises/{name} is a symbolic link" in warned, warned


def test_a_file_reached_through_a_link_out_of_the_folder_or_a_loose_link_is_skipped(tmp_path,
                                                                                   capsys):
    students = _class(tmp_path)
    (tmp_path / "elsewhere" / "exercises").mkdir(parents=True)
    (tmp_path / "elsewhere" / "exercises" / "scale_vector.cu").write_text("// not mallory's\n")
    (students / "mallory" / "loose").mkdir(parents=True)
    (students / "mallory" / "cuda_src").symlink_to(tmp_path / "elsewhere")
    (students / "mallory" / "loose" / "add_into.cu").symlink_to(tmp_path / "solution.cu")
    assert collect.collect(students, tmp_path / "out")["mallory"] == []
    warned = capsys.readouterr().err
    assert f"mallory: {WORK} is reached through a symbolic link" in warned, warned
    assert "mallory: loose/add_into.cu is a symbolic link" in warned, warned


def test_a_student_folder_that_is_a_link_is_skipped_and_reported(tmp_path, capsys):
    students = _class(tmp_path)
    (students / "eve").symlink_to("alice")
    assert collect.collect(students, tmp_path / "out") == {"alice": ["scale_vector"]}
    assert not (tmp_path / "out" / "eve").exists()
    assert "eve is a symbolic link (to alice)" in capsys.readouterr().err
