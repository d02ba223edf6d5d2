"""``python -m orangecontrib.rules``: cross-validate the add-on's learners.

Prints a table of classification accuracy, AUC, log loss and number of rules
for every learner (and scoring strategy) on a data set that ships with Orange,
then the rules of each learner named, fitted on all the data.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from Orange.data import Table

from .evaluation import Entry, cross_validate, markdown_table, stratified_folds
from .evc import EVCRuleLearner
from .logreg import RuleLogisticRegressionLearner
from .rules import format_rules, number_name
from .cn2 import cn2_base
from .ruleset import STRATEGIES
from .scoring import RuleScoringLearner
from .roccer import ROCCERLearner
from .slipper import SlipperLearner
from .sls import SLSEnsembleLearner
from .tables import check_table, usable_rows

LEARNERS = ("scoring", "slipper", "evc", "sls", "roccer")
#: also accepted: Orange's own CN2 rules scored by the strategies (slower)
EXTRA_LEARNERS = ("cn2",)


def learner_entries(strategies, seed, learners=LEARNERS, n_permutations=100):
    """The add-on's learners as evaluation entries.

    Fawcett's strategies only differ in how the same rules are resolved, so
    one rule set is fitted per fold and scored with every strategy; the
    EVC rules of a fold serve both the EVC rule model and the logistic
    regression with rules (LRRP-EVC).
    """
    entries = []
    for name, title, base in (("scoring", "Rules", None), ("cn2", "CN2 rules", "cn2")):
        if name not in learners:
            continue

        def per_strategy(model, title=title):
            return {f"{title} + {s.upper()}": model.with_strategy(s) for s in strategies}
        entries.append(Entry(title, RuleScoringLearner(
            base=cn2_base() if base else None, random_state=seed), per_strategy))
    if "slipper" in learners:
        entries.append(Entry("SLIPPER", SlipperLearner(random_state=seed)))
    if "evc" in learners:
        rules = EVCRuleLearner(n_permutations=n_permutations, random_state=seed)
        entries.append(Entry(
            "LR with EVC rules",
            RuleLogisticRegressionLearner(rule_learner=rules, random_state=seed),
            lambda m: {"EVC rules (WVOTE)": m.rule_model,
                       "LR with EVC rules (LRRP-EVC)": m}))
    if "sls" in learners:
        entries.append(Entry("SLS rule-set ensemble",
                             SLSEnsembleLearner(random_state=seed)))
    if "roccer" in learners:
        entries.append(Entry("ROCCER", ROCCERLearner()))
    return entries


def _fit_for_display(name, data, args):
    """``(title, model)`` of one learner named on the command line."""
    seed = args.seed
    if name in ("scoring", "cn2"):
        what = "Rules of the compiled beam search" if name == "scoring" else "Orange's CN2 rules"
        return (f"{what} scored with {args.show_rules.upper()}",
                RuleScoringLearner(base=cn2_base() if name == "cn2" else None,
                                   strategy=args.show_rules, random_state=seed)(data))
    if name == "slipper":
        return "SLIPPER", SlipperLearner(random_state=seed)(data)
    if name == "evc":
        return ("EVC rules",
                EVCRuleLearner(n_permutations=args.permutations, random_state=seed)(data))
    if name == "sls":
        return ("SLS rule-set ensemble, the distinct rules of its rule sets",
                SLSEnsembleLearner(random_state=seed)(data))
    return "ROCCER", ROCCERLearner()(data)


PROG = "python -m orangecontrib.rules"
#: the seeds numpy's generators take
MAX_SEED = 2 ** 32 - 1


class UsageError(Exception):
    """A bad command-line value: one line on stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line (no usage block) and reach
    :func:`main` as a :class:`UsageError`, so a script calling ``main``
    gets the exit code back instead of a ``SystemExit``."""

    def error(self, message):
        raise UsageError(message)


def _integer(low, high=None):
    """An argparse type: an integer in ``[low, high]``."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low or (high is not None and value > high):
            rng = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {rng}, not {value}")
        return value
    parse.__name__ = "integer"
    return parse


def parse_args(argv):
    p = _Parser(
        prog=PROG,
        description="Cross-validate the rule learners of Orange3-Rules on a "
                    "data set and print CA, AUC, log loss and rule counts, then "
                    "the rules of one model fitted on all the data.")
    p.add_argument("--data", default="heart_disease",
                   help="a data set that ships with Orange (heart_disease, "
                        "titanic, iris, zoo, ...) or the path of any file "
                        "Orange can read (.tab, .csv, .xlsx, ...); "
                        "default: %(default)s")
    p.add_argument("--folds", type=_integer(2), default=5,
                   help="number of stratified folds, at least 2 (at most the rows "
                        "of the largest class are used; default: %(default)s)")
    p.add_argument("--seed", type=_integer(0, MAX_SEED), default=0,
                   help="seed for the folds and randomised learners, 0 to 2**32-1 "
                        "(default: %(default)s)")
    p.add_argument("--strategies", default=",".join(STRATEGIES),
                   help="comma-separated Fawcett scoring strategies "
                        "(default: %(default)s)")
    p.add_argument("--learners", default=",".join(LEARNERS),
                   help="comma-separated learners to evaluate: scoring "
                        "(unordered rules scored by each strategy), slipper, evc "
                        "(EVC rules and logistic regression with them), sls (SLS "
                        "rule-set ensembles), roccer; also cn2 (Orange's CN2 "
                        "rules scored by each strategy, slower) "
                        "(default: %(default)s)")
    p.add_argument("--permutations", type=_integer(2), default=100,
                   help="class permutations for EVC's Gumbel fit, at least 2 "
                        "(default: %(default)s)")
    p.add_argument("--max-rules", type=_integer(0), default=10,
                   help="rules printed per learner (default 10)")
    p.add_argument("--show-rules", type=str.lower, choices=STRATEGIES, default="wvote",
                   help="print the rules of the model scored with this "
                        "strategy (default: %(default)s)")
    return p.parse_args(argv)


def _checked(args):
    """``(strategies, learners, data)`` of the parsed ``args``; a
    :class:`UsageError` for a value no run can use."""
    strategies = [s.strip().lower() for s in args.strategies.split(",") if s.strip()]
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad or not strategies:
        raise UsageError(f"unknown strategies: {', '.join(map(repr, bad)) or '(none)'}; "
                         f"choose from "
                         f"{', '.join(STRATEGIES)}")
    learners = [s.strip().lower() for s in args.learners.split(",") if s.strip()]
    bad = [s for s in learners if s not in LEARNERS + EXTRA_LEARNERS]
    if bad or not learners:
        raise UsageError(f"unknown learners: {', '.join(map(repr, bad)) or '(none)'}; "
                         f"choose from "
                         f"{', '.join(LEARNERS + EXTRA_LEARNERS)}")
    try:
        data = Table(args.data)
    except Exception as exc:  # noqa: BLE001 - explain, do not dump a traceback
        raise UsageError(f"cannot read data {args.data!r}: {exc}") from None
    reason = RuleScoringLearner().incompatibility_reason(data.domain)
    if reason:
        raise UsageError(f"{args.data}: {reason}")
    try:  # codes that are not values, values too large to fit, bad weights
        check_table(data)
    except ValueError as exc:
        raise UsageError(f"{args.data}: {exc}") from None
    known = usable_rows(data).Y.astype(int)  # a known class, a positive weight
    if not len(known) or np.bincount(known).max() < 2:
        raise UsageError(f"{args.data}: too few rows with a known class to "
                         "cross-validate (a class needs at least 2)")
    return strategies, learners, data


def main(argv=None):
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        strategies, learners, data = _checked(args)
    except UsageError as exc:  # one line, whatever the values hold
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2

    folds = stratified_folds(usable_rows(data), args.folds, args.seed)
    print(f"Data: {data.name} ({len(data)} rows, {len(data.domain.attributes)} "
          f"attributes, class '{data.domain.class_var.name}' with "
          f"{len(data.domain.class_var.values)} values)")
    fewer = ("" if len(folds) == args.folds else
             f" (not {args.folds}: a fold needs a row of the largest class)")
    print(f"Stratified {len(folds)}-fold cross-validation{fewer}, seed {args.seed}\n")
    t0 = time.perf_counter()
    results = cross_validate(
        data, learner_entries(strategies, args.seed, learners, args.permutations),
        k=args.folds, seed=args.seed)
    terms = any(s.mean("n_terms") > 0 for s in results.values() if s.n_terms)
    print(markdown_table(results, ("ca", "auc", "logloss", "n_rules")
                         + (("n_terms",) if terms else ())))
    print(f"\n({time.perf_counter() - t0:.1f} s)\n")

    print("Log loss punishes confident mistakes: a model that gives the true "
          "class a probability near 0 on a few rows gets a large log loss even "
          "with a good AUC (rules + VOTE or FIRST: a unanimous vote or a pure "
          "rule scores 1).\n")
    cv = data.domain.class_var
    print(f"Rules of each learner named, fitted on all {len(data)} rows. "
          f"[a/b/...] after a rule: the weighted training rows it covers of "
          f"each class ({', '.join(cv.values)}); ROCCER's: the rows it decides "
          f"in its class's list (no earlier entry of the list fires).\n")
    for name in learners:
        title, model = _fit_for_display(name, data, args)
        rules = model.used_rules()
        shown = rules[:args.max_rules]
        more = f", the first {len(shown)} shown" if len(shown) < len(rules) else ""
        number = model.rule_number()
        named = f" (after each: its {number_name(number.name)})" if number is not None else ""
        weights = model.attribute_terms
        besides = f" and {weights} attribute weights" if weights else ""
        print(f"## {title}: {len(rules)} rules{besides}{more}{named}")
        print(format_rules(shown, model.domain, model=model) if shown else "(none)")
        print("Why row 1 gets its prediction (model.explain): "
              + "\n".join(model.explain(data[:1])[0].describe(model, top=3)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
