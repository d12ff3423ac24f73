"""bench/attention_cases.py's peers (bench/reference.py's softmax and attention): the softmax
subtracts the max (scores of 1000 give no NaN), and attention is softmax(Q K^T / sqrt(d)) V head
by head, in NumPy as in the float64 formula."""

import numpy as np

from bench import reference


def test_the_peers_softmax_does_not_overflow():
    x = np.array([[1000.0, 1001.0, 1002.0], [0.0, 0.0, 0.0]], np.float16)
    got = reference.softmax(reference.NUMPY, x)
    assert np.isfinite(got).all() and np.allclose(got.sum(axis=1), 1)
    assert np.allclose(got[1], 1 / 3)


def test_the_peers_attention_is_the_formula_head_by_head():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 5, 64)).astype(np.float16) for _ in range(3))
    got = reference.attention(reference.NUMPY, q, k, v)
    for h in range(2):
        s = q[h].astype(np.float64) @ k[h].astype(np.float64).T / 8
        p = np.exp(s - s.max(axis=1, keepdims=True))
        want = p / p.sum(axis=1, keepdims=True) @ v[h].astype(np.float64)
        assert np.allclose(got[h], want, rtol=1e-4, atol=1e-5)
