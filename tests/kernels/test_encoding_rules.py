"""encode_table and Rule/Condition as data."""
import pickle

import numpy as np
from hypothesis import assume, example, given, settings, strategies as st
import pytest

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.rules import Condition, Rule, encode_table, format_rules
from orangecontrib.rules.core import KIND_CONTINUOUS, KIND_DISCRETE
from orangecontrib.rules.features import MISSING_CODE, stored_order


def mixed_table(weights=None):
    domain = Domain([ContinuousVariable("x"), DiscreteVariable("d", values=("u", "v", "w")),
                     ContinuousVariable("z")],
                    DiscreteVariable("cls", values=("a", "b", "c")))
    X = np.array([[3.0, 0, 1.0],
                  [np.nan, 2, 0.5],
                  [1.0, np.nan, np.inf],
                  [2.0, 1, 0.5]])
    return Table.from_numpy(domain, X, np.array([0, 2, 1, 2]), W=weights)


def test_encode_table_layout():
    enc = encode_table(mixed_table())
    assert enc.Xd.dtype == np.int32 and enc.Xd.flags.c_contiguous
    assert enc.Xc.dtype == np.float64 and enc.Xc.flags.c_contiguous
    np.testing.assert_array_equal(enc.attr_kind, [KIND_CONTINUOUS, KIND_DISCRETE,
                                                  KIND_CONTINUOUS])
    np.testing.assert_array_equal(enc.attr_col, [0, 0, 1])
    np.testing.assert_array_equal(enc.disc_attrs, [1])
    np.testing.assert_array_equal(enc.cont_attrs, [0, 2])
    np.testing.assert_array_equal(enc.Xd[:, 0], [0, 2, MISSING_CODE, 1])
    np.testing.assert_array_equal(enc.n_values, [3])
    assert np.isnan(enc.Xc[1, 0]) and np.isnan(enc.Xc[2, 1])  # NaN and inf: unknown
    np.testing.assert_array_equal(enc.n_valid, [3, 3])
    # one argsort per continuous column, unknowns last
    np.testing.assert_array_equal(enc.order[0, :3], [2, 3, 0])
    np.testing.assert_array_equal(sorted(enc.order[1, :2]), [1, 3])
    assert enc.order[1, 2] == 0 and enc.order.dtype == np.int32
    np.testing.assert_array_equal(enc.y, [0, 2, 1, 2])
    np.testing.assert_array_equal(enc.w, 1.0)
    np.testing.assert_array_equal(enc.class_distribution(), [1, 1, 2])
    assert enc.n_classes == 3 and enc.n == 4


def test_encode_weights():
    enc = encode_table(mixed_table(np.array([1.0, 2.0, 0.5, 3.0])))
    np.testing.assert_array_equal(enc.class_distribution(), [1, 0.5, 5])
    with pytest.raises(ValueError, match="weights"):
        encode_table(mixed_table(np.array([1.0, -2.0, 0.5, 3.0])))


def test_encode_rejects_unknown_class():
    t = mixed_table()
    with t.unlocked(t.Y):
        t.Y[0] = np.nan
    with pytest.raises(ValueError, match="unknown class"):
        encode_table(t)


def test_condition_and_rule_printing():
    domain = Table("iris").domain
    rule = Rule([Condition(2, "<=", 2.45), Condition(3, ">=", 0.1)], 0, [50, 0, 0],
                quality=0.98, domain=domain)
    assert str(rule) == ("IF petal length <= 2.45 AND petal width >= 0.1 "
                         "THEN iris = Iris-setosa  [50/0/0]")
    assert Rule([], 1, [3.5, 1.25, 0], domain=domain).to_str() == \
        "IF TRUE THEN iris = Iris-versicolor  [3.5/1.25/0]"
    titanic = Table("titanic").domain
    assert Condition(0, "==", 1).to_str(titanic) == "status = first"
    # a threshold prints as it is (learners choose short ones)
    assert str(Condition(4, "<=", 1 / 3)) == "x[4] <= 0.3333333333333333"
    assert str(Condition(4, "<=", 0.25)) == "x[4] <= 0.25"
    listing = format_rules([rule, rule], domain)
    assert listing.splitlines()[1].startswith("2. IF petal length")
    assert rule.length == 2 and rule.prediction == 0 and rule.selectors == rule.conditions
    np.testing.assert_allclose(rule.probabilities, [51 / 53, 1 / 53, 1 / 53])
    assert pickle.loads(pickle.dumps(rule)) == rule


def test_rule_covers_with_missing_values():
    X = np.array([[1.0, 0], [np.nan, 0], [3.0, np.nan], [2.0, 1]])
    rule = Rule([Condition(0, "<=", 2.5), Condition(1, "==", 0)], 0, [1, 0])
    np.testing.assert_array_equal(rule.evaluate_data(X), [True, False, False, False])
    assert Rule([], 0, [1, 0]).evaluate_data(X).all()
    with pytest.raises(ValueError, match="operator"):
        Rule([Condition(0, "!=", 1)], 0, [1, 0]).evaluate_data(X)


def test_conditions_have_one_canonical_form():
    from orangecontrib.rules.rules import Condition, Rule, canonical_conditions
    C = Condition
    assert canonical_conditions([C(0, ">=", 43), C(0, ">=", 51)]) == (C(0, ">=", 51),)
    assert canonical_conditions([C(2, "<=", 3.3), C(2, "<", 3.3)]) == (C(2, "<", 3.3),)
    assert canonical_conditions([C(2, "<", 4.0), C(2, "<=", 3.3)]) == (C(2, "<=", 3.3),)
    a = Rule([C(1, "==", 0), C(0, "==", 1), C(0, "==", 1)], 1, [1, 2])
    b = Rule([C(0, "==", 1), C(1, "==", 0)], 1, [1, 2])
    assert a.conditions == b.conditions == (C(0, "==", 1), C(1, "==", 0))
    assert a == b and hash(a) == hash(b)
    # the covered rows do not change
    X = np.array([[40.0, 1], [45, 0], [52, 0], [np.nan, 0]])
    r1 = Rule([C(0, ">=", 43), C(0, ">=", 51)], 0, [1, 0])
    np.testing.assert_array_equal(r1.evaluate_data(X), [False, False, True, False])


def test_slipper_prints_no_duplicate_rules_and_no_redundant_bounds(titanic=None):
    from Orange.data import Table

    from orangecontrib.rules import SlipperLearner
    for name in ("titanic", "heart_disease", "iris"):
        model = SlipperLearner()(Table(name))
        for _, rules in model.boosters:
            keys = [frozenset(r.conditions) for r in rules]
            assert len(keys) == len(set(keys)), name
            for r in rules:
                cols_ops = [(c.column, c.op) for c in r.conditions if c.op != "=="]
                assert len(cols_ops) == len(set(cols_ops)), str(r)


def test_simplest_between_by_hand():
    from orangecontrib.rules.features import simplest_between, simplest_threshold
    assert simplest_between(51, 52, False, True) == 51      # [51, 52)
    assert simplest_between(51, 52, True, False) == 52      # (51, 52]
    assert simplest_between(51, 52, True, True) == 51.5     # (51, 52)
    assert simplest_between(0.67222, 0.67226, False, True) == 0.67224
    assert simplest_between(-5.3, -5.1, True, False) == -5.2
    assert simplest_between(1.0, 1.0, False, False) == 1.0
    assert simplest_between(1.0, 1.0, True, False) is None
    assert simplest_between(99.2, 140.7, True, True) == 100
    # a threshold between two training values keeps the split
    v = np.array([1.0, 2.0, 3.5, 3.7, 10])
    assert simplest_threshold(v, "<=", 3.6) == 3.6        # 3.5 covered, 3.7 not
    assert simplest_threshold(v, "<=", 2.75) == 3         # [2, 3.5): 3
    assert simplest_threshold(v, ">=", 2.75) == 3         # (2, 3.5]: 3
    assert simplest_threshold(v, "<", 6.85) == 7          # (3.7, 10]: one digit, nearest
    assert simplest_threshold(v, "<=", 20) == 20          # nothing above: kept


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(1e-9, 1e3), st.booleans(), st.booleans())
@example(5e-324, 1.0, False, False)  # a denormal end: 10.0 ** -324 is 0
@example(-2e-310, 1e-9, True, True)
def test_simplest_between_is_inside_and_short(lo, width, lo_open, hi_open):
    from orangecontrib.rules.features import significant_digits, simplest_between
    hi = lo + width
    assume(hi > lo)
    v = simplest_between(lo, hi, lo_open, hi_open)
    assume(v is not None)
    assert (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    # no number with fewer significant digits lies in the interval: the ends
    # rounded to each shorter length by Python's formatting, and their
    # neighbours at that precision, are all outside
    digits = significant_digits(v)
    for d in range(1, digits):
        for x in (lo, hi):
            rounded = f"{x:.{d - 1}e}"
            step = 10.0 ** (int(rounded.split("e")[1]) - d + 1)
            for w in (float(rounded) - step, float(rounded), float(rounded) + step):
                inside = (w > lo if lo_open else w >= lo) and (w < hi if hi_open else w <= hi)
                assert not (inside and significant_digits(w) < digits), (lo, hi, v, w)


def _significant_digits_by_decimal(x):
    from decimal import Decimal
    x = float(x)
    if x == 0 or not np.isfinite(x):
        return 1
    return len(Decimal(repr(x)).normalize().as_tuple().digits)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
@example(100.0)
@example(1205.0)
@example(-0.00105)
@example(1e22)
@example(5e-324)
@example(1.2345678901234567e-300)
def test_significant_digits_read_off_the_repr_as_decimal_counts_them(x):
    from orangecontrib.rules.features import significant_digits
    assert significant_digits(x) == _significant_digits_by_decimal(x)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4) | st.just(np.nan), min_size=1, max_size=30),
       st.sampled_from(["<=", ">=", "<", "=="]), st.floats(-1.2e4, 1.2e4))
@example([1.0, 2.0, 3.5, 3.7, 10], "<=", 3.5)
@example([1.0, 2.0, 2.0, 3.5], ">=", 2.0)
def test_simplest_threshold_finds_the_ends_of_its_interval_as_masks_do(values, op, t):
    """The ends of the interval a threshold may move in, found by a binary
    search of the sorted values, are those of masks over every value."""
    from orangecontrib.rules.features import simplest_between, simplest_threshold
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if op == "<=":
        below, above, lo_open, hi_open = v[v <= t], v[v > t], False, True
    else:
        below, above, lo_open, hi_open = v[v < t], v[v >= t], True, False
    lo = below.max() if len(below) else -np.inf
    hi = above.min() if len(above) else np.inf
    if op == "==" or not (np.isfinite(lo) and np.isfinite(hi)):
        expected = t
    else:
        best = simplest_between(lo, hi, lo_open, hi_open, target=t)
        expected = (t if best is None or _significant_digits_by_decimal(best)
                    >= _significant_digits_by_decimal(t) else best)
    assert simplest_threshold(values, op, t) == expected


def test_learners_print_the_shortest_thresholds():
    """Every numeric threshold of every learner is the shortest number that
    splits the training values as it does (and so prints short)."""
    from Orange.data import Table

    from orangecontrib.rules.features import simplest_threshold
    from registry import KINDS, make
    data = Table("heart_disease")
    for learner in (make(kind) for kind in KINDS):
        model = learner(data)
        train = model.data_to_model_domain(data)
        n_numeric = 0
        for rule in model.rule_list:
            for c in rule.conditions:
                var = model.domain.attributes[c.column]
                if var.is_discrete:
                    continue
                n_numeric += 1
                col = train.get_column(var)
                assert simplest_threshold(col, c.op, c.value) == c.value, (learner, c)
                assert len(f"{c.value:g}") <= 5, (learner, c)
        assert n_numeric, learner


def test_an_inner_learner_encodes_nothing_again(monkeypatch, heart):
    """LR with rules and Rule Scoring lend their encoding to their rule
    learner (features.shared_encoding): one encoding per fit, and the same
    model as when the rule learner encodes the table itself; a rule learner
    given preprocessors of its own encodes what they make."""
    import orangecontrib.rules.base as base
    from Orange.data.filter import HasClass

    from orangecontrib.rules import (EVCRuleLearner, RuleLogisticRegressionLearner,
                                     RuleScoringLearner)
    encoded = []

    def counting(data, with_order=True):
        encoded.append(len(data))
        return encode_table(data, with_order)

    monkeypatch.setattr(base, "encode_table", counting)
    data = heart[::2]
    for make in (RuleLogisticRegressionLearner, RuleScoringLearner):
        encoded.clear()
        model = make()(data)
        assert encoded == [len(data)]
        with monkeypatch.context() as m:  # nothing lent: the inner fit encodes
            m.setattr(base, "lent_encoding", lambda *args: None)
            encoded.clear()
            alone = make()(data)
            assert encoded == [len(data)] * 2
        assert str(model) == str(alone)
        np.testing.assert_array_equal(model(data, model.Probs), alone(data, alone.Probs))
    encoded.clear()
    RuleLogisticRegressionLearner(
        rule_learner=EVCRuleLearner(preprocessors=[HasClass()]))(data)
    assert encoded == [len(data)] * 2


def test_a_sparse_tables_numeric_columns_stay_sparse():
    """encode_table keeps a sparse table's numeric columns as CSC (memory
    in proportion to the non-zeros), also when the sort order is asked for:
    then ``stored_order`` sorts the stored entries, in the dense order with
    the zeros left out; every column reads as the dense table's, unknowns
    and infinities NaN."""
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 6)) * (rng.random((50, 6)) < 0.3)
    X[3, 1], X[7, 4], X[9, 5] = np.nan, np.inf, -np.inf
    X[:, 2] = 0.0  # a column without any stored value
    domain = Domain([ContinuousVariable(f"x{j}") for j in range(6)],
                    DiscreteVariable("y", values=("a", "b")))
    y = (rng.random(50) < 0.5).astype(float)
    dense = encode_table(Table.from_numpy(domain, X, y))
    table = Table.from_numpy(domain, sp.csr_matrix(X), y)
    kept = encode_table(table, with_order=False)
    assert sp.issparse(kept.Xc) and kept.Xc.format == "csc"
    for j in range(6):
        np.testing.assert_array_equal(kept.column(j), dense.column(j))
        np.testing.assert_array_equal(kept.column(j), dense.Xc[:, j])
    np.testing.assert_array_equal(kept.n_valid, dense.n_valid)
    assert kept.n_valid[1] == 49 and kept.n_valid[4] == 49
    ordered = encode_table(table, with_order=True)  # SLIPPER's
    assert sp.issparse(ordered.Xc) and ordered.order.shape == (6, 0)
    indptr, rows, values, n_neg, n_valid = stored_order(ordered.Xc)
    for j in range(6):
        nonzero = dense.order[j][dense.Xc[dense.order[j], j] != 0]
        np.testing.assert_array_equal(rows[indptr[j]:indptr[j + 1]], nonzero)
        np.testing.assert_array_equal(values[indptr[j]:indptr[j + 1]], dense.Xc[nonzero, j])
        assert n_neg[j] == (dense.Xc[:, j] < 0).sum()
        assert n_valid[j] == ((dense.Xc[:, j] != 0) & ~np.isnan(dense.Xc[:, j])).sum()
    part = kept.subset(np.arange(0, 50, 3))
    np.testing.assert_array_equal(part.column(4), dense.Xc[::3, 4])
    np.testing.assert_array_equal(part.n_valid, dense.subset(np.arange(0, 50, 3)).n_valid)


def test_search_data_takes_column_built_codes_without_a_copy(heart):
    """features.search_data writes the codes column by column; SearchData
    keeps them as its feature-major codes (no copy) and they read back
    as the codes of the rows."""
    from orangecontrib.rules.core import SearchData
    from orangecontrib.rules.features import search_data
    enc = encode_table(heart)
    sd, attrs = search_data(enc, 4)
    codes = np.asarray(sd.codes_arr)
    assert codes.shape == (enc.n, len(attrs))
    np.testing.assert_array_equal(codes[:, :enc.Xd.shape[1]], enc.Xd)
    fortran = np.asfortranarray(codes)
    again = SearchData(fortran, sd.n_bins_arr, sd.ordinal_arr, sd.lo_arr, sd.hi_arr, sd.w_arr)
    assert np.shares_memory(np.asarray(again.codes_arr), fortran)
    row_major = np.ascontiguousarray(codes)  # any layout is accepted
    other = SearchData(row_major, sd.n_bins_arr, sd.ordinal_arr, sd.lo_arr, sd.hi_arr, sd.w_arr)
    np.testing.assert_array_equal(np.asarray(other.codes_arr), codes)
    assert not np.shares_memory(np.asarray(other.codes_arr), row_major)
