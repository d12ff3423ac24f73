"""tools/feedback.py: a student's feedback tells every exercise by its status, with the
compiler's first error where there is one, in Markdown and in HTML that escapes what a student
wrote; the command rescores a grades.csv with new points without running a checker."""

import subprocess
import sys

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import feedback  # noqa: E402
import gradebook  # noqa: E402

ROWS = [
    {"student": "ada", "exercise": "julia", "result": "pass", "status": "passed",
     "problem": "every pixel matches", "hint": "", "error": "", "seconds": "1.0"},
    {"student": "ada", "exercise": "sepia", "result": "fail", "status": "not yet",
     "problem": "cuda_src/exercises/sepia.cu does not compile",
     "hint": "read the compiler's first error: it names the file and line",
     "error": "cuda_src/exercises/sepia.cu:3:1: error: expected ';' before '<script>'",
     "seconds": "1.0"},
    {"student": "ada", "exercise": "matmul_bt", "result": "fail", "status": "not handed in",
     "problem": "not handed in: cuda_src/exercises/matmul_bt.cu is missing", "hint": "hand it in",
     "error": "", "seconds": "0.0"},
    {"student": "ada", "exercise": "box_blur", "result": "fail", "status": "not started",
     "problem": "not started: the stub is as shipped", "hint": "edit it", "error": "",
     "seconds": "0.0"},
]


def scored(points=None):
    return gradebook.scored(ROWS, points or gradebook.load_points())


def test_every_status_has_its_words():
    assert set(feedback.TITLES) == set(gradebook.STATUSES)


def test_the_markdown_tells_every_exercise_and_the_first_error():
    text = feedback.markdown("ada", scored())
    assert "Score: **1 of 4** points." in text
    for heading in ("## julia: passed, 1 of 1 point", "## sepia: not yet, 0 of 1 point",
                    "## matmul\\_bt: not handed in, 0 of 1 point",
                    "## box\\_blur: not started, 0 of 1 point"):
        assert heading in text, text
    assert "**First error:**\n\n```\ncuda_src/exercises/sepia.cu:3:1: error: expected ';' " \
           "before '<script>'\n```" in text
    assert "**What was checked:** every pixel matches" in text


def test_the_page_escapes_what_the_student_wrote():
    page = feedback.page("<ada>", scored())
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<h1>Feedback for &lt;ada&gt;</h1>" in page
    assert "<pre>cuda_src/exercises/sepia.cu:3:1: error:" in page


def test_the_command_rescores_a_grades_csv_and_writes_the_feedback(tmp_path):
    out = tmp_path / "grades.csv"
    feedback.publish(ROWS, out, gradebook.load_points())
    (tmp_path / "points.json").write_text('{"julia": 3}')
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "feedback.py"), str(out),
                          "--points", str(tmp_path / "points.json")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert gradebook.read(out)[0]["score"] == "3"
    assert (tmp_path / "grades.gradebook.csv").read_text().splitlines()[1] == "ada,3,3,6,3,0,0,0"
    assert "Score: **3 of 6** points." in (tmp_path / "grades.feedback" / "ada.md").read_text()
    assert (tmp_path / "grades.feedback" / "ada.html").is_file()


SPEED_ROWS = [
    {"student": "bo", "exercise": "box_blur", "result": "pass", "status": "fast",
     "problem": "the blur matches NumPy; 3.0 global load requests a warp", "hint": "",
     "error": "", "slow": "", "seconds": "1.0"},
    {"student": "bo", "exercise": "matmul_bt", "result": "pass", "status": "passed",
     "problem": "C = A @ Bt.T", "hint": "load Bt's tile along its rows", "error": "",
     "slow": "16.0 sectors a request, where FAST takes 4", "seconds": "1.0"},
]


def test_a_fast_kernel_and_one_short_of_fast_both_score_and_say_so():
    rows = gradebook.scored(SPEED_ROWS, gradebook.load_points())
    assert [row["score"] for row in rows] == ["1", "1"]
    text = feedback.markdown("bo", rows)
    assert "## box\\_blur: passed, FAST, 1 of 1 point" in text, text
    assert "## matmul\\_bt: passed, 1 of 1 point" in text, text
    assert "**Not yet FAST:** 16.0 sectors a request, where FAST takes 4" in text, text
    assert "**Hint:** load Bt's tile along its rows" in text, text
    assert 'class="passed">box_blur: passed, FAST' in feedback.page("bo", rows)


def crashed(**texts):
    """A scored 'crashed' row of split_sum with the student-derived ``texts``."""
    row = {"student": "mal", "exercise": "split_sum", "result": "fail", "status": "crashed",
           "problem": "the checker's process died", "hint": "look", "error": "", "seconds": "0.4"}
    return gradebook.scored([{**row, **texts}], gradebook.load_points())


def test_a_fence_in_the_first_error_never_closes_the_code_block():
    """The last line a crashed checker printed was ``` (round AV of the red-team audit, AVB-21):
    the block's fence is longer than any run of backticks inside it."""
    for error in ("```", "a ```` b", "`"):
        text = feedback.exercise_markdown(crashed(error=error)[0])
        fence = text.split("**First error:**\n\n")[1].split("\n")[0]
        assert set(fence) == {"`"} and len(fence) > max(map(len, error.split(" "))), text
        assert text.endswith(f"\n{fence}\n{error}\n{fence}"), text


def test_a_students_text_makes_no_heading_or_other_structure():
    """An exception's message with blank lines and a setext heading's underline (AVB-22) stays
    on the one line of its label, its Markdown characters escaped."""
    forged = ("your function raised RuntimeError: \n\nScore: 42 of 42 points. All passed\n"
              "==========\n\nsplit\\_sum: passed, 1 of 1 point\n-----\n\n- [x](http://a) !~+")
    text = feedback.markdown("mal", crashed(problem=forged, hint="a\r\nb\u2028# c"))
    problem = next(line for line in text.splitlines() if line.startswith("**Problem:**"))
    assert "Score: 42 of 42 points" in problem and "\\=\\=\\=" in problem, text
    assert "\\- \\[x\\]\\(http://a\\) \\!\\~\\+" in problem, text
    assert "**Hint:** a b \\# c" in text, text
    assert not any(line.startswith(("=", "-", "#", "Score: 42")) for line in text.splitlines()
                   if not line.startswith("# Feedback") and not line.startswith("## ")), text


def test_a_student_named_with_a_newline_makes_no_heading():
    text = feedback.markdown("mal\n# Score: 42", crashed())
    assert text.startswith("# Feedback for mal \\# Score: 42\n"), text
