"""How pytest itself is set up for the course (conftest.py, pyproject.toml): what every pytest
process, each pytest-xdist worker among them, does when it starts."""

import sys


def test_nbval_is_loaded_without_the_iri_parser_it_never_uses(pytestconfig):
    """conftest.py loads nbval after keeping rfc3987_syntax out (1 s of each process's start)."""
    assert pytestconfig.pluginmanager.has_plugin("nbval.plugin")
    assert pytestconfig.getoption("nbval_lax")  # pyproject.toml's options reach it
    assert sys.modules.get("rfc3987_syntax", "never imported") is None
