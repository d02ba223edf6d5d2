"""``model.explain(data)``: per row, the rules that fire and what each adds;
the numbers reproduce the model's probabilities (issue: why this prediction)."""
import numpy as np
import pytest
from Orange.classification import CN2Learner
from Orange.data import Table

import orangecontrib.rules as R
from registry import factory, make

#: the registry's learners, and the variants that explain otherwise
LEARNERS = {
    **factory("real"),
    "lrr-ovr": lambda: make("lrr", multi_class="ovr"),
    "roccer-hulls": lambda: make("roccer", multi_class="hulls"),
    **{f"scoring-{s}": (lambda s=s: make("scoring", strategy=s))
       for s in ("first", "rand", "vote", "wvote", "lfpr")},
    "scoring-ordered-cn2": lambda: make("scoring", base=CN2Learner(), ordered=True,
                                        strategy="first"),
}


@pytest.mark.parametrize("data_name", ["heart_disease", "iris", "zoo"])
@pytest.mark.parametrize("kind", sorted(LEARNERS))
def test_explanations_reproduce_the_probabilities(kind, data_name):
    data = Table(data_name)
    model = LEARNERS[kind]()(data)
    probs = model(data, model.Probs)
    explanations = model.explain(data)
    assert len(explanations) == len(data)
    cover = model.covering(data)
    for i, e in enumerate(explanations):
        np.testing.assert_allclose(e.probabilities(), probs[i], atol=1e-12)
        # the rules named fire on the row, each once, with a row of numbers
        assert cover[i, e.rules].all()
        assert len(set(e.rules.tolist())) == len(e.rules)
        assert e.contributions.shape == (len(e.rules), len(data.domain.class_var.values))


def test_lr_with_rules_explains_by_weights():
    data = Table("heart_disease")
    model = LEARNERS["lrr"]()(data)
    (cls, idx, b0, w, b), = model.submodels
    weight = dict(zip(np.asarray(idx).tolist(), b))
    for e in model.explain(data[:20]):
        for k, row in zip(e.rules, e.contributions):
            assert weight[k] != 0 and row[cls] == weight[k] and row[1 - cls] == 0


def test_sls_abstaining_rows_are_explained_by_the_prior():
    data = Table("heart_disease")
    model = make("sls", theta=0.3)(data)
    abstains = model.abstains(data)
    assert abstains.any() and not abstains.all()
    probs = model(data, model.Probs)
    for i, e in enumerate(model.explain(data)):
        np.testing.assert_allclose(e.probabilities(), probs[i], atol=1e-12)
        if abstains[i]:
            assert len(e.rules) == 0 and np.allclose(e.base, model.prior)


def test_a_model_without_rules_explains_by_the_prior():
    from Orange.data import Domain
    data = Table("iris")
    one_class = data.transform(Domain([], data.domain.class_var))  # no attributes
    model = R.SlipperLearner()(one_class)
    for e in model.explain(one_class[:5]):
        assert len(e.rules) == 0
        np.testing.assert_allclose(e.probabilities(), model.prior)


def test_describe_names_the_predicted_class_and_the_strongest_rules():
    data = Table("heart_disease")
    model = LEARNERS["lrr"]()(data)
    for e in model.explain(data[:10]):
        lines = e.describe(model, top=2)
        p = e.probabilities()
        assert data.domain.class_var.values[int(np.argmax(p))] in lines[0]
        assert f"{p.max():.3f}" in lines[0]
        assert len(lines) == 1 + min(2, len(e.rules)) + (len(e.rules) > 2) or not len(e.rules)
        if len(e.rules):
            c = int(np.argmax(p))
            effect = e.contributions[:, c] - e.contributions[:, 1 - c]  # over the other
            k = e.rules[int(np.argmax(np.abs(effect)))]
            assert f"rule {k + 1}," in lines[1]
            assert f"{effect[np.argmax(np.abs(effect))]:+.3f}" in lines[1]
