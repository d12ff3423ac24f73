"""The simulator's settings (sim/settings.py): read once, changed for a while, misspelt ones
refused."""

import pytest

from helpers.sim.settings import settings


def test_module_settings_can_be_changed_for_a_while_and_come_back():
    before = settings.workers
    with settings.changed(workers=1, racecheck=True):
        assert settings.workers == 1 and settings.racecheck
    assert settings.workers == before and not settings.racecheck
    with pytest.raises(AttributeError, match="no setting 'wokers'"):
        settings.update(wokers=2)
    with pytest.raises(ValueError, match="CUDA_SIM_WORKERS='two'"):
        type(settings).from_environ({"CUDA_SIM_WORKERS": "two"})
