"""Saved models keep loading: models pickled by an earlier version of the
add-on (``tests/data/pickles``, made by ``scripts/make_model_pickles.py`` at
the commit ``manifest.json`` names for each) load with the current code and
predict the probabilities they predicted when they were saved. A pickle
names each class by its module, so a class that moves must stay
importable from its old module."""
from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest
from Orange.data import Table

HERE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "pickles")
with open(os.path.join(HERE, "manifest.json")) as f:
    MANIFEST = json.load(f)

# numpy 2 pickles arrays as numpy._core, which numpy 1 cannot import
pytestmark = pytest.mark.skipif(int(np.__version__.split(".")[0]) < 2,
                                reason="the pickles were made with numpy 2")


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(HERE, "probabilities.npz")) as probs:
        return dict(probs)


@pytest.mark.parametrize("key", sorted(MANIFEST["models"]))
def test_a_saved_model_loads_and_predicts_as_when_it_was_saved(key, expected):
    with open(os.path.join(HERE, key + ".pkl"), "rb") as f:
        model = pickle.load(f)
    kind = type(model)
    assert f"{kind.__module__}.{kind.__qualname__}" == MANIFEST["models"][key]["model"]
    data = Table(key.split("-", 1)[1])
    probs = model(data, model.Probs)
    assert probs.shape == expected[key].shape
    np.testing.assert_allclose(probs, expected[key], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(model(data), np.argmax(expected[key], axis=1))


#: each learner's saved models (their key's first part)
SAVED = {"SlipperLearner": "slipper", "EVCRuleLearner": "evc",
         "RuleLogisticRegressionLearner": "lrr", "SLSEnsembleLearner": "sls",
         "ROCCERLearner": "roccer", "RuleScoringLearner": "scoring"}


def test_every_learner_has_saved_models():
    """Each learner of the package has a saved model of two classes and
    one of three."""
    import orangecontrib.rules as R
    learners = {name for name in R.__all__ if isinstance(getattr(R, name), type)
                and issubclass(getattr(R, name), R.RuleLearner) and name != "RuleLearner"}
    assert learners == set(SAVED)
    for key in SAVED.values():
        assert f"{key}-heart_disease" in MANIFEST["models"]
        assert f"{key}-iris" in MANIFEST["models"]
