"""CUDA features that need a GPU (helpers/sim/unsupported.py): their PyCUDA names exist in the
simulator, so code that only mentions them imports and runs; using one raises NeedsGPU, which
names the feature and says how to run on a GPU; a name the simulator lacks is NotProvided, an
AttributeError that says what to do. No compile."""

import numpy as np
import pytest

from helpers.sim import curandom, driver as drv, gpuarray, unsupported
from helpers.sim.unsupported import NeedsGPU


def test_gpu_only_features_name_themselves():
    cases = [(lambda: drv.matrix_to_texref(None, None, "C"), "pycuda.driver.matrix_to_texref",
              unsupported.TEXTURES),
             (lambda: gpuarray.zeros(4).bind_to_texref_ext(None), "GPUArray.bind_to_texref_ext",
              unsupported.TEXTURES),
             (lambda: gpuarray.take(gpuarray.zeros(4), gpuarray.zeros(2, np.int32)),
              "gpuarray.take", unsupported.TEXTURES),
             (lambda: drv.mem_get_ipc_handle(None), "pycuda.driver.mem_get_ipc_handle",
              unsupported.IPC)]
    for use, call, feature in cases:
        with pytest.raises(NeedsGPU) as caught:
            use()
        assert (caught.value.call, caught.value.feature) == (call, feature)


def test_every_driver_name_of_a_gpu_feature_is_a_stand_in_that_names_its_feature():
    for name, feature in unsupported.DRIVER_FEATURES.items():
        stand_in = getattr(drv, name)
        assert stand_in.__name__ == name and f"pycuda.driver.{name}" in stand_in.__doc__
        with pytest.raises(NeedsGPU) as caught:
            stand_in(1, key=2)
        assert caught.value.feature == feature
    with pytest.raises(NeedsGPU) as caught:
        curandom.XORWOWRandomNumberGenerator()
    assert caught.value.feature == unsupported.CURAND


def test_a_stand_in_says_the_call_the_feature_and_what_to_do():
    stand_in = unsupported.gpu_only(unsupported.OPENGL, "pycuda.gl.BufferObject")
    with pytest.raises(NeedsGPU) as caught:
        stand_in()
    assert str(caught.value).startswith(
        "pycuda.gl.BufferObject needs a GPU: it uses OpenGL interoperability")
    assert str(caught.value).endswith("run on a GPU with CUDA_COURSE_BACKEND=pycuda.")
    assert str(NeedsGPU(unsupported.IPC)).startswith("Inter-process memory sharing (IPC) need a GPU")


def test_missing_names_are_attribute_errors_that_say_what_to_do():
    with pytest.raises(unsupported.NotProvided, match="CUDA_COURSE_BACKEND=pycuda"):
        drv.no_such_call
    assert isinstance(unsupported.NotProvided("x"), AttributeError)
    assert isinstance(unsupported.NotProvided("x"), NotImplementedError)
    assert not hasattr(drv, "no_such_call")
    from helpers.sim import gpuarray
    assert not hasattr(gpuarray, "cumsum")
    advised = unsupported.not_provided("pycuda.driver", "Memcpy3DPeer", "Copy through the host.")
    assert advised.name == "Memcpy3DPeer" and str(advised).endswith("Copy through the host.")


def test_a_modules_dunder_names_are_plain_attribute_errors_for_pythons_probes():
    getattr_ = unsupported.module_getattr("pycuda.example")
    with pytest.raises(AttributeError) as caught:
        getattr_("__wrapped__")
    assert not isinstance(caught.value, unsupported.NotProvided)
