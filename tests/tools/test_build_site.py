"""make site (tools/build_site.py): the course's website, built offline from the notebooks' stored
H200 outputs, never executing them; every notebook a page, with its plots, its exercise stub as
shipped, and buttons to open it on Colab and on Binder; and it works in a real headless Chromium.

The build needs the site extra (Sphinx, MyST-NB, the book theme: pip install -e '.[site]'); the
tests that build skip without it and say so."""

import functools
import http.server
import importlib.util
import json
import re
import threading
import urllib.request

import pytest

from kernel_sources import ROOT

from helpers.exercises import catalog

_spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)

NOTEBOOKS = build_site.notebooks()
SHIPPED = {e.work: catalog.as_shipped(e) for e in catalog.EXERCISES if e.is_kernel}
OWNER_REPO = build_site.REPOSITORY.removeprefix("https://github.com/")
BINDER = f"https://mybinder.org/v2/gh/{OWNER_REPO}/main?urlpath=lab/tree/notebooks/{{}}.ipynb"
COLAB = f"https://colab.research.google.com/github/{OWNER_REPO}/blob/main/notebooks/{{}}.ipynb"


def test_the_start_page_lists_every_notebook_from_the_readme_in_order():
    page = build_site.start_page((ROOT / "README.md").read_text())
    assert page.startswith("# CUDA for Python programmers\n\nJupyterLab notebooks that teach")
    linked = re.findall(r"^\| \[(\d\d_\w+)\]\(notebooks/\1\.ipynb\) \| \S", page, re.M)
    contents = re.findall(r"^notebooks/(\d\d_\w+)$", page, re.M)
    assert linked == contents == [p.stem for p in NOTEBOOKS]


def test_a_notebook_links_the_exercise_files_the_site_stages():
    text = (ROOT / "notebooks" / "01_hello_cuda.ipynb").read_text()
    assert build_site.linked_files(text) == {e.work for e in catalog.EXERCISES
                                             if e.notebook == "01_hello_cuda.ipynb"}
    every = set().union(*(build_site.linked_files(p.read_text()) for p in NOTEBOOKS))
    assert set(SHIPPED) <= every  # each kernel exercise's stub, linked by its notebook


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("sphinx", "myst_nb", "sphinx_book_theme"):
        pytest.importorskip(module, reason="make site needs the site extra: "
                            "pip install -e '.[site]'")
    out = tmp_path_factory.mktemp("site") / "html"
    names = build_site.build(out)
    assert names == [p.stem for p in NOTEBOOKS]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_is_a_page_with_its_stored_outputs_exercises_colab_and_binder(
        site, notebook):
    page = (site / "notebooks" / f"{notebook.stem}.html").read_text()
    cells = json.loads(notebook.read_text())["cells"]
    printed = [line for c in cells if c["cell_type"] == "code" for o in c["outputs"]
               if o.get("name") == "stdout" for line in "".join(o["text"]).splitlines()
               if re.fullmatch(r"[\w ,.:()=-]{20,}", line)]
    assert printed and printed[0] in page, "the stored output is not on the page"
    assert BINDER.format(notebook.stem) in page and COLAB.format(notebook.stem) in page
    for link in build_site.linked_files(notebook.read_text()):
        download = re.search(rf'href="\.\./(_downloads/\w+/{re.escape(link.split("/")[-1])})"',
                             page)
        assert download, f"no link to {link}"
        expected = SHIPPED.get(link) or (ROOT / link).read_text()
        assert (site / download[1]).read_text() == expected


@pytest.fixture(scope="module")
def served(site):
    """The site over HTTP on a free localhost port, as a web server would serve it."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.mark.slow
def test_in_a_browser_the_site_shows_the_pages_plots_and_links(served, tmp_path):
    """Headless Chromium opens the start page, follows its link to notebook 03, and finds the
    Mandelbrot page with its plots loaded, the stored H200 output, the exercise's stub to
    download (its text as shipped), and the Colab and Binder buttons. Screenshots of both pages
    are left in the test's folder, for a person to look at."""
    from browser import Browser, find_chromium

    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no chromium here: install Debian's chromium package to run this test")
    for notebook in NOTEBOOKS:  # every page is served
        with urllib.request.urlopen(f"{served}/notebooks/{notebook.stem}.html") as response:
            assert response.status == 200
    browser = Browser(chromium, tmp_path / "profile")
    anchor = "document.querySelector('a[href=\"notebooks/03_mandelbrot.html\"]')"
    plots = ("Array.from(document.querySelectorAll('.cell_output img'))"
             ".map(i => i.complete && i.naturalWidth)")
    stub = "document.querySelector('a[href$=\"/julia.cu\"]')"
    hrefs = "Array.from(document.querySelectorAll('a')).map(a => a.href)"
    try:
        browser.send("Page.navigate", url=f"{served}/index.html")
        titles = browser.wait_for("Array.from(document.querySelectorAll('td a'))"
                                  ".map(a => a.textContent)", what="the table of notebooks")
        browser.screenshot(tmp_path / "site-index.png")
        browser.evaluate(f"{anchor}.click()")
        browser.wait_for("location.pathname.endsWith('/notebooks/03_mandelbrot.html')"
                         " && document.readyState === 'complete'", what="notebook 03's page")
        loaded = browser.wait_for(f"{plots}.length && {plots}.every(w => w > 0) && {plots}",
                                  what="the plots, loaded")
        text = browser.evaluate("document.querySelector('main').innerText")
        stub_text = browser.evaluate(f"fetch({stub}.href).then(r => r.text())")
        links = browser.evaluate(hrefs)
        browser.evaluate(f"{stub}.scrollIntoView({{block: 'center'}})")
        browser.screenshot(tmp_path / "site-mandelbrot.png")
    except Exception:
        browser.screenshot(tmp_path / "site.png")
        raise
    finally:
        browser.close()
    assert titles == [p.stem for p in NOTEBOOKS]
    assert len(loaded) >= 3
    assert "Backend: PyCUDA on NVIDIA H200" in text
    assert stub_text == SHIPPED["cuda_src/exercises/julia.cu"]
    assert BINDER.format("03_mandelbrot") in links and COLAB.format("03_mandelbrot") in links
