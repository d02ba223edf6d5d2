"""A cancelled fit stops soon: the learners whose work runs in parallel
tasks (SLIPPER's folds and final booster, SLS's searches, ROCCER's classes)
ask the caller's callback from inside those tasks (``RuleLearner.stop_check``
or ``task_progress``), not only when a task ends; a callback that never
cancels changes nothing."""
import threading

import numpy as np
import pytest
from Orange.data import Table
from joblib import parallel_backend

from orangecontrib.rules import Interrupted, SlipperLearner
from orangecontrib.rules.parallel import in_process_backend
from registry import make


def learners():
    """The learners with parallel tasks, in two jobs (SLIPPER choosing T by
    its internal folds, so that the folds are tasks)."""
    return {"slipper": lambda: make("slipper", "defaults", n_jobs=2, random_state=0),
            "sls": lambda: make("sls", n_jobs=2, n_rule_sets=6, max_steps=2000,
                                random_state=0),
            "roccer": lambda: make("roccer", n_jobs=2)}


@pytest.mark.parametrize("name", ["slipper", "sls", "roccer"])
def test_the_parallel_tasks_ask_the_callback_and_stop_when_cancelled(name):
    data = Table("heart_disease")
    main = threading.get_ident()
    threads = set()

    def listening(progress, status=""):
        threads.add(threading.get_ident())

    model = learners()[name]()(data, progress_callback=listening)
    assert threads - {main}, "no task asked the callback from its own thread"
    plain = learners()[name]()(data)
    np.testing.assert_array_equal(model(data, model.Probs), plain(data, plain.Probs))

    asked = []

    def cancelling(progress, status=""):
        asked.append(threading.get_ident())
        if threading.get_ident() != main:  # the first ask from inside a task cancels
            raise Interrupted()

    with pytest.raises(Interrupted):
        learners()[name]()(data, progress_callback=cancelling)


def test_tasks_in_other_processes_get_no_check():
    assert in_process_backend()
    with parallel_backend("loky"):
        assert not in_process_backend()
        learner = SlipperLearner()
        assert learner.stop_check() is None


def test_evc_reports_rules_so_far_from_its_class_tasks_and_stops_there():
    """EVC's coverings report after every rule and its permutation searches
    after every permutation, from their own threads:
    progress that only grows and a status with the rules found so far; a
    cancel raised there stops the fit; the model is the one without a
    callback."""
    data = Table("heart_disease")
    seen = []

    def listening(progress, status=""):
        seen.append((progress, status, threading.get_ident()))

    def learner():
        return make("evc", n_permutations=10, n_jobs=2)
    model = learner()(data, progress_callback=listening)
    so_far = [(p, int(s.split(": ")[1].split()[0])) for p, s, _ in seen if "so far" in s]
    assert so_far, [s for _, s, _ in seen]
    assert [p for p, _ in so_far] == sorted(p for p, _ in so_far)
    assert max(n for _, n in so_far) == len(model.rule_list)
    assert {t for _, s, t in seen if "so far" in s} - {threading.get_ident()}
    # the Gumbel fit's permutation searches report one by one as well
    done = [int(s.split(": ")[1].split()[0]) for _, s, _ in seen if "permutations done" in s]
    assert done and max(done) == 10
    plain = learner()(data)
    np.testing.assert_array_equal(model(data, model.Probs), plain(data, plain.Probs))

    def cancelling(progress, status=""):
        if "so far" in status:
            raise Interrupted()
    with pytest.raises(Interrupted):
        learner()(data, progress_callback=cancelling)


@pytest.mark.parametrize("outer", ["lrr", "scoring"])
def test_a_rule_learner_inside_another_reaches_the_caller_from_its_tasks(outer):
    """LR with rules and Rule Scoring fit an EVC rule learner: its tasks'
    reports reach the caller's callback through the outer fit (with the
    rules found so far) and a cancel raised there stops the whole fit."""
    data = Table("heart_disease")
    main = threading.get_ident()

    def learner():
        inside = {"lrr": "rule_learner", "scoring": "base"}[outer]  # its rule learner
        return make(outer, **{inside: make("evc", n_permutations=10, n_jobs=2)})
    seen = []
    model = learner()(data, progress_callback=lambda p, s="": seen.append(
        (p, s, threading.get_ident())))
    inner = [(p, s) for p, s, t in seen if t != main]
    assert inner and any("so far" in s for _, s in inner)
    assert all(0 <= p <= 1 for p, _, _ in seen)
    plain = learner()(data)
    np.testing.assert_array_equal(model(data, model.Probs), plain(data, plain.Probs))

    def cancelling(progress, status=""):
        if threading.get_ident() != main:
            raise Interrupted()
    with pytest.raises(Interrupted):
        learner()(data, progress_callback=cancelling)


@pytest.mark.parametrize("name", ["slipper", "sls", "roccer"])
def test_progress_says_how_many_rules_so_far(name):
    """The status text counts what the fit has made so far, and the count
    grows (SLIPPER: rules of the boosters done, SLS: distinct rule sets,
    ROCCER: rules on the classes' lists)."""
    data = Table("iris")
    learner = {"slipper": lambda: make("slipper", "defaults", T_max=10, random_state=0),
               "sls": lambda: make("sls", n_rule_sets=3, random_state=0),
               "roccer": lambda: make("roccer")}[name]()
    statuses = []
    learner(data, progress_callback=lambda p, s="": statuses.append(s))
    counts = [int(s.split(": ")[1].split()[0]) for s in statuses if "so far" in s]
    assert counts and counts == sorted(counts) and counts[-1] > 0, statuses
