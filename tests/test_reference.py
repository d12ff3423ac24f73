"""The H200 figures stored with the course (helpers/reference.py, helpers/data/): every
measurement a notebook draws beside its own is there with its source; beside() records figures
when asked and returns the stored ones on the simulator; tools/store_outputs.py --reference
collects what a notebook run recorded and merges it into the data file."""

import json
import re
import sys

import nbformat
import numpy as np
import pytest

from kernel_sources import ROOT

from helpers import reference
from helpers.backend import BACKEND

sys.path.insert(0, str(ROOT / "tools"))
import store_outputs  # noqa: E402

USED = re.compile(r'reference\.beside\(\s*"([^"]+)"')


def keys_the_notebooks_use():
    keys = set()
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            keys |= set(USED.findall(cell.source))
    return keys


def test_every_measurement_the_notebooks_draw_beside_theirs_is_stored_with_its_source():
    data = reference.load(reference.PATH)
    assert data["device"] and reference.device() in data["device"]
    used = keys_the_notebooks_use()
    assert used, "no notebook calls reference.beside"
    assert used <= set(data["figures"]), f"not stored: {used - set(data['figures'])}"
    for key, entry in data["figures"].items():
        assert entry["source"] and isinstance(entry["values"], dict), key


def test_beside_records_when_asked_and_returns_the_stored_figures_on_the_simulator(
        tmp_path, monkeypatch):
    target = tmp_path / "figures.json"
    monkeypatch.setenv(reference.RECORD_TO, str(target))
    got = reference.beside("03.roofline", {"copy GB/s": np.float64(12.5),
                                          "sizes": np.arange(3), "nested": {"x": np.int32(4)}})
    recorded = json.loads(target.read_text())["figures"]["03.roofline"]["values"]
    assert recorded == {"copy GB/s": 12.5, "sizes": [0, 1, 2], "nested": {"x": 4}}
    if BACKEND == "simulator":
        assert got == reference.stored("03.roofline") and got["copy GB/s"] > 1000
    else:
        assert got is None
    monkeypatch.delenv(reference.RECORD_TO)
    assert reference.stored("no such measurement") is None


def test_store_outputs_reference_collects_a_runs_figures_and_merges_them(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        'from helpers import reference\nreference.beside("test.figures", {"ms": 1.5})')]
    path = tmp_path / "99_test.ipynb"
    facts = {"backend": BACKEND, "device": "Some GPU (compute capability 9.9)", "pycuda": "1"}
    found = {}
    store_outputs.execute_recording(nb, path, 60, facts, found)
    assert found["test.figures"]["values"] == {"ms": 1.5}
    assert "99_test.ipynb" in found["test.figures"]["source"]
    assert "Some GPU" in found["test.figures"]["source"]
    assert reference.RECORD_TO not in __import__("os").environ

    data_file = tmp_path / "data.json"
    reference.save(data_file, {"device": "old", "figures": {"kept": {"source": "s",
                                                                     "values": {"a": 1}}}})
    monkeypatch.setattr(reference, "PATH", data_file)
    monkeypatch.setattr(store_outputs, "ROOT", tmp_path)
    store_outputs.write_reference(found, facts)
    merged = reference.load(data_file)
    assert merged["device"] == facts["device"]
    assert set(merged["figures"]) == {"kept", "test.figures"}


@pytest.mark.skipif(BACKEND != "simulator", reason="the refusal is for runs without a GPU")
def test_store_outputs_refuses_to_record_reference_figures_without_a_gpu(capsys):
    assert store_outputs.main(["--reference", "--allow-simulator",
                               str(ROOT / "notebooks" / "01_hello_cuda.ipynb")]) == 1
    assert "--reference needs a GPU" in capsys.readouterr().err
