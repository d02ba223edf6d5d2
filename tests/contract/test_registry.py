"""The tests' learner registry (``tests/registry.py``) lists every learner
the package exports, so that every suite that parametrises over it runs a
new learner: a learner missing from it fails here, by name."""
import inspect

import pytest

import orangecontrib.rules as R
from registry import KINDS, REGISTRY, VARIANTS, deterministic, make


def exported_learners():
    """Every ``RuleLearner`` subclass named in ``orangecontrib.rules.__all__``."""
    return {getattr(R, name) for name in R.__all__
            if inspect.isclass(getattr(R, name)) and issubclass(getattr(R, name), R.RuleLearner)
            and getattr(R, name) is not R.RuleLearner}


def test_every_exported_learner_is_in_the_registry():
    registered = {entry.cls for entry in REGISTRY.values()}
    missing = sorted(cls.__name__ for cls in exported_learners() - registered)
    assert not missing, (f"add an entry for {', '.join(missing)} to tests/registry.py: "
                         "every suite runs the learners listed there")
    assert len(registered) == len(REGISTRY)  # one entry per class


def test_the_registry_finds_learners_defined_in_the_package():
    """The check above sees the learners: every learner class of the
    package's modules is exported (a learner left out of ``__all__`` would
    escape it)."""
    import importlib
    import pkgutil

    for info in pkgutil.walk_packages(R.__path__, R.__name__ + "."):
        if ".widgets" not in info.name and ".tutorials" not in info.name:
            importlib.import_module(info.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)
    defined = {c for c in subclasses(R.RuleLearner)
               if c.__module__.startswith(R.__name__ + ".") and not c.__name__.startswith("_")}
    assert defined <= exported_learners(), defined - exported_learners()
    assert exported_learners()  # the package's learners are found at all


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_variant_builds(kind, variant):
    """Every variant's settings are accepted by the learner (its checks run
    in ``__init__``), and overrides reach it."""
    learner = make(kind, variant)
    assert type(learner) is REGISTRY[kind].cls
    assert make(kind, variant, max_rules=7).max_rules == 7
    n_classes = 3
    det = deterministic(kind, n_classes)
    assert det is None or type(det) is REGISTRY[kind].cls


def test_inner_learners_are_new_for_each_learner():
    """LR with rules' EVC rule learner is built anew for each learner made
    (no learner shares a mutable part with another)."""
    a, b = make("lrr", "fast"), make("lrr", "fast")
    assert a.rule_learner is not b.rule_learner
    assert a.rule_learner.n_permutations == make("evc", "fast").n_permutations
