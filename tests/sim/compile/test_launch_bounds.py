"""compile/launch_bounds.py: the first number of each kernel's __launch_bounds__, read from the
scan's marks, which leave the scanned code as it was with the bounds defined away."""

from helpers.sim.compile import launch_bounds


def test_each_kernels_first_number_is_read_and_its_mark_taken_out():
    code = ('__sim_global__ void __sim_launch_bounds__(256) a(float *x) { }\n'
            '__sim_global__ void __sim_launch_bounds__((32 * 8), 2) b(int n);\n'
            '__sim_launch_bounds__(1 << 7) __sim_global__ void c(void);\n'
            '__sim_global__ void __sim_launch_bounds__(256u, 1, 2) d(void);\n'
            '__sim_global__ void plain(void);\n')
    kept, bounds = launch_bounds.split_off(code)
    assert bounds == {"a": 256, "b": 256, "c": 128, "d": 256}
    assert launch_bounds.MARK not in kept and "void  a(float *x)" in kept


def test_a_bound_that_is_no_number_is_left_out():
    code = ('template <int B> __sim_global__ void __sim_launch_bounds__(B) t(float *x);\n'
            '__sim_global__ void __sim_launch_bounds__(kThreads) k(float *x);\n'
            '__sim_global__ void __sim_launch_bounds__(0) z(float *x);\n')
    kept, bounds = launch_bounds.split_off(code)
    assert bounds == {} and launch_bounds.MARK not in kept
