"""helpers.exercises.catalog: the learner's work found under a folder, and a handed-in notebook
that is JSON but not a notebook read as no work at all (never an exception in the grader's own
process, which reads it outside any sandbox: round AV of the red-team audit, AVB-17)."""

import json

import pytest

from helpers.exercises import catalog

PIPELINE = catalog.find("pipeline")
NOT_NOTEBOOKS = {"cells of numbers": {"cells": [1]}, "cells a dict": {"cells": {}},
                 "a list": [], "a string": "cells"}
BAD_SOURCES = {"sources of numbers": [1, 2], "a source a dict": {}}


def _hand_in(root, text):
    path = root / PIPELINE.work
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("content", NOT_NOTEBOOKS.values(), ids=NOT_NOTEBOOKS.keys())
def test_json_that_is_not_a_notebook_is_no_work(tmp_path, content):
    _hand_in(tmp_path, json.dumps(content))
    assert catalog.learner_work(PIPELINE, tmp_path) is None
    assert not catalog.started(PIPELINE, tmp_path)
    assert catalog.notebook_cells(tmp_path / PIPELINE.work) is None


@pytest.mark.parametrize("source", BAD_SOURCES.values(), ids=BAD_SOURCES.keys())
def test_a_code_cell_whose_source_is_not_text_is_no_work(tmp_path, source):
    _hand_in(tmp_path, json.dumps({"cells": [{"cell_type": "code", "source": source}]}))
    assert catalog.learner_work(PIPELINE, tmp_path) is None


def test_json_nested_too_deep_to_read_is_no_work(tmp_path):
    _hand_in(tmp_path, "[" * 100_000 + "]" * 100_000)
    assert catalog.learner_work(PIPELINE, tmp_path) is None
    assert catalog.notebook_cells(tmp_path / PIPELINE.work) is None


def test_a_notebook_gives_its_cells_and_the_exercises_cell(tmp_path):
    cell = {"cell_type": "code", "source": ["def my_pipeline(a):\n", "    return a\n"]}
    _hand_in(tmp_path, json.dumps({"cells": [{"cell_type": "markdown", "source": "x"}, cell]}))
    assert catalog.notebook_cells(tmp_path / PIPELINE.work)[1] == cell
    assert catalog.learner_work(PIPELINE, tmp_path) == "def my_pipeline(a):\n    return a\n"
