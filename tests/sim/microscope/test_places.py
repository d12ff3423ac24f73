"""Names for the addresses a kernel touched (helpers/sim/microscope/places.py): the parameter or
`__shared__` array and the element, as the learner wrote them. The names read from source and
symbols, and the arithmetic of an address to an element, need no compile; a traced launch's
names are tested with the pictures (test_pictures.py)."""

from helpers.sim.microscope import places


def test_parameter_names_are_read_from_the_kernels_definition():
    source = """
    __device__ float helper(float x) { return x; }
    __global__ void scale(const float *__restrict__ in, float out[], int n,
                          unsigned long long int count) { }
    """
    assert places.parameter_names(source, "scale") == ["in", "out", "n", "count"]
    assert places.parameter_names(source, "helper") == []  # not a kernel
    assert places.parameter_names(source, "missing") == []
    assert places.parameter_names(None, "scale") == []


def test_gccs_names_of_static_shared_arrays_are_the_learners():
    assert places._demangle_static("_ZZ6rotateE1s") == "s"            # __shared__ s in rotate
    assert places._demangle_static("_ZZ6rotateE1s_0") == "s"          # a second s in rotate
    assert places._demangle_static("_ZZ9transposeE4tile") == "tile"
    assert places._demangle_static("_ZL6buffer") == "buffer"           # static, at file scope
    assert places._demangle_static("sums") == "sums"                  # extern "C" or global


def _places(arrays=(), shared=(), dynamic=("extern __shared__ array", None)):
    """A Places with the arrays a launch would give it (its constructor reads them from a
    built module and a launch record)."""
    p = places.Places.__new__(places.Places)
    p.arrays, p.shared, p.dynamic = list(arrays), sorted(shared), dynamic
    return p


def test_a_global_address_is_an_element_of_the_array_a_parameter_points_into():
    # "in" is a view 8 bytes into its allocation of 400 bytes at 0x1000: element 0 is at 0x1008
    p = _places(arrays=[(0x1000, 400, "in", 4, 8), (0x2000, 64, "parameter #1", 8, 0)])
    assert p.global_place(0x1008 + 12) == ("in", 3, 4)
    assert p.global_place(0x1000) == ("in", -2, 4)        # before the view, in the allocation
    assert p.global_place(0x2000 + 63) == ("parameter #1", 7, 8)
    assert p.global_place(0x1000 + 400) is None            # no allocation the kernel was given


def test_a_shared_offset_is_an_element_of_the_array_it_falls_in():
    p = _places(shared=[(128, 64, "t"), (0, 128, "s")], dynamic=("buf", 256))
    assert p.shared_place(132, size=4) == ("t", 1, 4)
    assert p.shared_place(8, size=8) == ("s", 1, 8)
    assert p.shared_place(200, size=4) == ("__shared__ memory", 50, 4)
    assert p.shared_place(12, dynamic=True, size=4) == ("buf", 3, 4)
    assert p.shared_array(140) == ("t", 128, 64) and p.shared_array(12, dynamic=True) == ("buf", 0, 256)
    assert p.shared_array(200) == ("__shared__ memory", 0, None)


def test_the_dynamic_shared_array_is_named_as_the_kernel_declares_it():
    one = "extern __shared__ float tile[];\n__global__ void a(float *x) { tile[0] = x[0]; }"
    assert places.dynamic_shared_name(one, "a") == "tile"
    two = ("__global__ void a(int *x) { extern __shared__ int counts[]; counts[0] = x[0]; }\n"
           "__global__ void b(float *y) { extern __shared__ float sums[]; sums[0] = y[0]; }")
    assert [places.dynamic_shared_name(two, k) for k in "ab"] == ["counts", "sums"]
    assert places.dynamic_shared_name("__global__ void c() {}", "c") is None
