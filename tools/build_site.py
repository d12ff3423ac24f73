#!/usr/bin/env python3
"""Build the course's website: every notebook as a page, with the outputs and plots stored from
its run on an H200, for reading before (or without) installing anything.

    python tools/build_site.py OUT [--repository URL]      # make site (SITE=OUT)

Sphinx with MyST-NB and the book theme (the site extra: pip install -e '.[site]'), offline. The
notebooks are never executed: their stored outputs are the point, and a run here would replace
the GPU's figures with a laptop's. Each page keeps the notebook's link to its exercise (a
download of the stub as the course ships it) and gets the theme's buttons to open the notebook
on Colab and on Binder, from ``--repository`` (the GitHub repository the course is published in;
by default pyproject.toml's ``[project.urls] Repository``, OWNER/REPO until the course is
published). The start page is the README's
introduction and its table of notebooks.

The pages are built from a staged copy of what they need (the notebooks, the files they link,
the start page) in a temporary folder, so that Sphinx reads nothing else of the course; the site
replaces ``OUT`` only once it is built.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.exercises import catalog  # noqa: E402 - after the path is set

sys.path.insert(0, str(ROOT / "tools"))
from setup_cell import REPOSITORY  # noqa: E402 - pyproject.toml's [project.urls] Repository
LINK = re.compile(r"\]\(\.\./([^)\s]+)\)")  # a notebook's link to a file of the course
ROW = re.compile(r"^\| `(\d\d_[a-z0-9_]+)` \| (.*) \|$", re.M)


def notebooks(root: Path = ROOT) -> list[Path]:
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def start_page(readme: str) -> str:
    """The README's title, its first paragraph and its table of notebooks, each name a link to
    the notebook's page; the table of contents (hidden: the table is the contents) in order."""
    title, intro = readme.split("\n\n")[:2]
    rows = ROW.findall(readme)
    table = ["| notebook | topic |", "| --- | --- |"] + [
        f"| [{stem}](notebooks/{stem}.ipynb) | {topic} |" for stem, topic in rows]
    toc = ["```{toctree}", ":hidden:", ":maxdepth: 1", ""] + [f"notebooks/{s}" for s, _ in rows]
    return "\n\n".join([title, intro, "\n".join(table), "\n".join(toc + ["```"])]) + "\n"


def linked_files(notebook_text: str) -> set[str]:
    """The course's files a notebook links, as paths from the course's root."""
    return set(LINK.findall(notebook_text))


def stage(source: Path, root: Path = ROOT) -> list[str]:
    """Copy into ``source`` what the pages need; return the notebooks' names. A linked exercise
    stub is written as shipped (a maintainer's checkout may hold a solved one)."""
    shipped = {e.work: catalog.as_shipped(e) for e in catalog.EXERCISES if e.is_kernel}
    (source / "notebooks").mkdir(parents=True)
    names = []
    for notebook in notebooks(root):
        text = notebook.read_text(encoding="utf-8")
        (source / "notebooks" / notebook.name).write_text(text, encoding="utf-8")
        names.append(notebook.stem)
        for link in linked_files(text):
            target = source / link
            target.parent.mkdir(parents=True, exist_ok=True)
            if link in shipped:
                target.write_text(shipped[link])
            elif (root / link).is_file():
                shutil.copyfile(root / link, target)
            else:
                raise SystemExit(f"{notebook.name} links ../{link}, which the course lacks")
    (source / "index.md").write_text(start_page((root / "README.md").read_text()))
    return names


def settings(repository: str) -> dict:
    """Sphinx's configuration (there is no conf.py: this is all of it)."""
    return {
        "project": "CUDA for Python programmers",
        "extensions": ["myst_nb"],
        "nb_execution_mode": "off",  # the stored H200 outputs are shown, never recomputed
        "html_theme": "sphinx_book_theme",
        "html_title": "CUDA for Python programmers",
        "html_theme_options": {
            "repository_url": repository,
            "repository_branch": "main",
            "path_to_docs": "",
            "use_repository_button": True,
            "launch_buttons": {"colab_url": "https://colab.research.google.com",
                               "binderhub_url": "https://mybinder.org",
                               "notebook_interface": "jupyterlab"},
        },
        "exclude_patterns": ["_build"],
    }


def build(out: Path, repository: str = REPOSITORY, root: Path = ROOT) -> list[str]:
    """Build the site into ``out`` (replaced whole once built); return the pages' names."""
    from sphinx.application import Sphinx

    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="site-", dir=out.parent) as work:
        source, html = Path(work) / "source", Path(work) / "html"
        names = stage(source, root)
        app = Sphinx(str(source), None, str(html), str(Path(work) / "doctrees"), "html",
                     confoverrides=settings(repository), status=None, warningiserror=False,
                     freshenv=True)
        app.build()
        if app.statuscode:
            raise SystemExit(f"sphinx-build failed (status {app.statuscode})")
        if out.exists():
            shutil.rmtree(out)
        html.replace(out)
    return names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the site's folder (replaced when built)")
    parser.add_argument("--repository", default=REPOSITORY,
                        help=f"the course's GitHub repository, for Colab and Binder "
                             f"(default {REPOSITORY})")
    args = parser.parse_args(argv)
    start = time.monotonic()
    names = build(args.out, args.repository)
    print(f"built {len(names)} notebook pages into {args.out} in "
          f"{time.monotonic() - start:.0f} s: open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
