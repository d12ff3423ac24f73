"""PyCUDA's own tutorial, examples and tests, run unchanged, with a pass count for each.

    python tools/pycuda_suite.py                         # PyCUDA's source release from PyPI
    python tools/pycuda_suite.py --sdist pycuda-2026.1.tar.gz
    python tools/pycuda_suite.py --json results.json     # also write the results as JSON

Everything runs through `python -m helpers.sim`, the documented way to run a plain PyCUDA
program here: on a machine where PyCUDA finds a GPU it is the real PyCUDA (so this shows what a
GPU passes), elsewhere the course's CPU simulator. The source release (pycuda-2026.1.tar.gz)
comes from PyPI with `pip download` into the course's cache folder, once; --sdist (or the
environment variable PYCUDA_SDIST) names a copy instead.

- tutorial: the code blocks of doc/tutorial.rst, run in order in one namespace, as a reader
  would type them into a notebook (one setup line: `import struct`, which the tutorial's
  Structures section uses without importing it);
- examples: examples/*.py, each as a program;
- test_driver.py and test_gpuarray.py: PyCUDA's pytest files, test by test.

Parts that need a feature the simulator does not have (textures, cuRAND, dynamic parallelism,
other GPU libraries) are listed as unsupported, with the feature, and left out of the
percentages on the simulator. On a GPU they run like the rest.
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.sim.unsupported import (  # noqa: E402
    CURAND, DYNAMIC_PARALLELISM, GPU_BINARIES, TEXTURES)

VERSION = "2026.1"
# The simulated device's size for this run: PyCUDA's 4.5 GB tests skip. Every part has the same
# outcomes with 1 GiB as with 2; examples/fill_gpu_with_nans.py fills the whole device, and 2 GiB
# of new pages took 4 s of the kernel's time on the 2-core machine, 1 GiB 0.2 s.
SIM_MEMORY = "1G"
TIMEOUT = 900

# What the simulator does not have, for the parts that need it.
UNSUPPORTED = {
    "tutorial": {"import cupy": "CuPy (a GPU library)",
                 "from numba import cuda": "Numba's CUDA target (a GPU)"},
    "examples": {"cai_cupy_arrays.py": "CuPy (a GPU library)",
                 "cai_numba.py": "Numba's CUDA target (a GPU)",
                 "demo_cdpSimplePrint.py": DYNAMIC_PARALLELISM},
    "test_driver.py": {
        **dict.fromkeys([
            "test_2d_texture", "test_multiple_2d_textures", "test_multichannel_2d_texture",
            "test_multichannel_linear_texture", "test_2d_fp_textures",
            "test_2d_fp_textures_layered", "test_3d_fp_textures", "test_3d_fp_surfaces",
            "test_2d_fp_surfaces", "test_3d_texture", "test_fp_textures"], TEXTURES),
        "test_recursive_launch": DYNAMIC_PARALLELISM,
        "test_jit_link_module": f"{DYNAMIC_PARALLELISM} and {GPU_BINARIES}"},
    "test_gpuarray.py": {
        **dict.fromkeys(["test_curand_wrappers", "test_curand_wrappers_8gb",
                         "test_curand_wrappers_16gb"], CURAND),
        **dict.fromkeys(["test_take", "test_take_put"], TEXTURES)},
}
TEST_FILES = ["test_driver.py", "test_gpuarray.py"]


# ---- the source release -----------------------------------------------------------------------
def cache_folder():
    from helpers.sim.compile import cache
    return cache.folder().parent / "pycuda-source"


def find_sdist(given):
    """The path of pycuda-VERSION.tar.gz: given, $PYCUDA_SDIST, or downloaded with pip."""
    given = given or os.environ.get("PYCUDA_SDIST")
    if given:
        return Path(given)
    folder = cache_folder()
    sdist = folder / f"pycuda-{VERSION}.tar.gz"
    if not sdist.exists():
        folder.mkdir(parents=True, exist_ok=True)
        # --no-build-isolation: pip reads the release's metadata with this environment's
        # setuptools and wheel, instead of building NumPy from source to do it.
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", "--no-build-isolation", f"pycuda=={VERSION}", "-d",
                        str(folder)], check=True, stdout=subprocess.DEVNULL)
    return sdist


def unpack(sdist):
    """The unpacked release (doc/, examples/, test/), kept next to the tarball."""
    target = cache_folder() / f"pycuda-{VERSION}"
    if not (target / "doc" / "tutorial.rst").exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            with tarfile.open(sdist) as tar:
                tar.extractall(tmp, filter="data")
            os.replace(Path(tmp) / f"pycuda-{VERSION}", target)
    return target


def run_here(args, cwd, env=None, paths=()):
    """`python -m helpers.sim ARGS` in cwd, with `paths` also importable: (exit status, output)."""
    paths = [str(ROOT), *map(str, paths),
             *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    environment = dict(os.environ, CUDA_SIM_MEMORY=SIM_MEMORY, PYTHONPATH=os.pathsep.join(paths),
                       MPLBACKEND="Agg", **(env or {}))
    try:
        proc = subprocess.run([sys.executable, "-m", "helpers.sim", *args], cwd=cwd,
                              env=environment, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {TIMEOUT} s"
    return proc.returncode, proc.stdout + proc.stderr


def last_line(output):
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


# ---- the tutorial --------------------------------------------------------------------------------
def tutorial_blocks(rst):
    """(line, code) of each literal block of the tutorial that is Python code."""
    lines, blocks, i = rst.read_text().splitlines(), [], 0
    while i < len(lines):
        if lines[i].rstrip().endswith("::") and not lines[i].lstrip().startswith(".."):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            start, body = j, []
            while j < len(lines) and (not lines[j].strip() or lines[j][:1] in " \t"):
                body.append(lines[j])
                j += 1
            code = textwrap.dedent("\n".join(body)).strip()
            try:
                compile(code, "tutorial.rst", "exec")
                blocks.append((start + 1, code))
            except SyntaxError:
                pass  # printed output ("This will print something like this::")
            i = j
        else:
            i += 1
    return blocks


def run_tutorial_blocks(rst):
    """In the child process: run each block, print one JSON line per block."""
    namespace = {"__name__": "__main__"}
    exec("import struct", namespace)
    for line, code in tutorial_blocks(Path(rst)):
        try:
            exec(compile(code, f"tutorial.rst:{line}", "exec"), namespace)
            result = {"name": f"tutorial.rst:{line}", "outcome": "passed"}
        except Exception as e:  # noqa: BLE001 - each block's failure is the result
            result = {"name": f"tutorial.rst:{line}", "outcome": "failed",
                      "message": f"{type(e).__name__}: {e}"[:300]}
        print("RESULT " + json.dumps(result), flush=True)


def mark_unsupported(result, feature, simulator):
    """On the simulator, a part that needs a GPU-only feature is listed as unsupported, with the
    feature and what happened when it ran."""
    if feature and simulator:
        happened = f"{result['outcome']}: {result['message']}" if result["message"] else (
            result["outcome"])
        result.update(outcome="unsupported", message=f"needs {feature} (here: {happened})")
    return result


def tutorial(source, simulator):
    rst = source / "doc" / "tutorial.rst"
    needs = {f"tutorial.rst:{line}": next(
        (f for key, f in UNSUPPORTED["tutorial"].items() if key in code), None)
        for line, code in tutorial_blocks(rst)}
    # Run from doc/: in the release's root, `python -m` would import its uncompiled pycuda/
    # source folder in place of the installed PyCUDA.
    status, output = run_here([str(Path(__file__).resolve()), "--run-tutorial", str(rst)],
                              cwd=rst.parent)
    results = [json.loads(ln[len("RESULT "):]) for ln in output.splitlines()
               if ln.startswith("RESULT ")]
    if not results:
        return [{"name": "tutorial.rst", "outcome": "failed", "message": last_line(output)}]
    return [mark_unsupported(r, needs.get(r["name"]), simulator) for r in results]


# ---- examples ------------------------------------------------------------------------------
def examples(source, simulator):
    results = []
    for path in sorted((source / "examples").glob("*.py")):
        status, output = run_here([path.name], cwd=path.parent)
        result = {"name": path.name, "outcome": "passed" if status == 0 else "failed",
                  "message": "" if status == 0 else last_line(output)}
        results.append(mark_unsupported(result, UNSUPPORTED["examples"].get(path.name),
                                        simulator))
    return results


# ---- PyCUDA's test files -------------------------------------------------------------------
def test_file(source, name, simulator, select=None):
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        # PyCUDA's context fixture calls gc.collect() after every test, which walks the whole
        # heap. -p no:nbval: pytest would load nbval, installed with the course's test extra, by
        # its plugin autoloading (the course's own runs load it from conftest.py); through
        # nbformat and jsonschema it imports rfc3987_syntax, which builds lark parsers: a heap
        # of 191,000 objects, 0.11 s a collection (test_gpuarray.py: 51 s with nbval, 16 s
        # without, warm). -p pycuda_suite: this file, whose hook below moves what pytest has
        # built by then out of the collections' way (12.3 s to 7.2 s, warm).
        status, output = run_here(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval",
                                   "-p", "pycuda_suite", f"--junitxml={report}", name,
                                   *(["-k", select] if select else [])],
                                  cwd=source / "test", paths=[Path(__file__).resolve().parent])
        if not report.exists():
            return [{"name": name, "outcome": "failed", "message": last_line(output)}]
        results = [_outcome(case) for case in ET.parse(report).iter("testcase")]
    return [mark_unsupported(r, UNSUPPORTED.get(name, {}).get(r["name"].split("[")[0].split("::")[-1]),
                             simulator) for r in results]


def pytest_collection_finish(session):
    """A pytest hook, for PyCUDA's test runs (test_file loads this file as a plugin): every object
    pytest and the test modules have made by now lives until the end, so it is frozen
    (gc.freeze), and each of the fixture's gc.collect() calls walks only what the tests make."""
    gc.collect()
    gc.freeze()


def _outcome(case):
    name = f"{case.get('classname', '').split('.')[-1]}::{case.get('name')}"
    for tag, outcome in (("failure", "failed"), ("error", "failed"), ("skipped", "skipped")):
        element = case.find(tag)
        if element is not None:
            message = element.get("message") or ""
            if tag == "skipped" and element.get("type") == "pytest.xfail":
                outcome = "xfailed"
            return {"name": name, "outcome": outcome, "message": message.splitlines()[0][:200]
                    if message else ""}
    return {"name": name, "outcome": "passed", "message": ""}


# ---- the report ---------------------------------------------------------------------------------
def summary(results):
    counts = {k: sum(r["outcome"] == k for r in results)
              for k in ("passed", "failed", "skipped", "xfailed", "unsupported")}
    counted = len(results) - counts["unsupported"]
    counts["total"], counts["counted"] = len(results), counted
    counts["percent"] = round(100 * counts["passed"] / counted, 1) if counted else 100.0
    return counts


def report(parts, out=sys.stdout):
    for part, results in parts.items():
        c = summary(results)
        print(f"{part:17} passed {c['passed']:3} of {c['counted']:3} ({c['percent']:5.1f}%)"
              f"   failed {c['failed']}, skipped {c['skipped']}, xfailed {c['xfailed']}, "
              f"unsupported {c['unsupported']}", file=out)
    for part, results in parts.items():
        for r in results:
            if r["outcome"] in ("failed", "unsupported", "skipped"):
                print(f"  {r['outcome']:11} {part}: {r['name']}: {r['message']}", file=out)


def backend_line():
    status, output = run_here(["-c", "import pycuda.driver as d, pycuda; d.init(); "
                               "print(('simulator' if getattr(pycuda, 'SIMULATOR', False) else "
                               "'PyCUDA ' + pycuda.VERSION_TEXT), d.Device(0).name())"],
                              cwd=ROOT)
    return last_line(output)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdist", help="pycuda-2026.1.tar.gz to use instead of PyPI's")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--parts", default="tutorial,examples,test_driver.py,test_gpuarray.py",
                        help="comma-separated: tutorial, examples, and test files of test/")
    parser.add_argument("-k", dest="select", help="only the tests pytest -k EXPR selects")
    parser.add_argument("--run-tutorial", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_tutorial:
        return run_tutorial_blocks(args.run_tutorial)
    source = unpack(find_sdist(args.sdist))
    where = backend_line()
    simulator = where.startswith("simulator")
    print(f"PyCUDA {VERSION}'s tutorial, examples and tests on: {where}", flush=True)
    parts = {}
    for part in args.parts.split(","):
        if part == "tutorial":
            parts[part] = tutorial(source, simulator)
        elif part == "examples":
            parts[part] = examples(source, simulator)
        else:
            parts[part] = test_file(source, part, simulator, args.select)
        print(f"  {part}: done", flush=True)
    report(parts)
    if args.json:
        Path(args.json).write_text(json.dumps({"backend": where, "parts": parts}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
