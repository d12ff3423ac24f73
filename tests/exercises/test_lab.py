"""The learner's workflow in JupyterLab: make lab's server serves the whole course, each notebook
links its exercise's stub (a plain link, which the lab shows as one), a stub saved through the
server is what the checker then checks, and (in a real headless Chromium) the link in notebook 01
opens the stub in JupyterLab's editor as C++, highlighted (the course's extension in
lab/labextensions/), with no news pop-up over it (lab/settings/overrides.json)."""

import json
import os
import shutil
import urllib.parse

import pytest

from kernel_sources import ROOT, solution
from lab_server import LabServer

from helpers.exercises import catalog
from helpers.exercises.scale_vector import check_scale_vector

NOTEBOOKS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("*.ipynb"))
KERNEL_EXERCISES = [e for e in catalog.EXERCISES if e.is_kernel]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not os.environ.get("CI"):
        pytest.importorskip("jupyterlab", reason="make lab's server needs jupyterlab "
                            "(pip install -e '.[test]' installs it)")
    server = LabServer(tmp_path_factory.mktemp("lab"))
    yield server
    server.stop()


def contents(lab, path):
    return lab.api("GET", "/api/contents/" + urllib.parse.quote(path) + "?content=1")


def test_make_lab_serves_the_repository_and_opens_on_the_first_notebook(lab):
    assert "--ServerApp.root_dir=" in lab.command and str(ROOT) in lab.command
    assert "--LabApp.default_url=/lab/tree/notebooks/01_hello_cuda.ipynb" in lab.command
    names = {item["name"] for item in contents(lab, "")["content"]}
    assert {"notebooks", "cuda_src", "helpers"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS + [e.work for e in KERNEL_EXERCISES])
def test_every_notebook_and_exercise_file_opens_through_the_server(lab, path):
    model = contents(lab, path)
    assert model["path"] == path
    if path.endswith(".ipynb"):
        assert model["type"] == "notebook" and model["content"]["cells"]
    else:
        assert model["type"] == "file" and model["format"] == "text"
        assert model["content"] == (ROOT / path).read_text()


@pytest.mark.parametrize("exercise", KERNEL_EXERCISES, ids=lambda e: e.name)
def test_each_exercise_notebook_links_its_stub(exercise):
    """A plain link, its text the stub's path: inside a link, inline code (`path`) is shown as
    code, and a learner does not see that it can be clicked."""
    cells = json.loads((ROOT / "notebooks" / exercise.notebook).read_text())["cells"]
    link = f"[{exercise.work}](../{exercise.work})"
    assert any(link in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"), (
        f"{exercise.notebook} has no markdown link {link}")


def test_the_lab_asks_for_no_news(lab):
    """JupyterLab asks, in a pop-up over the notebook, whether to fetch "official Jupyter news";
    make lab's settings answer no for the learner (the default the Settings Editor shows)."""
    schema = lab.api("GET", "/lab/api/settings/@jupyterlab/apputils-extension:notification")
    assert schema["schema"]["properties"]["fetchNews"]["default"] == "false"


def test_a_file_saved_through_the_server_is_what_the_checker_checks(lab, capsys):
    """The server writes where the checker reads: a kernel saved through it, into the repository,
    passes its checker. Saved beside the course's files, never over the stub, which other tests
    read at the same time (notebook 01's stored verdict among them)."""
    path = f"tests/saved/{os.getpid()}/scale_vector.cu"
    try:
        lab.api("PUT", "/api/contents/tests/saved", {"type": "directory"})
        lab.api("PUT", f"/api/contents/tests/saved/{os.getpid()}", {"type": "directory"})
        lab.api("PUT", "/api/contents/" + path,
                {"type": "file", "format": "text", "content": solution("scale_vector.cu")})
        assert (ROOT / path).read_text() == solution("scale_vector.cu")
        assert check_scale_vector(str(ROOT / path)).passed, capsys.readouterr().out
    finally:
        shutil.rmtree(ROOT / "tests" / "saved" / str(os.getpid()), ignore_errors=True)


@pytest.mark.slow
def test_in_a_browser_the_link_in_notebook_01_opens_the_stub_in_the_editor_as_cpp(lab, tmp_path):
    """Headless Chromium (Debian's chromium; .ci/run installs it) opens the lab on notebook 01,
    where the exercise's link is shown as a link (the lab's link colour, not code); clicking it
    opens the scale_vector stub in the editor, as C++ (CodeMirror's language "cpp"), highlighted;
    and no news pop-up covers the page. Screenshots of both, for a person to look at, are left in
    the test's folder (lab-notebook.png, lab-editor.png; pytest keeps its last three runs')."""
    from browser import Browser, find_chromium

    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium on this CI machine: .ci/run should have installed it "
                        "(apt-get install chromium)")
        pytest.skip("no chromium here: install Debian's chromium package to run this test")
    browser = Browser(chromium, tmp_path / "profile")
    link = "document.querySelector('.jp-Notebook a[href*=\"exercises/scale_vector.cu\"]')"
    editor = "document.querySelector('.jp-FileEditor .cm-content')"
    toasts = "Array.from(document.querySelectorAll('.Toastify__toast')).map(e => e.textContent)"
    try:
        browser.send("Page.navigate", url=f"{lab.url}/lab/tree/notebooks/01_hello_cuda.ipynb"
                                          f"?token={lab.token}")
        # scrolled down to it, as a learner does: JupyterLab renders the cells out of view when
        # the browser is idle, which a headless one seldom is (the link, in cell 40 of 44,
        # showed 15 to 20 s after the page was asked for; scrolled to, in 6 s)
        notebook = "document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer')"
        browser.wait_for(f"(() => {{ const o = {notebook}; if (o) o.scrollTop = o.scrollHeight;"
                         f" return {link} !== null; }})()", what="notebook 01's link to its stub")
        browser.evaluate(f"{link}.scrollIntoView({{block: 'center'}})")
        shown = browser.evaluate(
            f"(() => {{ const a = {link}, p = a.closest('p'), style = getComputedStyle(a);"
            " return {code: a.querySelector('code') !== null, color: style.color,"
            " text: getComputedStyle(p).color,"
            " linkColor: getComputedStyle(document.body)"
            ".getPropertyValue('--jp-content-link-color').trim()}; })()")
        browser.screenshot(tmp_path / "lab-notebook.png")
        assert not browser.evaluate(f"{editor} !== null"), "an editor was open before the click"
        browser.evaluate(f"{link}.click()")
        text = browser.wait_for(f"{editor} && {editor}.textContent", what="the stub in an editor")
        language = browser.wait_for(f"{editor}.getAttribute('data-language')",
                                    what="the editor's language")
        highlighted = browser.wait_for(
            f"{editor}.querySelectorAll('.cm-line span').length", what="highlighted tokens")
        tabs = browser.evaluate("Array.from(document.querySelectorAll('.lm-TabBar-tabLabel'))"
                                ".map(e => e.textContent)")
        popups = browser.evaluate(toasts)
        browser.screenshot(tmp_path / "lab-editor.png")
    except Exception:
        browser.screenshot(tmp_path / "lab.png")  # for a person to look at
        raise
    finally:
        browser.close()
    assert not shown["code"] and shown["linkColor"], shown
    assert shown["color"] != shown["text"], f"the link has the prose's colour: {shown}"
    assert "scale_vector.cu" in tabs
    assert "__global__ void scale_vector(const float *x, float *y, float alpha, int n)" in text
    assert "// Exercise: scale a vector" in text
    assert language == "cpp" and highlighted > 0
    assert not [p for p in popups if "news" in p], popups
