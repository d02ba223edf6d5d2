"""What the Rule Viewer widget shows about a model, without Qt.

For any model of this add-on (and Orange's own CN2 models) this module gives
the rules' condition text, which rules fire on a table, the per-rule number
each model is about (SLIPPER confidence, EVC corrected and raw probability,
logistic-regression coefficient, SLS ensemble weight, ROCCER ROC point) and
the data of the plots (ROC convex hull, abstention curve, EVC correction).
Kept apart from the widget so it can be tested and scripted without a GUI.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from Orange.data import Table

from .base import RuleModel
from .evc import EVCRuleModel
from .logreg import RuleLogisticRegressionModel
from .roccer import ROCCERModel
from .rules import Condition, format_number, format_threshold
from .slipper import SlipperModel
from .sls import SLSEnsembleModel


@dataclass
class Column:
    """A numeric column of the rule table: one value per rule."""

    name: str
    values: np.ndarray
    tooltip: str = ""
    decimals: int = 3


@dataclass
class RuleTable:
    """Everything the rule table shows, one entry per rule of ``rule_list``."""

    conditions: list = field(default_factory=list)  # per rule: condition strings
    heads: np.ndarray = None                         # predicted class index
    columns: list = field(default_factory=list)      # model-specific Columns


def condition_str(domain, sel) -> str:
    """``sel`` is this add-on's :class:`Condition` or Orange's ``Selector``."""
    if sel.op in ("==", "<=", ">=", "<"):
        return Condition(int(sel.column), sel.op, float(sel.value)).to_str(domain)
    var = domain.attributes[sel.column]
    value = (var.values[int(sel.value)] if var.is_discrete
             else format_threshold(float(sel.value)))
    return f"{var.name} {sel.op} {value}"


def rule_conditions(model, rule) -> list[str]:
    return [condition_str(model.domain, s) for s in rule.selectors]


def is_supported(model) -> bool:
    """A model with a rule list whose rules can be evaluated."""
    rules = getattr(model, "rule_list", None)
    return rules is not None and all(hasattr(r, "selectors") for r in rules)


def coverage(model, data: Table) -> np.ndarray:
    """Boolean ``(len(data), n_rules)``: which rules fire on each row."""
    if isinstance(model, RuleModel):
        return model.covering(data)
    X = model.data_to_model_domain(data).X  # Orange's CN2: its own rules
    cols = [np.asarray(r.evaluate_data(X), dtype=bool) for r in model.rule_list]
    return np.column_stack(cols) if cols else np.zeros((len(data), 0), bool)


def class_distributions(model, data: Table | None) -> np.ndarray:
    """``(n_rules, n_classes)``: the class counts of the rows each rule
    covers in ``data`` (weights honoured), or the training counts stored on
    the rules when there is no data."""
    n_classes = len(model.domain.class_var.values)
    if data is None or data.domain.class_var is None or not len(data):
        return np.array([np.asarray(r.curr_class_dist, float)
                         for r in model.rule_list]).reshape(-1, n_classes)
    cover = coverage(model, data).astype(float)
    y = data.Y.astype(float).ravel()
    known = ~np.isnan(y)
    onehot = np.zeros((len(data), n_classes))
    w = data.W if data.has_weights() else np.ones(len(data))
    onehot[np.flatnonzero(known), y[known].astype(int)] = w[known]
    return cover.T @ onehot


def rule_table(model) -> RuleTable:
    rules = model.rule_list
    table = RuleTable([rule_conditions(model, r) for r in rules],
                      np.array([int(r.prediction) for r in rules], dtype=int))
    quality = np.array([float(r.quality) for r in rules])
    if isinstance(model, SlipperModel):
        table.columns = [Column("Confidence", quality,
                                "The rule's confidence C_R (eq. 4): its vote in "
                                "the boosted score f(x).")]
    elif isinstance(model, RuleLogisticRegressionModel):
        coef = np.full(len(rules), np.nan)
        for _, idx, _, _, b in model.submodels:
            coef[np.asarray(idx, dtype=int)] = b
        table.columns = [
            Column("Coefficient", coef, "The rule's weight in the logistic "
                                        "regression (log-odds when it fires)."),
            Column("EVC quality", quality, "The rule's EVC-corrected probability.")]
    elif isinstance(model, EVCRuleModel):
        raw = np.array([r.extra.get("raw_frequency", np.nan) for r in rules])
        name = "EVC quality" if model.quality_measure == "evc" else "m-estimate"
        table.columns = [
            Column(name, quality, "The rule's quality: its class probability "
                                  "corrected for the optimism of the search."),
            Column("Raw frequency", raw, "The share of covered training "
                                         "examples of the rule's class.")]
    elif isinstance(model, SLSEnsembleModel):
        table.columns = [Column("Ensemble weight", quality,
                                "The summed weight of the rule sets that "
                                "contain the rule.")]
    elif isinstance(model, ROCCERModel):
        pts = np.array([r.extra["roc_point"] for r in rules]).reshape(-1, 2)
        entry = np.array([r.extra["entry"] + 1 for r in rules], dtype=float)
        table.columns = [
            Column("Position", entry, "Position in its class's rule list "
                                      "(a disjunction shares one).", 0),
            Column("FPR", pts[:, 0], "False positive rate of the list up to "
                                     "and including this rule."),
            Column("TPR", pts[:, 1], "True positive rate of the list up to "
                                     "and including this rule."),
            Column("Likelihood ratio", quality, "Slope of the rule's hull "
                                                "segment: how much a firing rule "
                                                "raises the odds of its class.")]
    else:
        table.columns = [Column("Quality", quality,
                                "The rule's quality as its learner reports it.")]
    return table


def model_summary(model) -> list[str]:
    """A few lines about the model for the widget's info box."""
    lines = [f"{type(model).__name__}: {len(model.rule_list)} rules"]
    if isinstance(model, SlipperModel):
        lines.append(f"{len(model.boosters)} booster(s)")
    elif isinstance(model, EVCRuleModel):
        lines.append(f"Resolution: {model.strategy}")
    elif isinstance(model, RuleLogisticRegressionModel):
        lines.append(f"L2 strength λ = {format_number(model.lam)}")
    elif isinstance(model, SLSEnsembleModel):
        n_sets = sum(len(e.rule_sets) for e in model.ensembles)
        lines.append(f"{n_sets} distinct rule sets")
        vb = model.voting_bound
        if vb is not None:
            lines.append(f"Error bound (Thm. 2, δ = "
                         f"{next(iter(model.bounds.values())).delta:g}): {vb:.3f}")
            if vb >= 1:
                lines.append("  (vacuous: the data are too few for this many rule "
                             "sets; more examples, a smaller k_max or a larger "
                             "δ tighten it)")
    elif isinstance(model, ROCCERModel):
        cv = model.domain.class_var
        for cl in model.class_lists:
            lines.append(f"{cv.values[cl.cls]}: {len(cl.rules)} of "
                         f"{cl.n_candidates} candidates")
    return lines


# --------------------------------------------------------------- plot data

def plot_kind(model) -> str | None:
    if isinstance(model, ROCCERModel):
        return "hull"
    if isinstance(model, SLSEnsembleModel):
        return "abstention"
    if isinstance(model, (EVCRuleModel, RuleLogisticRegressionModel)) and any(
            "raw_frequency" in r.extra for r in model.rule_list):
        return "evc"
    return None


def hull_points(model: ROCCERModel, cls: int):
    """``(points, rule indices per entry)`` of class ``cls``'s hull: the ROC
    points from (0, 0) to (1, 1) and, per selected entry, its rules."""
    for cl in model.class_lists:
        if cl.cls == cls:
            return cl.points, [list(map(int, c)) for c in cl.columns]
    return np.array([[0.0, 0.0], [1.0, 1.0]]), []


def abstention_curve(model: SLSEnsembleModel, data: Table, n=41):
    """``(theta, error on the rest, abstention rate, bound)`` on ``data``;
    the bound (Theorem 3) is ``None`` for more than two classes."""
    curve = model.abstention_curve(data, np.linspace(0, 2, n))
    theta = np.array([c["theta"] for c in curve])
    error = np.array([c["error"] for c in curve])
    abstain = np.array([c["abstention"] for c in curve])
    bound = (None if model.voting_bound is None
             else np.array([model.abstaining_bound(t) for t in theta]))
    return theta, error, abstain, bound


def evc_points(model):
    """``(raw frequency, corrected quality, heads)`` per rule."""
    raw = np.array([r.extra.get("raw_frequency", np.nan) for r in model.rule_list])
    q = np.array([r.quality for r in model.rule_list])
    heads = np.array([r.head for r in model.rule_list], dtype=int)
    return raw, q, heads
