"""Logistic regression with EVC-penalised rules (eq. 21-22)."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import approx_fprime
from scipy.special import expit

from Orange.data import Table
from Orange.evaluation import AUC, CA, CrossValidation

from orangecontrib.rules import (EVCRuleLearner, Rule,
                                 RuleLogisticRegressionLearner,
                                 RuleLogisticRegressionModel)
from orangecontrib.rules.logistic import choose_lambda, fit_binary, loss_and_gradient, newton_l2
from orangecontrib.rules.logreg import AttributeFeatures, rule_penalties


def random_problem(seed, n=40, p=3, K=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    R = (rng.random((n, K)) < 0.4).astype(float)
    y = (rng.random(n) < 0.4).astype(float)
    v = rng.uniform(0.2, 2.0, n)
    gamma = rng.uniform(0, 3, K)
    return X, R, y, v, gamma, rng


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 5.0))
def test_gradient_matches_finite_differences(seed, lam):
    X, R, y, v, gamma, rng = random_problem(seed)
    theta = rng.normal(size=1 + X.shape[1] + 2 * R.shape[1])
    theta[1 + X.shape[1]:] = np.abs(theta[1 + X.shape[1]:])  # b+, b- >= 0
    loss, grad = loss_and_gradient(theta, X, R, y, v, lam, gamma)
    num = approx_fprime(theta, lambda t: loss_and_gradient(t, X, R, y, v, lam, gamma)[0],
                        1e-6)
    np.testing.assert_allclose(grad, num, rtol=1e-4, atol=1e-4)


def test_loss_is_eq_21():
    X, R, y, v, gamma, rng = random_problem(1)
    p, K = X.shape[1], R.shape[1]
    b0, w = 0.3, rng.normal(size=p)
    bp, bm = np.abs(rng.normal(size=K)), np.zeros(K)
    bm[0], bp[0] = 0.7, 0.0
    lam = 1.5
    b = bp - bm
    f = b0 + X @ w + R @ b
    ypm = 2 * y - 1
    expected = (-np.sum(v * np.log(expit(ypm * f))) + lam / 2 * (w @ w + b @ b)
                + gamma @ np.abs(b))
    loss, _ = loss_and_gradient(np.concatenate(([b0], w, bp, bm)), X, R, y, v, lam, gamma)
    assert loss == pytest.approx(expected)


def test_penalty_is_eq_22_and_zero_for_relative_frequency():
    r = Rule([], 1, [4.0, 16.0], quality=0.7)
    assert rule_penalties([r], 1)[0] == pytest.approx(16 - 0.7 * 20)
    exact = Rule([], 1, [4.0, 16.0], quality=16 / 20)
    assert rule_penalties([exact], 1)[0] == 0
    assert rule_penalties([exact], 0)[0] == 0  # symmetric in the sign of b


def test_penalty_shrinks_rule_weights():
    X, R, y, v, _, _ = random_problem(2, n=200)
    y = np.where(R[:, 0] > 0, 1.0, y)  # rule 0 is predictive
    free = fit_binary(X, R, y, v, 0.1, np.zeros(4))[2]
    pen = fit_binary(X, R, y, v, 0.1, np.full(4, 5.0))[2]
    assert abs(pen[0]) < abs(free[0])
    assert np.all(np.abs(pen) <= np.abs(free) + 1e-6)
    huge = fit_binary(X, R, y, v, 0.1, np.full(4, 1e4))[2]
    np.testing.assert_allclose(huge, 0, atol=1e-8)  # the |b| term is exact


def test_no_extra_penalty_equals_plain_l2():
    from sklearn.linear_model import LogisticRegression
    X, R, y, v, _, _ = random_problem(3, n=150)
    F = np.hstack([X, R])
    b0, w, b = fit_binary(X, R, y, v, 2.0, np.zeros(R.shape[1]))
    sk = LogisticRegression(C=1 / 2.0, tol=1e-10, max_iter=10000).fit(F, y, sample_weight=v)
    np.testing.assert_allclose(np.concatenate([w, b]), sk.coef_[0], atol=1e-4)
    assert b0 == pytest.approx(sk.intercept_[0], abs=1e-4)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.3, 3.0, 100.0]),
       st.booleans(), st.booleans())
def test_newton_l2_is_l2_logistic_regression(seed, lam, warm, separable):
    """Eq. 19 by Newton's method with kept (chord) Hessians: the minimiser
    of weighted L2 logistic regression (scikit-learn's, same penalty on the
    weights, none on the intercept), from a cold or a warm start, also on
    separable data."""
    from sklearn.linear_model import LogisticRegression
    X, _, y, v, _, rng = random_problem(seed, n=60, p=4)
    if separable:
        y = (X[:, 0] > 0).astype(float)
    start = (rng.normal(), rng.normal(size=4)) if warm else None
    b0, w = newton_l2(X, y, v, lam, start)
    sk = LogisticRegression(C=1 / lam, tol=1e-12, max_iter=100000).fit(X, y, sample_weight=v)
    np.testing.assert_allclose(w, sk.coef_[0], atol=1e-4 * max(1.0, np.abs(w).max()))
    assert b0 == pytest.approx(sk.intercept_[0], abs=1e-4 * max(1.0, abs(b0)))


def test_choose_lambda_prefers_regularisation_on_noise():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 30))
    y = (rng.random(80) < 0.5).astype(float)
    lam = choose_lambda(X, y, np.ones(80), lambdas=(0.01, 1.0, 100.0))
    assert lam == 100.0


@pytest.fixture(scope="module")
def heart():
    return Table("heart_disease")


@pytest.fixture(scope="module")
def heart_model(heart):
    return RuleLogisticRegressionLearner(
        rule_learner=EVCRuleLearner(n_permutations=15))(heart)


def test_model_shows_coefficients_with_rules(heart, heart_model):
    assert isinstance(heart_model, RuleLogisticRegressionModel)
    (cls, attrs, rules), = heart_model.coefficients()
    assert attrs[0][0] == "intercept" and len(rules) == len(heart_model.rules) > 0
    text = str(heart_model)
    assert "lambda" in text and "IF " in text and "q=" not in text
    # each rule of non-zero weight with its number named, none of weight 0
    assert text.count("EVC quality ") == heart_model.size[0]
    p = heart_model(heart, heart_model.Probs)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    m2 = pickle.loads(pickle.dumps(heart_model))
    np.testing.assert_array_equal(m2(heart, m2.Probs), p)


def test_variants(heart):
    rl = EVCRuleLearner(n_permutations=10)
    plain = RuleLogisticRegressionLearner(use_rules=False)(heart)
    assert plain.rules == [] and plain.rule_model is None
    only = RuleLogisticRegressionLearner(rule_learner=rl, attributes=False)(heart)
    assert only.features is None and len(only.submodels[0][4]) == len(only.rules)
    lrr = RuleLogisticRegressionLearner(rule_learner=rl, rule_penalty=False,
                                        lambda_=1.0)(heart)
    lrrp = RuleLogisticRegressionLearner(rule_learner=rl, lambda_=1.0)(heart)
    assert np.abs(lrrp.submodels[0][4]).sum() < np.abs(lrr.submodels[0][4]).sum()
    m2 = RuleLogisticRegressionLearner(
        rule_learner=EVCRuleLearner(quality="m", m=2), lambda_=1.0)(heart)
    assert m2.rule_model.gumbel is None
    with pytest.raises(ValueError):
        RuleLogisticRegressionLearner(attributes=False, use_rules=False)
    with pytest.raises(ValueError):
        RuleLogisticRegressionLearner(lambda_=-1)


def test_cross_validation_and_multiclass():
    learner = RuleLogisticRegressionLearner(
        rule_learner=EVCRuleLearner(n_permutations=10))
    res = CrossValidation(k=5, random_state=0)(Table("heart_disease"), [learner])
    assert CA(res)[0] > 0.78 and AUC(res)[0] > 0.86
    iris = Table("iris")
    model = learner(iris)
    assert len(model.submodels) == 3
    assert all(model.rules[k].head == cls for cls, idx, *_ in model.submodels
               for k in idx)
    p = model(iris, model.Probs)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert np.mean(np.argmax(p, axis=1) == iris.Y) > 0.9


def test_determinism_weights_and_bad_input(heart):
    rl = EVCRuleLearner(n_permutations=10, random_state=2)
    a = RuleLogisticRegressionLearner(rule_learner=rl)(heart)
    b = RuleLogisticRegressionLearner(rule_learner=rl)(heart)
    np.testing.assert_array_equal(a(heart, 1), b(heart, 1))
    doubled = heart.copy()
    with doubled.unlocked(doubled.W):
        doubled.W = np.full(len(heart), 2.0)
    twice = Table.concatenate([heart, heart])
    fixed = EVCRuleLearner(gumbel=a.rule_model.gumbel)  # no permutations
    c = RuleLogisticRegressionLearner(rule_learner=fixed, lambda_=1.0)(doubled)
    d = RuleLogisticRegressionLearner(rule_learner=fixed, lambda_=1.0)(twice)
    np.testing.assert_allclose(c(heart, 1), d(heart, 1), atol=1e-5)
    with pytest.raises(ValueError, match="categorical class"):
        RuleLogisticRegressionLearner()(Table("housing"))
    blank = heart[:2].copy()
    with blank.unlocked(blank.X):
        blank.X[:] = np.nan
    p = a(blank, 1)
    assert p.shape == (2, 2) and np.all(np.isfinite(p))


def test_attribute_features_standardise_any_scale():
    """Columns of 1e300 or 1e-300 are standardised, not overflowed or taken
    for constants; unknown values give 0; constant columns are dropped."""
    from Orange.data import ContinuousVariable, Domain
    rng = np.random.default_rng(0)
    base = rng.normal(size=50)
    X = np.c_[base * 1e300, base * 1e-300, base, np.ones(50)]
    X[3, 2] = np.nan
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(4)])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        features = AttributeFeatures(domain, X, np.ones(50))
        Z = features(X)
    assert features.names == ["x0", "x1", "x2"]
    expected = (base - base.mean()) / base.std()
    np.testing.assert_allclose(Z[:, 0], expected, atol=1e-9)
    np.testing.assert_allclose(Z[:, 1], expected, atol=1e-9)
    assert Z[3, 2] == 0


# ------------------------------------------------------------ many classes
def multiclass_problem(seed, n=60, p=3, K=5, C=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    R = (rng.random((n, K)) < 0.4).astype(float)
    y = rng.integers(0, C, n)
    y[:C] = np.arange(C)  # every class present
    heads = rng.integers(0, C, K)
    v = rng.uniform(0.2, 2.0, n)
    gamma = rng.uniform(0, 3, K)
    return X, R, heads, y, v, gamma, rng


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 5.0), st.booleans())
def test_softmax_gradient_matches_finite_differences(seed, lam, sparse):
    import scipy.sparse as sp
    from orangecontrib.rules.logistic import rule_blocks, softmax_loss_and_gradient
    X, R, heads, y, v, gamma, rng = multiclass_problem(seed)
    C, p, K = 3, X.shape[1], R.shape[1]
    Y = np.eye(C)[y]
    blocks = rule_blocks(sp.csr_matrix(R) if sparse else R, heads, C)
    theta = rng.normal(size=C + p * C + 2 * K)
    theta[C + p * C:] = np.abs(theta[C + p * C:])
    loss, grad = softmax_loss_and_gradient(theta, X, blocks, Y, v, lam, gamma)
    num = approx_fprime(
        theta, lambda t: softmax_loss_and_gradient(t, X, blocks, Y, v, lam, gamma)[0], 1e-6)
    np.testing.assert_allclose(grad, num, rtol=1e-4, atol=1e-4)


def test_softmax_loss_is_the_multinomial_likelihood():
    """The loss, written out with a slow loop over rows and rules."""
    from orangecontrib.rules.logistic import rule_blocks, softmax_loss_and_gradient
    X, R, heads, y, v, gamma, rng = multiclass_problem(4)
    C, p, K = 3, X.shape[1], R.shape[1]
    b0, W = rng.normal(size=C), rng.normal(size=(p, C))
    bp, bm = np.abs(rng.normal(size=K)), np.abs(rng.normal(size=K))
    lam = 0.7
    b = bp - bm
    expected = lam * np.sum(W ** 2) + lam / 2 * (b @ b) + gamma @ (bp + bm)
    for i in range(len(y)):
        f = b0 + X[i] @ W
        for k in range(K):
            f[heads[k]] += R[i, k] * b[k]
        expected -= v[i] * (f[y[i]] - np.log(np.sum(np.exp(f))))
    theta = np.concatenate([b0, W.ravel(), bp, bm])
    loss, _ = softmax_loss_and_gradient(theta, X, rule_blocks(R, heads, C), np.eye(C)[y],
                                        v, lam, gamma)
    assert loss == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(4))
def test_multinomial_on_two_classes_is_the_binary_model(seed):
    """Softmax over two classes is the binary eq. 21 with the same
    ``lambda``: ``W_1 = -W_0 = w / 2``, and a rule of class 0 weighs ``-b``
    on the log-odds of class 1."""
    from orangecontrib.rules.logreg import Multinomial, OneVsRest
    X, R, heads, y, v, gamma, _ = multiclass_problem(seed, n=120, C=2)
    lam = 0.8
    binary = OneVsRest([(1, np.arange(R.shape[1]), gamma, lam)], 2)
    multi = Multinomial([0, 1], heads, gamma, lam, 2)
    import scipy.sparse as sp
    cover = sp.csr_matrix(R)
    p_bin = binary.probabilities(X, cover, binary.fit(X, cover, y, v))
    fit = multi.fit(X, cover, y, v)
    p_multi = multi.probabilities(X, cover, fit)
    np.testing.assert_allclose(p_multi, p_bin, atol=2e-4)
    (_, _, b_bin), = binary.fit(X, cover, y, v)
    b_multi = fit[2] * np.where(heads == 1, 1, -1)
    np.testing.assert_allclose(b_multi, b_bin, atol=2e-3)


def test_multinomial_without_rules_is_sklearns_multinomial_regression():
    from sklearn.linear_model import LogisticRegression
    from orangecontrib.rules.logistic import fit_multinomial
    X, _, _, y, v, _, _ = multiclass_problem(5, n=200, C=4)
    b0, W, _ = fit_multinomial(X, None, [], y, v, 1.0, np.zeros(0), 4, tol=1e-14)
    sk = LogisticRegression(C=1 / 2.0, tol=1e-10, max_iter=10000).fit(X, y, sample_weight=v)
    # sklearn: |W|^2 / (2 C), ours lambda |W|^2; the same up to a shift of the intercepts
    np.testing.assert_allclose(W, sk.coef_.T, atol=1e-4)
    np.testing.assert_allclose(b0 - b0.mean(), sk.intercept_ - sk.intercept_.mean(), atol=1e-4)


@pytest.mark.parametrize("name", ["iris", "zoo"])
def test_multinomial_model_on_real_data(name):
    data = Table(name)
    multi = RuleLogisticRegressionLearner()(data)
    ovr = RuleLogisticRegressionLearner(multi_class="ovr")(data)
    assert multi.multinomial and not ovr.multinomial
    for model in (multi, ovr):
        p = model(data, model.Probs)
        np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-9)
        assert np.all(p >= 0)
        assert np.mean(model(data) == data.Y) > 0.9
    # each class has its log-odds, its rules weigh on it only
    classes = [c for c, *_ in multi.submodels]
    assert classes == list(range(len(data.domain.class_var.values)))
    for c, idx, _, _, b in multi.submodels:
        assert all(multi.rule_list[k].head == c for k in idx)
    assert "multinomial" in " ".join(multi.summary_lines())
    again = pickle.loads(pickle.dumps(multi))
    np.testing.assert_allclose(again(data, again.Probs), multi(data, multi.Probs), rtol=1e-12)


def test_multinomial_with_a_class_without_rows_and_a_budget():
    data = Table("iris")
    data = data[data.Y != 1]  # class 1 has no rows
    model = RuleLogisticRegressionLearner(max_rules=3)(data)
    p = model(data, model.Probs)
    assert np.all(p[:, 1] == 0)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    assert len(model.used_rules()) <= 3
    assert model.size_curve and any(point["chosen"] for point in model.size_curve)


@pytest.mark.parametrize("seed", range(3))
def test_newton_multinomial_is_the_lbfgs_minimiser(seed):
    from orangecontrib.rules.logistic import (fit_multinomial, newton_multinomial,
                                              softmax_loss_and_gradient)
    X, _, _, y, v, _, rng = multiclass_problem(seed, n=150, C=4)
    for lam, start in ((0.3, None), (0.01, (rng.normal(size=4), rng.normal(size=(3, 4))))):
        b0, W = newton_multinomial(X, y, v, lam, 4, start)
        b0_ref, W_ref, _ = fit_multinomial(X, None, [], y, v, lam, np.zeros(0), 4,
                                           tol=1e-15, max_iter=10000)
        np.testing.assert_allclose(W, W_ref, atol=1e-4)
        np.testing.assert_allclose(b0 - b0[-1], b0_ref - b0_ref[-1], atol=1e-4)
        # the gradient vanishes at Newton's solution
        theta = np.concatenate([b0, W.ravel()])
        _, grad = softmax_loss_and_gradient(theta, X, [(np.zeros(0, int), None, None)] * 4,
                                            np.eye(4)[y], v, lam, np.zeros(0))
        assert np.abs(grad).max() < 1e-6


def test_summary_shows_the_strongest_attribute_weights():
    model = RuleLogisticRegressionLearner()(Table("iris"))
    lines = [l for l in model.summary_lines() if l.startswith("Attributes, log-odds of")]
    assert len(lines) == 3
    (cls, attrs, _), = [c for c in model.coefficients() if c[0] == "Iris-virginica"]
    name, w = max(attrs[1:], key=lambda nw: abs(nw[1]))
    assert f"{name} {w:+.2f}" in next(l for l in lines if "Iris-virginica" in l)


def test_size_counts_the_attribute_weights_beside_the_rules():
    """A budget of k rules plus the attribute weights is what a user reads:
    the model's size text, printout, summary and size curve name both."""
    from orangecontrib.rules import size_curve
    data = Table("heart_disease")
    model = RuleLogisticRegressionLearner(max_rules=3)(data)
    terms = sum(int(np.count_nonzero(w)) for _, _, _, w, _ in model.submodels)
    assert model.attribute_terms == terms > 0
    rules, conditions = model.size
    text = f"{rules} rules and {terms} attribute weights, {conditions} conditions"
    assert model.size_text() == text
    assert f"{rules} rules of non-zero weight and {terms} attribute weights" in str(model)
    assert text in model.summary_lines()[0]
    plain = RuleLogisticRegressionLearner(attributes=False)(data)
    assert plain.attribute_terms == 0 and "attribute weights" not in plain.size_text()
    curve = size_curve(RuleLogisticRegressionLearner(), data, budgets=(3,), n_folds=2)
    assert curve[0]["attribute_terms"] > 0


# ------------------------------------------------- the multinomial model's penalty scale
def test_held_out_third_follows_the_rows_values():
    """About a third held out; a row's side depends on its values only
    (copies together, any row order), weightless rows on neither side."""
    from orangecontrib.rules.logreg import held_out_third
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    v = np.where(rng.random(600) < 0.1, 0.0, 1.0)
    train, test = held_out_third(X, v, 5)
    assert not set(train) & set(test)
    assert set(train) | set(test) == set(np.flatnonzero(v > 0))
    assert 0.25 < len(test) / (v > 0).sum() < 0.42
    order = rng.permutation(600)
    tr2, te2 = held_out_third(X[order], v[order], 5)
    assert set(order[te2]) == set(test)
    copies = np.vstack([X, X[:50]])
    _, te3 = held_out_third(copies, np.ones(650), 5)
    held = set(te3)
    assert all((i in held) == (600 + i in held) for i in range(50))
    assert not set(held_out_third(X, v, 6)[1]) == set(test)  # the seed matters


@pytest.mark.parametrize("name", ["zoo", "iris"])
def test_penalty_scale_is_the_held_out_choice(name):
    """The scale chosen has the least held-out log loss (ties: the larger
    scale), and the model is the one fitted with that scale alone."""
    data = Table(name)
    model = RuleLogisticRegressionLearner()(data)
    losses = model.penalty_scale_losses
    assert set(losses) == {1.0, 0.5, 0.25}
    best = min(losses.values())
    assert losses[model.penalty_scale] <= best * (1 + 1e-3)
    assert all(s <= model.penalty_scale for s, loss in losses.items()
               if loss <= best * (1 + 1e-3))
    fixed = RuleLogisticRegressionLearner(penalty_scales=(model.penalty_scale,))(data)
    assert fixed.penalty_scale_losses is None
    np.testing.assert_allclose(model(data, model.Probs), fixed(data, fixed.Probs),
                               rtol=1e-10, atol=1e-12)


def test_the_penalty_scale_rules_use_the_full_datas_gumbel_parameters(monkeypatch):
    """The rules on two thirds of the rows that choose the penalty scale
    are learned with the Gumbel parameters of the full data's rules: one
    fit of permutation searches, not two. The rule learner the user gave
    is left as it was, and one with Gumbel parameters of its own (or the
    m-estimate) keeps them."""
    data = Table("iris")
    searched, used = [], []
    fit_gumbel, fit_rules = EVCRuleLearner.fit_gumbel, EVCRuleLearner.fit_rules

    def counted(self, *args, **kwargs):
        searched.append(len(args[0].y))
        return fit_gumbel(self, *args, **kwargs)

    def recorded(self, data, enc):
        used.append((len(data), self.gumbel))
        return fit_rules(self, data, enc)

    monkeypatch.setattr(EVCRuleLearner, "fit_gumbel", counted)
    monkeypatch.setattr(EVCRuleLearner, "fit_rules", recorded)
    rule_learner = EVCRuleLearner()
    model = RuleLogisticRegressionLearner(rule_learner=rule_learner)(data)
    assert model.penalty_scale_losses is not None  # the scale was chosen
    assert searched == [len(data)]  # on the full data only
    (n_full, none), (n_part, given) = used
    assert n_full == len(data) and none is None and n_part < n_full
    assert given is model.rule_model.gumbel
    assert rule_learner.gumbel is None  # not changed in place
    own = model.rule_model.gumbel
    searched.clear()
    RuleLogisticRegressionLearner(rule_learner=EVCRuleLearner(gumbel=own))(data)
    RuleLogisticRegressionLearner(rule_learner=EVCRuleLearner(quality="m"))(data)
    assert searched == []


def test_penalty_scale_leaves_two_classes_and_ovr_alone():
    data = Table("heart_disease")
    a = RuleLogisticRegressionLearner()(data)
    b = RuleLogisticRegressionLearner(penalty_scales=(1.0,))(data)
    assert a.penalty_scale == 1.0 and a.penalty_scale_losses is None
    np.testing.assert_array_equal(a(data, a.Probs), b(data, b.Probs))
    iris = Table("iris")
    c = RuleLogisticRegressionLearner(multi_class="ovr")(iris)
    d = RuleLogisticRegressionLearner(multi_class="ovr", penalty_scales=(1.0,))(iris)
    np.testing.assert_array_equal(c(iris, c.Probs), d(iris, d.Probs))


def test_a_smaller_penalty_scale_gives_rules_more_weight():
    data = Table("zoo")
    weights = [np.abs(np.concatenate([b for *_, b in RuleLogisticRegressionLearner(
        penalty_scales=(s,))(data).submodels])).sum() for s in (1.0, 0.25)]
    assert weights[1] > weights[0]
