"""The site table of an instrumented build (helpers/sim/compile/sites.py): each call the
instrumentation made, as a load, store, atomic or basic block of the learner's line, and none of
the simulator's own; kept beside the library as JSON, made again when it is stale. These run
the simulator whatever backend is chosen; one module is instrumented for the file."""

import json
import shutil

import pytest

from helpers.sim.compile import lines, sites
from helpers.sim.compile.source import INCLUDE_DIR, INCLUDE_IN_LINE_TABLES
from helpers.sim.compiler import SourceModule
from helpers.sim.microscope import instrumented

SOURCE = r"""#line 1 "sites.cu"
__global__ void k(const float *in, float *out, int *count) {
    float v = __ldg(&in[threadIdx.x]);
    out[threadIdx.x] = v;
    atomicAdd(count, 1);
}
"""


@pytest.fixture(scope="module")
def library():
    return instrumented.instrumented(SourceModule(SOURCE).module).module.path


def test_each_call_of_the_instrumentation_is_a_kind_of_access_and_its_size():
    assert sites._kind("__tsan_read4") == ("load", 4)
    assert sites._kind("__tsan_unaligned_write8") == ("store", 8)
    assert sites._kind("__tsan_read_range") == ("load", 0)
    assert sites._kind("__tsan_atomic32_fetch_add") == ("atomic", 4)
    assert sites._kind("__tsan_atomic64_load") is None  # a step of a compare-and-swap loop
    assert sites._kind("__sanitizer_cov_trace_pc") == ("block", 0)


def test_an_access_belongs_to_the_learners_line_that_made_it():
    prelude = f"{INCLUDE_IN_LINE_TABLES}/cuda_sim.h"
    mine = ("k", "k.cu", 5)
    assert sites.learner_frame([("load_it", prelude, 10), mine]) is None  # the runtime's own
    assert sites.learner_frame([("atomicAdd", prelude, 10), mine], "atomic") == mine
    assert sites.learner_frame([("memcpy", "/usr/include/string.h", 1), mine]) == mine
    ldg_file, ldg_line = next(iter(sites._pass_through()))  # __ldg loads for its caller
    assert sites.learner_frame([("__ldg", ldg_file, ldg_line), mine]) == mine


def test_the_learners_loads_stores_and_atomics_are_found_at_their_lines(library):
    found = {(s.kind, s.line, s.size) for s in sites.load(library) if s.kind != "block"}
    assert found == {("load", 2, 4), ("store", 3, 4), ("atomic", 4, 4)}
    assert {s.where for s in sites.load(library)} >= {"sites.cu:2", "sites.cu:3", "sites.cu:4"}


def test_the_table_is_kept_as_json_and_made_again_when_stale(library, tmp_path):
    copy = tmp_path / library.name
    shutil.copy2(library, copy)
    table = sites.table_path(copy)
    assert table.name.endswith(".sites.json") and not table.exists()
    made = sites.load(copy)  # no table yet: read from the library
    saved = json.loads(table.read_text())
    assert saved["version"] == sites.TABLE_VERSION and len(saved["sites"]) == len(made)
    assert made == sites.load(library)
    table.write_text(json.dumps({"version": sites.TABLE_VERSION - 1, "sites": []}))
    assert sites.load(copy) == made



def test_line_tables_name_the_preludes_headers_the_same_in_every_copy_of_the_course(library):
    # A library (or a precompiled prelude) built in one copy is read in another, a second
    # checkout or a student release, where this copy's folder would not be the runtime's.
    debug = b"".join(lines._section(library, s) for s in (b".debug_line", b".debug_str"))
    assert INCLUDE_IN_LINE_TABLES.encode() in debug
    assert str(INCLUDE_DIR).encode() not in debug


def test_only_a_header_the_prelude_ships_is_the_runtimes():
    """a14 (audit AV): a #line naming /cuda-sim-include/sim_extra.h made the learner's accesses
    the runtime's, unchecked; a name no file of the prelude's has is the learner's."""
    assert sites._is_runtime(f"{INCLUDE_IN_LINE_TABLES}/sim_runtime.h")
    assert not sites._is_runtime(f"{INCLUDE_IN_LINE_TABLES}/sim_extra.h")
    assert not sites._is_runtime(f"{INCLUDE_IN_LINE_TABLES}/../compile/sites.py")
