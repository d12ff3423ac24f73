"""Notebook 11's pieces: the band kernel (cuda_src/mandelbrot_rows.cu) gives notebook 03's image
bit for bit however the rows are split, on one device and on several; helpers.ch11.multigpu's
contexts, `using` and compile_on_each. Runs on whichever backend runs the tests; the simulator
presents two devices where several are needed."""


import numpy as np
import pytest

from helpers.backend import compile_cu, drv, gpuarray
from helpers.ch11.multigpu import compile_on_each, device_contexts, using
from multi_device import several_devices

WIDTH, HEIGHT, MAX_ITER = 203, 141, 200   # sides that are not multiples of the block
VIEW = (np.float32(-2.2), np.float32(-1.2), np.float32(3.2 / WIDTH), np.float32(2.4 / HEIGHT),
        np.int32(MAX_ITER))


@pytest.fixture(scope="module")
def whole():
    out = gpuarray.empty((HEIGHT, WIDTH), np.int32)
    compile_cu("mandelbrot.cu").get_function("mandelbrot")(
        out, np.int32(WIDTH), np.int32(HEIGHT), *VIEW, block=(16, 16, 1),
        grid=((WIDTH + 15) // 16, (HEIGHT + 15) // 16))
    return out.get()


def band(kernel, first, last):
    out = gpuarray.to_gpu(np.full((last - first, WIDTH), -1, np.int32))
    kernel(out, np.int32(WIDTH), np.int32(first), np.int32(last - first), *VIEW,
           block=(16, 16, 1), grid=((WIDTH + 15) // 16, (last - first + 15) // 16))
    return out.get()


@pytest.mark.parametrize("edges", [[0, HEIGHT], [0, 70, HEIGHT], [0, 1, 47, 94, HEIGHT]],
                         ids=["one band", "two", "four, one of one row"])
def test_bands_put_together_are_the_one_launch_image(whole, edges):
    kernel = compile_cu("mandelbrot_rows.cu").get_function("mandelbrot_rows")
    image = np.concatenate([band(kernel, a, b) for a, b in zip(edges, edges[1:])])
    assert np.array_equal(image, whole)


def test_bands_on_two_devices_are_the_one_launch_image(whole):
    with several_devices():
        contexts = device_contexts()[:2]
        kernels = compile_on_each(contexts, "mandelbrot_rows.cu", "mandelbrot_rows")
        parts = []
        for k, (first, last) in enumerate([(0, 80), (80, HEIGHT)]):
            with using(contexts[k]):
                assert drv.Context.get_device() == drv.Device(k)
                parts.append(band(kernels[k], first, last))
    assert np.array_equal(np.concatenate(parts), whole)


def test_using_pops_its_context_even_when_the_block_raises():
    before = drv.Context.get_current()
    with several_devices():
        contexts = device_contexts()
        with pytest.raises(ZeroDivisionError):
            with using(contexts[1]):
                assert drv.Context.get_device() == drv.Device(1)
                1 / 0
    assert drv.Context.get_current() == before


def test_there_is_a_context_for_every_device():
    with several_devices():
        contexts = device_contexts()
        assert len(contexts) == drv.Device.count() >= 2
        for k, context in enumerate(contexts):
            with using(context):
                assert drv.Context.get_device() == drv.Device(k)


def test_the_checkers_get_two_devices_on_the_simulator_whatever_was_set():
    from helpers.backend import BACKEND
    from helpers.ch11.multigpu import two_devices_on_the_simulator
    from helpers.sim.settings import settings

    if BACKEND != "simulator":
        pytest.skip("a GPU machine has the devices it has")
    with settings.changed(devices=1):
        with two_devices_on_the_simulator():
            assert settings.devices == 2
        assert settings.devices == 1
    with settings.changed(devices=3), two_devices_on_the_simulator():
        assert settings.devices == 3
