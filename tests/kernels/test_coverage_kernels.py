"""Every Cython kernel against a slow, obviously-correct numpy reference."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from orangecontrib.rules import core
from orangecontrib.rules.core import OP_EQ, OP_GE, OP_LE

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def encoded(draw, max_n=70):
    """Random encoded data with missing values, ties and weights."""
    n = draw(st.integers(0, max_n))
    n_disc = draw(st.integers(0, 3))
    n_cont = draw(st.integers(0, 3))
    n_classes = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n_values = rng.integers(1, 5, n_disc).astype(np.int32)
    Xd = np.column_stack([rng.integers(0, v, n) for v in n_values]) \
        if n_disc else np.zeros((n, 0))
    Xd = np.ascontiguousarray(Xd, dtype=np.int32).reshape(n, n_disc)
    Xd[rng.random(Xd.shape) < 0.15] = -1
    # few distinct values so that ties are common
    Xc = np.round(rng.normal(size=(n, n_cont)) * 2) / 2
    Xc[rng.random(Xc.shape) < 0.15] = np.nan
    Xc = np.ascontiguousarray(Xc)
    y = rng.integers(0, n_classes, n).astype(np.int32)
    w = rng.choice([0.0, 0.5, 1.0, 2.5], n)
    covered = (rng.random(n) < draw(st.sampled_from([0.0, 0.5, 1.0]))).astype(np.uint8)
    return dict(Xd=Xd, Xc=Xc, n_values=n_values, y=y, w=w, n_classes=n_classes,
                covered=covered, rng=rng)


def random_conditions(d, k):
    rng = d["rng"]
    n_disc, n_cont = d["Xd"].shape[1], d["Xc"].shape[1]
    kinds, cols, ops, vals = [], [], [], []
    for _ in range(k):
        if n_disc and (not n_cont or rng.random() < 0.5):
            a = rng.integers(n_disc)
            kinds.append(0), cols.append(a), ops.append(OP_EQ)
            vals.append(float(rng.integers(d["n_values"][a])))
        elif n_cont:
            kinds.append(1), cols.append(rng.integers(n_cont))
            ops.append(rng.choice([OP_EQ, OP_LE, OP_GE]))
            vals.append(float(np.round(rng.normal() * 2) / 2 + rng.choice([0, 0.25])))
    return (np.array(kinds, np.int32), np.array(cols, np.int32),
            np.array(ops, np.int8), np.array(vals, np.float64))


def ref_condition(d, kind, col, op, val):
    if kind == 0:
        x = d["Xd"][:, col]
        return (x >= 0) & (x == int(val))
    x = d["Xc"][:, col]
    with np.errstate(invalid="ignore"):
        return {OP_EQ: x == val, OP_LE: x <= val, OP_GE: x >= val}[op] & ~np.isnan(x)


@SETTINGS
@given(encoded(), st.integers(0, 5), st.integers(0, 4))
def test_cover_matrix(d, n_rules, max_len):
    rng = d["rng"]
    lengths = rng.integers(0, max_len + 1, n_rules)
    if not d["Xd"].shape[1] and not d["Xc"].shape[1]:
        lengths[:] = 0
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    kind, col, op, val = random_conditions(d, int(ptr[-1]))
    got = core.cover_matrix(d["Xd"], d["Xc"], ptr, kind, col, op, val)
    n = len(d["y"])
    expected = np.ones((n, n_rules), bool)
    failed = np.zeros((n, n_rules), int)
    for r in range(n_rules):
        for k in range(ptr[r], ptr[r + 1]):
            holds = ref_condition(d, kind[k], col[k], op[k], val[k])
            expected[:, r] &= holds
            failed[:, r] += ~holds
    assert got.dtype == bool and got.shape == (n, n_rules)
    np.testing.assert_array_equal(got, expected)
    # how many conditions each row fails (SLS's nearest-miss regions)
    v = core.violation_matrix(d["Xd"], d["Xc"], ptr, kind, col, op, val)
    assert v.dtype == np.uint8 and v.shape == (n, n_rules)
    np.testing.assert_array_equal(v, failed)
    # the same coverage as sparse columns (models of many rules on many rows)
    indptr, indices = core.cover_columns(d["Xd"], d["Xc"], ptr, kind, col, op, val)
    assert indptr.shape == (n_rules + 1,) and indptr[-1] == len(indices) == expected.sum()
    for r in range(n_rules):
        np.testing.assert_array_equal(indices[indptr[r]:indptr[r + 1]],
                                      np.flatnonzero(expected[:, r]))


@settings(max_examples=30, deadline=None)
@given(encoded(max_n=300), st.integers(1, 3), st.sampled_from([1, 2, 0]))
def test_coverage_of_long_rules_over_blocks_of_rows(d, n_rules, block_words):
    """The kernels read the rules from bitsets of their distinct conditions
    over blocks of rows: many rows (several words and blocks), rules of many
    conditions (failure counts in up to nine bit planes, saturated at 255),
    a condition repeated within a rule."""
    assume(d["Xd"].shape[1] or d["Xc"].shape[1])
    rng = d["rng"]
    lengths = rng.choice([0, 1, 7, 8, 40, 300], n_rules)
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    kind, col, op, val = random_conditions(d, int(ptr[-1]))
    n = len(d["y"])
    failed = np.zeros((n, n_rules), int)
    for r in range(n_rules):
        for k in range(ptr[r], ptr[r + 1]):
            failed[:, r] += ~ref_condition(d, kind[k], col[k], op[k], val[k])
    got = core.cover_matrix(d["Xd"], d["Xc"], ptr, kind, col, op, val, block_words)
    np.testing.assert_array_equal(got, failed == 0)
    v = core.violation_matrix(d["Xd"], d["Xc"], ptr, kind, col, op, val, block_words)
    np.testing.assert_array_equal(v, np.minimum(failed, 255))
    indptr, indices = core.cover_columns(d["Xd"], d["Xc"], ptr, kind, col, op, val,
                                         block_words)
    for r in range(n_rules):
        np.testing.assert_array_equal(indices[indptr[r]:indptr[r + 1]],
                                      np.flatnonzero(failed[:, r] == 0))


@SETTINGS
@given(encoded(max_n=200), st.integers(1, 6))
def test_bitsets(d, k):
    n = len(d["y"])
    assume(d["Xd"].shape[1] or d["Xc"].shape[1])
    kind, col, op, val = random_conditions(d, k)
    for m in (ref_condition(d, *c) for c in zip(kind, col, op, val)):
        bits = core.pack_bits(m.astype(np.uint8))
        assert bits.shape == (core.n_words(n),) and bits.dtype == np.uint64
        expected = np.zeros(core.n_words(n), np.uint64)
        for i in np.flatnonzero(m):
            expected[i // 64] |= np.uint64(1) << np.uint64(i % 64)
        np.testing.assert_array_equal(bits, expected)
        np.testing.assert_array_equal(core.unpack_bits(bits, n), m)


@SETTINGS
@given(encoded())
def test_class_weights(d):
    c = d["covered"].astype(bool)
    np.testing.assert_allclose(
        core.class_weights(d["y"], d["w"], d["covered"], d["n_classes"]),
        np.bincount(d["y"][c], d["w"][c], minlength=d["n_classes"]))


@SETTINGS
@given(encoded())
def test_discrete_refinements(d):
    got = core.discrete_refinements(d["Xd"], d["n_values"], d["y"], d["w"],
                                    d["covered"], d["n_classes"])
    max_v = max([0, *d["n_values"]])
    assert got.shape == (d["Xd"].shape[1], max_v, d["n_classes"])
    c = d["covered"].astype(bool)
    for a, nv in enumerate(d["n_values"]):
        for v in range(max_v):
            sel = c & (d["Xd"][:, a] == v)
            expected = np.bincount(d["y"][sel], d["w"][sel], minlength=d["n_classes"])
            np.testing.assert_allclose(got[a, v], expected if v < nv else 0)


def test_kernels_reject_bad_input():
    Xd = np.zeros((3, 1), np.int32)
    Xc = np.zeros((3, 1))
    ptr = np.array([0, 1], np.int32)
    with pytest.raises(IndexError):
        core.cover_matrix(Xd, Xc, ptr, np.array([0], np.int32),
                          np.array([5], np.int32), np.array([0], np.int8), np.zeros(1))
    with pytest.raises(ValueError):
        core.cover_matrix(Xd, Xc, ptr, np.array([1], np.int32),
                          np.array([0], np.int32), np.array([7], np.int8), np.zeros(1))
    with pytest.raises(ValueError):
        core.class_weights(np.array([0, 3, 1], np.int32), np.ones(3),
                           np.ones(3, np.uint8), 2)
    with pytest.raises(ValueError):
        core.discrete_refinements(np.array([[4]], np.int32), np.array([2], np.int32),
                                  np.array([0], np.int32), np.ones(1),
                                  np.ones(1, np.uint8), 1)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), k=st.integers(1, 30), density=st.floats(0, 1),
       seed=st.integers(0, 2 ** 31))
def test_indicator_matrix_products_match_scipy(n, k, density, seed):
    import scipy.sparse as sp

    from orangecontrib.rules.core import IndicatorMatrix
    rng = np.random.default_rng(seed)
    dense = (rng.random((n, k)) < density).astype(float)
    M = IndicatorMatrix(sp.csc_matrix(dense))
    x, g = rng.normal(size=k), rng.normal(size=n)
    np.testing.assert_allclose(M @ x, dense @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(M.T @ g, dense.T @ g, rtol=1e-12, atol=1e-12)
    assert M.shape == (n, k) and M.T.shape == (k, n)
    with pytest.raises(ValueError):
        M @ np.zeros(k + 1)
    if dense.any():
        with pytest.raises(ValueError, match="0/1"):
            IndicatorMatrix(sp.csr_matrix(dense * 2))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(-5, 5), st.just(float("nan"))), min_size=0, max_size=80),
       st.sampled_from(["==", "<=", ">=", "<"]), st.floats(-5, 5))
def test_column_mask_is_the_condition_test(values, op, t):
    """SLIPPER's per-condition mask (core.column_mask) against numpy: a
    missing value satisfies nothing; strided columns read right."""
    from orangecontrib.rules.rules import OPERATORS
    x = np.array(values, dtype=float)
    with np.errstate(invalid="ignore"):
        want = {"==": x == t, "<=": x <= t, ">=": x >= t, "<": x < t}[op] & ~np.isnan(x)
    np.testing.assert_array_equal(core.column_mask(x, OPERATORS[op], t), want)
    wide = np.column_stack([x, np.zeros(len(x))])  # a strided column
    np.testing.assert_array_equal(core.column_mask(wide[:, 0], OPERATORS[op], t), want)


def test_bit_operations_match_numpy_in_both_versions():
    """popcount and count-trailing-zeros as the kernels run them (one
    instruction with GCC, Clang and MSVC) and the portable version a
    compiler without either gets (or a build with RULES_BITS_PORTABLE),
    against numpy, on every machine."""
    from orangecontrib.rules.core import bits_check
    rng = np.random.default_rng(0)
    words = rng.integers(1, 2 ** 63, 5000, dtype=np.uint64) * rng.integers(1, 3, 5000,
                                                                            dtype=np.uint64)
    words = np.concatenate([words, np.uint64(1) << np.arange(64, dtype=np.uint64),
                            [np.uint64(2 ** 64 - 1)]]).astype(np.uint64)
    words = words[words != 0]
    bits = np.unpackbits(words.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    pop, ctz, pop_p, ctz_p, impl = bits_check(words)
    expected_pop = bits.sum(axis=1)
    expected_ctz = np.argmax(bits, axis=1)
    for got in (pop, pop_p):
        np.testing.assert_array_equal(got, expected_pop)
    for got in (ctz, ctz_p):
        np.testing.assert_array_equal(got, expected_ctz)
    print(f"bit operations of this build: {impl}")
    assert impl in ("builtin", "builtin ctz, portable popcount", "msvc intrinsics",
                    "portable")


def test_this_cpu_has_what_the_build_assumes():
    """The check ``core/__init__.py`` makes before any kernel runs (POPCNT
    on x86-64): this machine imported the core, so it must say yes."""
    assert core._coverage.cpu_has_baseline() is True
