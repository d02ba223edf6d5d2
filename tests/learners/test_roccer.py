"""ROCCER (Prati & Flach 2005): the miner against brute force, the hull
insertion on hand-made ROC configurations, convexity, posteriors and the
learner on real data."""
import itertools
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

from orangecontrib.rules import ROCCERLearner, ROCCERModel, core
from orangecontrib.rules.base import PriorRuleModel
from orangecontrib.rules.features import encode_table, make_items
from orangecontrib.rules.roccer import Candidates, ListRule, list_points, select_rules
from roccer_reference import repair, select_rules as reference_select_rules


# --------------------------------------------------------------- the miner

def literals(Xd, n_values):
    """ROCCER's items of nominal data ``Xd`` (``make_items``): the literals
    ``A = v``, their attribute (``attr``), value and coverage bitsets."""
    domain = Domain([DiscreteVariable(f"a{a}", values=tuple(map(str, range(k))))
                     for a, k in enumerate(n_values)], DiscreteVariable("y", values=("n", "p")))
    table = Table.from_numpy(domain, Xd.astype(float), np.zeros(len(Xd)))
    items = make_items(table, encode_table(table), 0)
    value = np.array([c[0].value for c in items.conditions], dtype=np.int32)
    assert all(len(c) == 1 and c[0].op == "==" for c in items.conditions)
    return SimpleNamespace(bits=items.bits, attr=items.group, value=value)


def random_problem(rng, m, n_attrs, max_values, weighted):
    """Random nominal data (``m`` rows, ``n_attrs`` attributes of 2 to
    ``max_values`` values), its items and weights (ones, or random)."""
    n_values = rng.integers(2, max_values + 1, n_attrs)
    Xd = np.column_stack([rng.integers(0, k, m) for k in n_values]).astype(np.int32)
    w = rng.random(m) + 0.5 if weighted else np.ones(m)
    return Xd, n_values, literals(Xd, n_values), w


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.booleans())
def test_miner_matches_brute_force(seed, max_len, weighted):
    rng = np.random.default_rng(seed)
    m, n_attrs = 80, 4
    Xd, n_values, lits, w = random_problem(rng, m, n_attrs, 3, weighted)
    y = rng.random(m) < 0.4
    min_sup, min_conf = 0.1 * w.sum(), 0.5
    items, ends, sup, cov, bits, complete, length = core.mine_class_rules(
        lits.bits, lits.attr, core.pack_bits(y.astype(np.uint8)), w,
        min_sup, min_conf, max_len)
    assert complete and length == max_len
    starts = np.concatenate([[0], ends[:-1]])
    got = {tuple(items[a:b]): (s, c) for a, b, s, c in zip(starts, ends, sup, cov)}
    expected = {}
    for size in range(1, max_len + 1):
        for attrs in itertools.combinations(range(n_attrs), size):
            for vals in itertools.product(*[range(n_values[a]) for a in attrs]):
                mask = np.all([Xd[:, a] == v for a, v in zip(attrs, vals)], axis=0)
                s, c = w[mask & y].sum(), w[mask].sum()
                if s >= min_sup and s >= min_conf * c and s > 0:
                    ids = tuple(int(np.flatnonzero((lits.attr == a) & (lits.value == v))[0])
                                for a, v in zip(attrs, vals))
                    expected[ids] = (s, c)
    assert set(got) == set(expected)
    for key, (s, c) in expected.items():
        assert got[key] == pytest.approx((s, c))
    for k, key in enumerate(got):  # coverage bitsets
        mask = np.all([Xd[:, lits.attr[i]] == lits.value[i] for i in key], axis=0)
        assert np.array_equal(core.unpack_bits(bits[k], m), mask)


def test_miner_caps_and_rejects_bad_input():
    Xd = np.array([[0, 0], [1, 1]] * 5, np.int32)
    lits = literals(Xd, np.array([2, 2], np.int32))
    pos = core.pack_bits(np.ones(10, np.uint8))
    *_, complete, _ = core.mine_class_rules(lits.bits, lits.attr, pos, np.ones(10),
                                            1, 0.5, 2, max_rules=2)
    assert not complete
    with pytest.raises(ValueError):
        core.mine_class_rules(lits.bits, lits.attr[::-1].copy(), pos, np.ones(10), 1, .5, 2)
    with pytest.raises(ValueError):
        core.mine_class_rules(lits.bits, lits.attr, pos, np.ones(70), 1, .5, 2)
    with pytest.raises(ValueError):
        core.mine_class_rules(lits.bits, lits.attr, pos, np.ones(10), 1, 1.5, 2)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 60), st.integers(1, 200))
def test_shortening_search_is_the_longest_length_that_fits(seed, weighted, max_rules,
                                                           max_visits):
    """``shorten=True`` gives, in one search, what searching each length
    from the longest down gives at the first length within both limits."""
    rng = np.random.default_rng(seed)
    m = 60
    _, _, lits, w = random_problem(rng, m, 5, 3, weighted)
    y = rng.random(m) < 0.5
    args = (lits.bits, lits.attr, core.pack_bits(y.astype(np.uint8)), w, 0.05 * w.sum(), 0.3)
    for length in range(4, 0, -1):
        expected = core.mine_class_rules(*args, length, max_rules, True, max_visits)
        if expected[5]:
            break
    got = core.mine_class_rules(*args, 4, max_rules, True, max_visits, shorten=True)
    assert got[5] == expected[5] and got[6] == expected[6] == length
    for a, b in zip(got[:5], expected[:5]):
        assert np.array_equal(a, b)


# --------------------------------------------------------------- the hull

def _first_concavity(fp, tp):
    """``core.first_concavity`` of a curve given with its end point."""
    fp, tp = np.asarray(fp, dtype=float), np.asarray(tp, dtype=float)
    return core.first_concavity(np.ascontiguousarray(fp[:-1]),
                                np.ascontiguousarray(tp[:-1]), float(fp[-1]), float(tp[-1]))


P, N = 10, 20  # examples 0..9 positive, 10..29 negative
POS = core.pack_bits(np.r_[np.ones(P), np.zeros(N)].astype(np.uint8))
W8 = np.ones(P + N)


def rule(pos_ids=(), neg_ids=()):
    mask = np.zeros(P + N, np.uint8)
    mask[list(pos_ids)] = 1
    mask[[P + i for i in neg_ids]] = 1
    return core.pack_bits(mask)


def select(*candidates):
    return select_rules(np.array(candidates), POS, W8)


def insertion(candidates, unions, seg_tp, seg_fp):
    """``core.first_insertion`` of candidates given as bitsets (one item each)."""
    c = Candidates.from_bits(np.array(candidates), POS, W8)
    return core.first_insertion(c.item_bits, c.items, c.ends, c.tp, c.fp, 0, unions,
                                seg_tp, seg_fp, POS, W8)


def points(rules):
    fp, tp, _ = list_points(rules, POS, W8, 1)
    return list(zip(fp.tolist(), tp.tolist()))


def test_insertion_before_the_first_rule():
    r1 = rule(range(5), range(2))          # (2, 5)
    r2 = rule(range(5, 9))                 # (0, 4): steeper than r1
    rules = select(r1, r2)
    assert [r.members for r in rules] == [[1], [0]]
    assert points(rules) == [(0, 0), (0, 4), (2, 9)]


def test_insertion_after_shifting_past_a_rule():
    r1 = rule(range(6))                    # (0, 6): vertical, nothing is above it
    r2 = rule(range(8), range(2))          # (2, 8) overlaps r1: read as not r1 and r2
    fp, tp, unions = list_points([ListRule([0], r1)], POS, W8, 1)
    seg_tp, seg_fp = np.diff(np.append(tp, P)), np.diff(np.append(fp, N))
    assert insertion([r2], unions, seg_tp, seg_fp) == (0, 1)
    rules = select(r1, r2)
    assert [r.members for r in rules] == [[0], [1]]
    assert points(rules) == [(0, 0), (0, 6), (2, 8)]


def test_a_rule_under_the_hull_is_discarded():
    r1 = rule(range(6), range(1))          # (1, 6)
    r2 = rule(range(3), range(10))         # below every segment, also shifted
    r3 = rule((), range(5))                # negatives only
    r4 = rule(range(6), range(1))          # nothing left once r1 is removed
    rules = select(r1, r2, r3, r4)
    assert [r.members for r in rules] == [[0]]


def test_concavity_after_the_insertion_removes_the_rule():
    ra = rule(range(6), (0,))              # (1, 6)
    rb = rule((6, 7), (1, 2, 3))           # then (4, 8)
    rc = rule(range(8), (0, 4))            # (2, 8): under ra's segment; past ra:
    rules = [ListRule([0], ra), ListRule([1], rb)]  # (1, 2), above rb's segment
    assert points(rules) == [(0, 0), (1, 6), (4, 8)]
    fp, tp, unions = list_points(rules, POS, W8, 1)
    seg_tp, seg_fp = np.diff(np.append(tp, P)), np.diff(np.append(fp, N))
    assert insertion([rc], unions, seg_tp, seg_fp) == (0, 1)
    rules.insert(1, ListRule([2], rc))
    # rb now adds only negatives (5, 8): a concavity after the insertion
    assert points(rules) == [(0, 0), (1, 6), (2, 8), (5, 8)]
    assert repair(rules, 1, POS, W8, 1, P, N) == 1
    assert [r.members for r in rules] == [[0], [2]]
    assert [r.members for r in select(ra, rb, rc)] == [[0], [2]]


def test_concavity_before_the_insertion_makes_a_disjunction():
    ra = rule(range(4), range(4))          # (4, 4), slope 1
    rd = rule(range(4, 8), range(6))       # (6, 4) alone; past ra: (2, 4), slope 2
    rules = select(ra, rd)
    assert [r.members for r in rules] == [[0, 1]]  # ra OR rd
    assert points(rules) == [(0, 0), (6, 8)]
    assert np.array_equal(rules[0].bits, ra | rd)


def first_insertion_reference(cands, unions, seg_tp, seg_fp, pos_mask, w):
    """TryToInsertRule by its definition: every candidate (a boolean row
    mask) against every segment, counted with numpy."""
    scale = w.sum() ** 2 * 1e-12
    for k, c in enumerate(cands):
        for j, u in enumerate(unions):
            rest = c & ~u
            tp, fp = w[rest & pos_mask].sum(), w[rest & ~pos_mask].sum()
            if tp == 0:
                if fp == 0:
                    break
                continue
            if tp * seg_fp[j] - fp * seg_tp[j] > scale:
                return k, j
    return -1, -1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_first_insertion_skips_only_segments_it_cannot_be_above(seed, weighted):
    """The kernel's bounds skip segments without counting; its answer is
    the one of counting every candidate against every segment."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(20, 300))
    y = rng.random(m) < rng.uniform(0.2, 0.8)
    w = rng.random(m) + 0.5 if weighted else np.ones(m)
    pos = core.pack_bits(y.astype(np.uint8))
    masks = rng.random((60, m)) < rng.uniform(0.05, 0.6, (60, 1))
    listed = select_rules(np.array([core.pack_bits(x.astype(np.uint8)) for x in masks[:30]]),
                          pos, w)
    W = pos.shape[0]
    fp, tp, unions = list_points(listed, pos, w, W)
    P, N = w[y].sum(), w[~y].sum()
    seg_tp, seg_fp = np.diff(np.append(tp, P)), np.diff(np.append(fp, N))
    tries = masks[30:]
    c = Candidates.from_bits(np.array([core.pack_bits(x.astype(np.uint8)) for x in tries]),
                             pos, w)
    union_masks = np.array([core.unpack_bits(u, m).astype(bool) for u in unions])
    for start in (0, 10):
        got = core.first_insertion(c.item_bits, c.items, c.ends, c.tp, c.fp, start, unions,
                                   seg_tp, seg_fp, pos, w)
        k, j = first_insertion_reference(tries[start:], union_masks, seg_tp, seg_fp, y, w)
        assert got == ((k + start, j) if k >= 0 else (-1, -1))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_selected_lists_are_convex(seed):
    rng = np.random.default_rng(seed)
    cands = np.array([core.pack_bits((rng.random(P + N) < rng.uniform(0.05, 0.6))
                                     .astype(np.uint8)) for _ in range(40)])
    rules = select(*cands)
    fp, tp, _ = list_points(rules, POS, W8, 1)
    fp, tp = np.append(fp, N), np.append(tp, P)
    assert _first_concavity(fp, tp) is None
    assert np.all(np.diff(fp) >= 0) and np.all(np.diff(tp) >= 0)
    # strictly decreasing slopes: every selected rule is a vertex of the hull
    for i in range(1, len(fp) - 1):
        cross = ((fp[i] - fp[i - 1]) * (tp[i + 1] - tp[i])
                 - (tp[i] - tp[i - 1]) * (fp[i + 1] - fp[i]))
        assert cross < 0


# --------------------------------------------------------------- the learner

@pytest.fixture(scope="module")
def heart():
    return Table("heart_disease")


@pytest.fixture(scope="module")
def heart_model(heart):
    return ROCCERLearner()(heart)


def test_posteriors_by_hand(heart, heart_model):
    model = heart_model
    X = model.data_to_model_domain(heart).X
    p = model(heart, model.Probs)
    np.testing.assert_allclose(p.sum(1), 1)
    for cl in model.class_lists:
        pts = cl.points
        assert pts[0].tolist() == [0, 0] and pts[-1].tolist() == [1, 1]
        for i in range(10):
            x = X[i]
            seg = len(cl.rules)
            for e, conjunctions in enumerate(cl.rules):
                if any(all(c.op == "==" and x[c.column] == c.value
                           or c.op == ">=" and x[c.column] >= c.value
                           or c.op == "<" and x[c.column] < c.value for c in conds)
                       for conds in conjunctions):
                    seg = e
                    break
            dtp = (pts[seg + 1, 1] - pts[seg, 1]) * cl.P
            dfp = (pts[seg + 1, 0] - pts[seg, 0]) * cl.N
            lr = ((dtp + 1) / (cl.P + 2)) / ((dfp + 1) / (cl.N + 2))
            odds = lr * cl.P / cl.N
            assert model.posteriors(heart[i:i + 1])[0, cl.cls] == pytest.approx(odds / (1 + odds))
    assert (p.argmax(1) == heart.Y).mean() > 0.75


def test_rules_expose_roc_points(heart_model):
    for r in heart_model.rule_list:
        fpr, tpr = r.extra["roc_point"]
        assert 0 <= fpr <= 1 and 0 <= tpr <= 1
    text = str(heart_model)
    assert "hull points (" in text and "default" in text


def test_printout_gives_each_entry_the_viewers_likelihood_ratio(heart_model):
    """The printout's likelihood ratio is the viewer's, for the printed
    class: an entry whose segment lowers its list's class (ratio below 1)
    prints the other class and the reciprocal (it printed the list's
    ratio beside the other class's name)."""
    import re

    from orangecontrib.rules import viewer
    shown = {c.name: c.values for c in viewer.rule_table(heart_model).columns}
    ratio = shown["Likelihood ratio"]
    printed = re.findall(r"^  (\d+)\. IF .* THEN (.*)  \(rules? ([0-9-]+); FPR .*"
                         r"likelihood ratio ([0-9.]+)\)$", str(heart_model), re.M)
    favours, _ = heart_model.rule_directions()
    flipped = 0
    entries = [(cl, e) for cl in heart_model.class_lists for e in range(len(cl.rules))]
    assert len(printed) == len(entries)
    for (cl, e), (number, head, rules, value) in zip(entries, printed):
        k = int(cl.columns[e][0])
        assert int(number) == e + 1
        # the entry's rules by the numbers explanations cite
        first, _, last = rules.partition("-")
        assert (int(first), int(last or first)) == (k + 1, int(cl.columns[e][-1]) + 1)
        assert head.endswith(f"= {heart_model.domain.class_var.values[favours[k]]}")
        assert float(value) == pytest.approx(ratio[k], abs=0.006)
        assert ratio[k] >= 1  # two classes: the printed class's odds go up
        flipped += favours[k] != cl.cls
    assert flipped  # heart_disease's lists end in segments below the diagonal


def test_many_classes_print_their_lists_ratio_beside_the_weights_class():
    """With the multinomial combination a rule's head is the class its
    entry's weights raise; its likelihood ratio is its list's segment's,
    never a reciprocal, and names the list's class when the head differs
    (it printed 1 / 0.78 beside Iris-virginica for an entry of the
    Iris-versicolor list)."""
    import re

    from orangecontrib.rules import viewer
    model = ROCCERLearner(max_rules=10)(Table("iris"))
    assert model.combination is not None
    ratio = {c.name: c.values for c in viewer.rule_table(model).columns}["Likelihood ratio"]
    favours, _ = model.rule_directions()
    values = model.domain.class_var.values
    text = str(model)
    named = 0
    for cl in model.class_lists:
        lr = cl.likelihood_ratios()
        for e, cols in enumerate(cl.columns):
            k = int(cols[0])
            assert ratio[k] == pytest.approx(lr[e])
            if favours[k] != cl.cls:
                named += 1
                assert re.search(rf"THEN iris = {values[favours[k]]}  \(rules? [0-9-]+; "
                                 rf"FPR [0-9.]+, TPR "
                                 rf"[0-9.]+, likelihood ratio of {values[cl.cls]} "
                                 rf"{lr[e]:.2f}\)", text)
    assert named  # iris at ten rules has such an entry


def test_multiclass_and_determinism():
    iris = Table("iris")
    a, b = ROCCERLearner()(iris), ROCCERLearner()(iris)
    assert [cl.cls for cl in a.class_lists] == [0, 1, 2]
    p = a(iris, a.Probs)
    assert p.shape == (150, 3) and np.allclose(p.sum(1), 1)
    assert (p.argmax(1) == iris.Y).mean() > 0.9
    np.testing.assert_array_equal(p, b(iris, b.Probs))
    assert pickle.loads(pickle.dumps(a)).rule_list == a.rule_list


def test_no_frequent_itemsets_gives_the_default_rule():
    rng = np.random.default_rng(0)
    domain = Domain([DiscreteVariable("a", values=tuple("pqrstuvw"))],
                    DiscreteVariable("y", values=("n", "y")))
    data = Table.from_numpy(domain, rng.integers(0, 8, (40, 1)).astype(float),
                            (rng.random(40) < 0.5).astype(float))
    model = ROCCERLearner(min_support=0.9)(data)
    assert isinstance(model, ROCCERModel) and model.rule_list == []
    p = model(data, model.Probs)
    np.testing.assert_allclose(p, np.tile(model.prior, (40, 1)))


def test_bad_input_and_unknowns(heart):
    with pytest.raises(ValueError):
        ROCCERLearner(min_support=0)
    with pytest.raises(ValueError):
        ROCCERLearner(min_confidence=2)
    with pytest.raises(ValueError, match="categorical class"):
        ROCCERLearner()(Table("housing"))
    with pytest.raises(ValueError, match="empty"):
        ROCCERLearner()(heart[:0])
    one = heart[heart.Y == 0]
    assert isinstance(ROCCERLearner()(one), PriorRuleModel)
    # constant and all-missing columns, unknowns at prediction, weights
    n = len(heart)
    domain = Domain(list(heart.domain.attributes) + [ContinuousVariable("const"),
                                                    ContinuousVariable("gone")],
                    heart.domain.class_var)
    X = np.column_stack([heart.X, np.ones(n), np.full(n, np.nan)])
    odd = Table.from_numpy(domain, X, heart.Y, W=np.where(heart.Y == 1, 2.0, 1.0))
    model = ROCCERLearner()(odd)
    assert np.allclose(model.class_distribution,
                       [(heart.Y == 0).sum(), 2 * (heart.Y == 1).sum()])
    test = odd.copy()
    with test.unlocked(test.X):
        test.X[:10] = np.nan
    p = model(test, model.Probs)
    assert np.all(np.isfinite(p)) and np.allclose(p.sum(1), 1)
    np.testing.assert_allclose(p[0], p[1])  # all unknown: every default rule


def _synthetic(X, y):
    from Orange.data import ContinuousVariable
    k = int(y.max()) + 1
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", values=tuple(f"c{i}" for i in range(k))))
    return Table.from_numpy(domain, X, y.astype(float))


def test_every_class_gets_rules_with_many_classes():
    from sklearn.datasets import make_classification
    X, y = make_classification(1500, 10, n_informative=6, n_classes=10,
                               n_clusters_per_class=1, random_state=0)
    model = ROCCERLearner()(_synthetic(X, y))
    assert model.classes_without_rules() == []
    assert {r.head for r in model.rule_list} == set(range(10))
    # each class's threshold is relative to its prior: min(0.5, 2 * 0.1)
    assert all(cl.min_confidence == pytest.approx(0.2, abs=0.01) for cl in model.class_lists)


def test_numeric_thresholds_follow_a_curved_boundary():
    from sklearn.datasets import make_moons
    X, y = make_moons(1500, noise=0.3, random_state=0)
    data = _synthetic(X, y)
    train, test = data[:1000], data[1000:]
    thresholds = ROCCERLearner()(train)
    intervals = ROCCERLearner(numeric="intervals", min_confidence=0.5)(train)
    acc = [np.mean(m(test) == test.Y) for m in (thresholds, intervals)]
    assert acc[0] > 0.85 and acc[0] > acc[1]
    ops = {c.op for r in thresholds.rule_list for c in r.conditions}
    assert ops <= {">=", "<"} and ops  # conditions on the original attributes
    assert all(isinstance(v, type(data.domain.attributes[0])) for v in thresholds.domain.attributes)


def test_candidate_budget_caps_the_candidates(heart, heart_model):
    model = ROCCERLearner(max_candidates=60)(heart)
    assert all(0 < v <= 60 for v in model.stats["candidates"].values())
    assert max(model.stats["length"].values()) < 4  # the longest length that fits
    p = model(heart, model.Probs)
    assert np.allclose(p.sum(axis=1), 1)
    # the memory cap of the candidates' old coverage bitsets: accepted, ignored, warned
    with pytest.warns(FutureWarning, match="max_memory_mb"):
        old = ROCCERLearner(max_memory_mb=0.05)
    assert [str(r) for r in old(heart).rule_list] == [str(r) for r in heart_model.rule_list]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_candidates_as_itemsets_select_what_their_bitsets_select(seed, weighted):
    """The miner without coverage bitsets gives the same candidates, and
    Algorithm 1 over them (each one's coverage the AND of its items') selects
    the same lists as over their coverage bitsets."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(40, 200))
    Xd, _, lits, w = random_problem(rng, m, 5, 4, weighted)
    y = (rng.random(m) < 0.3) | (Xd[:, 0] == 0) & (rng.random(m) < 0.7)
    pos = core.pack_bits(y.astype(np.uint8))
    args = (lits.bits, lits.attr, pos, w, 0.03 * w.sum(), 0.3, 3, 10_000, True)
    items, ends, sup, cov, bits, *_ = core.mine_class_rules(*args)
    items2, ends2, sup2, cov2, none, *_ = core.mine_class_rules(*args, with_bits=False)
    assert none is None
    for a, b in ((items, items2), (ends, ends2), (sup, sup2), (cov, cov2)):
        assert np.array_equal(a, b)
    order = rng.permutation(len(sup))
    by_bits = select_rules(bits[order], pos, w)
    cands = Candidates.ordered(lits.bits, items, ends, sup, cov, order)
    for k in range(len(cands)):
        assert np.array_equal(cands.bits(k), bits[order[k]])
    by_items = select_rules(cands, pos, w)
    assert [r.members for r in by_items] == [r.members for r in by_bits]
    for a, b in zip(by_items, by_bits):
        assert np.array_equal(a.bits, b.bits)


def same_lists(got, expected):
    assert [r.members for r in got] == [r.members for r in expected]
    for a, b in zip(got, expected):
        assert np.array_equal(a.bits, b.bits)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from([0.05, 0.3, 0.8]))
def test_compiled_selection_selects_what_python_driving_the_kernels_selects(
        seed, weighted, density):
    """``core.HullSelection`` (the insertions and repairs without the GIL)
    against Algorithm 1 driven from Python (``tests/roccer_reference.py``):
    the same entries, members in the same order, the same coverage; random
    candidates many enough that entries are removed, merged and the pool
    grows, on itemsets and on bitsets, with equal and with random weights,
    and with ties (duplicated candidates)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 400))
    y = rng.random(m) < rng.uniform(0.1, 0.9)
    w = rng.integers(1, 4, m).astype(float) if weighted else np.ones(m)
    pos = core.pack_bits(y.astype(np.uint8))
    n = int(rng.integers(1, 120))
    masks = rng.random((n, m)) < density * rng.uniform(0.1, 1.0, (n, 1))
    masks[rng.random(n) < 0.1] = True  # some cover everything
    bits = np.array([core.pack_bits(x.astype(np.uint8)) for x in masks])
    if n > 3:
        bits[n // 2] = bits[n // 3]  # a tie
    same_lists(select_rules(bits, pos, w), reference_select_rules(bits, pos, w))
    # as itemsets: the AND of two or three of the bitsets
    ends = np.cumsum(rng.integers(1, 4, n)).astype(np.int32)
    items = rng.integers(0, n, ends[-1]).astype(np.int32)
    cands = Candidates.ordered(bits, items, ends, *[np.zeros(n)] * 2, np.arange(n))
    ands = np.array([cands.bits(k) for k in range(n)])
    cands.tp, cands.fp = core.coverage_counts(ands, pos, w)
    same_lists(select_rules(cands, pos, w), reference_select_rules(cands, pos, w))


def test_compiled_selection_grows_its_pool_for_long_hulls():
    """Forty rules on a convex curve (block ``i`` of five positives and
    ``i + 1`` negatives, slopes falling) in a shuffled order: more entries
    than the pool first holds (16), inserted in the middle of the list,
    some merged on the way; the reference's list."""
    n_rules, block = 40, 5
    neg_counts = np.arange(1, n_rules + 1)
    m = n_rules * block + int(neg_counts.sum()) + 200  # and negatives no rule covers
    y = np.zeros(m, bool)
    y[:n_rules * block] = True
    w = np.ones(m)
    masks = np.zeros((n_rules, m), bool)
    first_neg = n_rules * block + np.concatenate([[0], np.cumsum(neg_counts)[:-1]])
    for i in range(n_rules):
        masks[i, i * block:(i + 1) * block] = True
        masks[i, first_neg[i]:first_neg[i] + neg_counts[i]] = True
    pos = core.pack_bits(y.astype(np.uint8))
    order = np.random.default_rng(0).permutation(n_rules)
    bits = np.array([core.pack_bits(x.astype(np.uint8)) for x in masks[order]])
    got = select_rules(bits, pos, w)
    assert len(got) > 16
    same_lists(got, reference_select_rules(bits, pos, w))


def test_compiled_selection_on_mined_candidates_and_its_progress(heart):
    """On the candidates ROCCER mines for heart_disease: the reference's
    lists; the progress is told the share of the candidates tried and may
    cancel between insertions."""
    from orangecontrib.rules.features import encode_table
    enc = encode_table(heart)
    items = make_items(heart, enc, 4)
    y = enc.y == 1
    pos = core.pack_bits(y.astype(np.uint8))
    found, ends, sup, cov, *_ = core.mine_class_rules(
        items.bits, items.group, pos, enc.w, 0.05 * enc.w.sum(), 0.5, 4, 200_000, True,
        600_000, with_bits=False)
    order = np.argsort(-sup / cov, kind="stable")
    cands = Candidates.ordered(items.bits, found, ends, sup, cov, order)
    assert len(cands) > 500
    same_lists(select_rules(cands, pos, enc.w), reference_select_rules(cands, pos, enc.w))
    import orangecontrib.rules.roccer as R
    told = []
    every, R.PROGRESS_EVERY = R.PROGRESS_EVERY, 0.0
    chunk, R.SELECTION_CHUNK = R.SELECTION_CHUNK, 1
    try:
        select_rules(cands, pos, enc.w, told.append)

        def cancel(share):
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            select_rules(cands, pos, enc.w, cancel)
    finally:
        R.PROGRESS_EVERY, R.SELECTION_CHUNK = every, chunk
    assert len(told) > 10 and told and told == sorted(told) and 0 < told[0] and told[-1] <= 1


def test_many_classes_combine_the_lists_by_a_multinomial_regression():
    """More than two classes: the probabilities are the softmax of one
    multinomial regression over the entries of every class's list; the
    lists (the rules a user reads) are those of ``multi_class="hulls"``,
    whose probabilities are the hulls' normalised odds."""
    from scipy.special import softmax
    data = Table("zoo")
    logistic = ROCCERLearner()(data)
    hulls = ROCCERLearner(multi_class="hulls")(data)
    assert hulls.combination is None
    assert [str(r) for r in logistic.rule_list] == [str(r) for r in hulls.rule_list]
    classes, b0, W = logistic.combination
    assert W.shape == (sum(len(cl.rules) for cl in logistic.class_lists), len(classes))
    p = logistic(data, logistic.Probs)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    # the softmax of the entries that fire, written out row by row
    cover = logistic.covering(data)
    for i in range(0, len(data), 17):
        fires = [cover[i, c].any() for cl in logistic.class_lists for c in cl.columns]
        expected = softmax(b0 + np.array(fires, dtype=float) @ W)
        np.testing.assert_allclose(p[i, classes], expected, atol=1e-12)
    assert np.mean(logistic(data) == data.Y) >= np.mean(hulls(data) == data.Y)
    again = pickle.loads(pickle.dumps(logistic))
    np.testing.assert_allclose(again(data, again.Probs), p)


def test_two_classes_keep_the_papers_hull_probabilities(heart):
    a = ROCCERLearner()(heart)
    b = ROCCERLearner(multi_class="hulls")(heart)
    assert a.combination is None
    np.testing.assert_array_equal(a(heart, a.Probs), b(heart, b.Probs))


def test_search_sample_selects_on_the_sample_and_counts_on_every_row(heart):
    """Beyond ``search_rows`` rows the lists are those the sample alone
    gives (mined and selected on it, exactly), their ROC points are counted
    on every row, and up to ``search_rows`` nothing changes."""
    exact = ROCCERLearner(search_rows=None)(heart)
    roomy = ROCCERLearner(search_rows=len(heart))(heart)
    assert roomy.search_rows is None
    assert [str(r) for r in roomy.rule_list] == [str(r) for r in exact.rule_list]
    np.testing.assert_array_equal(roomy(heart, roomy.Probs), exact(heart, exact.Probs))

    learner = ROCCERLearner(search_rows=150)
    model = learner(heart)
    rows = learner.search_sample(heart.Y.astype(int), heart.domain.class_var.values)
    assert model.search_rows == len(rows) and abs(len(rows) - 150) <= 1
    assert any("sample of" in line for line in model.summary_lines())
    on_sample = ROCCERLearner(search_rows=None)(heart[rows])

    def bodies(m):  # the rules' conditions and classes (counts differ: all rows)
        return [(tuple(r.conditions), r.head) for r in m.rule_list]
    assert bodies(model) == bodies(on_sample) and bodies(model)
    assert bodies(learner(heart)) == bodies(model)
    cover = model.covering(heart)
    y = heart.Y.astype(int)
    for cl in model.class_lists:
        assert (cl.P, cl.N) == (np.sum(y == cl.cls), np.sum(y != cl.cls))
        union = np.zeros(len(heart), bool)
        for e, cols in enumerate(cl.columns):
            union |= cover[:, cols].any(axis=1)
            tpr, fpr = np.mean(union[y == cl.cls]), np.mean(union[y != cl.cls])
            np.testing.assert_allclose(cl.points[e + 1], (fpr, tpr))
    p = model(heart, model.Probs)
    assert np.allclose(p.sum(axis=1), 1) and pickle.loads(pickle.dumps(model)).search_rows


def test_search_sample_chooses_the_combinations_weight_on_the_sample():
    """More than two classes beyond ``search_rows`` rows: the regression
    over the lists' entries takes its L2 weight from an internal CV on the
    search sample and is fitted on every row."""
    from orangecontrib.rules.logistic import DEFAULT_LAMBDAS, choose_lambda, multinomial_l2
    data = Table("iris")
    learner = ROCCERLearner(search_rows=60)
    model = learner(data)
    rows = learner.search_sample(data.Y.astype(int), data.domain.class_var.values)
    E = model.entry_indicators(data.X)
    y, w = data.Y.astype(int), np.ones(len(data))
    lam = choose_lambda(E[rows], y[rows], w[rows], DEFAULT_LAMBDAS, n_classes=3,
                        random_state=0)
    b0, W = multinomial_l2(E, y, w, lam, 3)
    np.testing.assert_allclose(model.combination[1], b0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.combination[2], W, rtol=1e-10, atol=1e-12)


def test_many_classes_with_a_class_without_rows():
    data = Table("iris")
    data = data[data.Y != 1]
    model = ROCCERLearner()(data)
    p = model(data, model.Probs)
    assert np.all(p[:, 1] == 0)
    np.testing.assert_allclose(p.sum(axis=1), 1)


def _first_concavity_by_loop(fp, tp):
    """The definition, point by point (the reference for the vector form)."""
    for i in range(1, len(fp) - 1):
        dx1, dy1 = fp[i] - fp[i - 1], tp[i] - tp[i - 1]
        dx2, dy2 = fp[i + 1] - fp[i], tp[i + 1] - tp[i]
        if dx1 == 0 and dy1 == 0:
            return i, "empty"
        cross = dx1 * dy2 - dy1 * dx2
        tol = 1e-9 * (abs(dx1 * dy2) + abs(dy1 * dx2))
        if cross > tol:
            return i, "concave"
        if cross >= -tol:
            return i, "collinear"
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=0, max_size=12))
def test_first_concavity_is_the_point_by_point_definition(steps):
    """Curves of small integer steps: empty, collinear, concave and convex
    points all occur."""
    fp = np.cumsum([0] + [a for a, _ in steps]).astype(float)
    tp = np.cumsum([0] + [b for _, b in steps]).astype(float)
    assert _first_concavity(fp, tp) == _first_concavity_by_loop(fp, tp)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_list_curve_kept_up_to_date_equals_the_points_from_scratch(seed):
    """ListCurve recomputes only from the changed entry on: after random
    inserts, removals and merges its points are those of list_points."""
    from roccer_reference import ListCurve
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    W = (n + 63) // 64
    y = rng.random(n) < 0.4
    pos = core.pack_bits(y.astype(np.uint8))
    w = rng.random(n) + 0.5 if rng.random() < 0.5 else np.ones(n)
    curve = ListCurve(pos, w, W)
    rules = []
    curve.points(rules)
    for _ in range(40):
        op = rng.integers(3) if rules else 0
        if op == 0:  # insert at j
            j = int(rng.integers(len(rules) + 1))
            bits = core.pack_bits((rng.random(n) < 0.2).astype(np.uint8))
            rules.insert(j, ListRule([0], bits))
        elif op == 1:  # remove entry j
            j = int(rng.integers(len(rules)))
            del rules[j]
        else:  # merge j and j + 1
            j = int(rng.integers(len(rules)))
            if j + 1 < len(rules):
                a, b = rules[j], rules[j + 1]
                rules[j:j + 2] = [ListRule(a.members + b.members, a.bits | b.bits)]
        got = curve.points(rules, min(j, len(rules)))
        want = list_points(rules, pos, w, W)
        for g, e in zip(got, want):
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name, search_rows", [("heart_disease", None), ("iris", None),
                                               ("iris", 60)])
def test_classes_in_threads_give_the_same_model(name, search_rows):
    """``n_jobs``: the classes are mined and selected in threads, the model
    (lists, ROC points, combination, probabilities, statistics but the
    seconds) the same as in one job, also on a search sample."""
    data = Table(name)
    one = ROCCERLearner(search_rows=search_rows)(data)
    two = ROCCERLearner(search_rows=search_rows, n_jobs=2)(data)
    assert str(one) == str(two) and one.rule_list
    np.testing.assert_array_equal(one(data, one.Probs), two(data, two.Probs))
    for a, b in zip(one.class_lists, two.class_lists):
        np.testing.assert_array_equal(a.points, b.points)
    assert {k: v for k, v in one.stats.items() if not k.endswith("_s")} == \
        {k: v for k, v in two.stats.items() if not k.endswith("_s")}
    if one.combination is not None:
        for a, b in zip(one.combination, two.combination):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="n_jobs"):
        ROCCERLearner(n_jobs=0)


def test_selection_refuses_items_out_of_range_and_takes_no_candidates():
    """A candidate whose item is not a row of the items' bitsets is a clear
    ValueError from the insertion test and from the compiled selection (not
    a read past the array); no candidates select an empty list."""
    bits = np.array([rule(range(5), (0,)), rule(range(3), (1, 2))])
    bad = Candidates(bits, np.array([0, 7], dtype=np.int32), np.array([1, 2], dtype=np.int32),
                     np.array([5.0, 3.0]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="cand_items index item_bits"):
        select_rules(bad, POS, W8)
    unions = np.zeros((1, bits.shape[1]), np.uint64)
    with pytest.raises(ValueError, match="cand_items index item_bits"):
        core.first_insertion(bad.item_bits, bad.items, bad.ends, bad.tp, bad.fp, 1, unions,
                             np.array([float(P)]), np.array([float(N)]), POS, W8)
    none = Candidates(bits, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0),
                      np.zeros(0))
    assert select_rules(none, POS, W8) == []
