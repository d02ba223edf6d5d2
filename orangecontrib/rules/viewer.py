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

from .base import RuleModel, ViewerColumn
from .roccer import ROCCERModel
from .rules import Condition, format_threshold
from .sls import SLSEnsembleModel
from .tables import class_codes


#: a numeric column of the rule table (the models describe theirs)
Column = ViewerColumn


@dataclass
class RuleTable:
    """Everything the rule table shows, one entry per rule of ``rule_list``."""

    conditions: list = field(default_factory=list)  # per rule: condition strings
    heads: np.ndarray = None                         # predicted class index
    columns: list = field(default_factory=list)      # model-specific Columns
    prefixes: list = None   # a decision list's IF / ELSE IF / ELSE per rule, else None


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


def is_decision_list(model) -> bool:
    """Orange's ordered CN2 (``CN2Classifier``, and the CN2 widget's model
    with ordered rules and exclusive covering): the first rule that fires
    on a row decides it."""
    name = type(model).__name__
    if name == "CN2Classifier":
        return True
    if name == "CustomRuleClassifier":
        return (str(getattr(model, "rule_ordering", "")).lower() == "ordered"
                and str(getattr(model, "covering_algorithm", "")).lower() == "exclusive")
    return False


def coverage(model, data: Table) -> np.ndarray:
    """Boolean ``(len(data), n_rules)``: which rules fire on each row; for
    a decision list (:func:`is_decision_list`), the one rule that decides
    it (the first that fires)."""
    if isinstance(model, RuleModel):
        return model.covering(data)
    X = model.data_to_model_domain(data).X  # Orange's CN2: its own rules
    cols = [np.asarray(r.evaluate_data(X), dtype=bool) for r in model.rule_list]
    cover = np.column_stack(cols) if cols else np.zeros((len(data), 0), bool)
    if is_decision_list(model) and cover.shape[1]:
        fired = np.flatnonzero(cover.any(axis=1))
        first = cover[fired].argmax(axis=1)
        cover = np.zeros_like(cover)
        cover[fired, first] = True
    return cover


#: rows (or rules) a block of the coverage matrix holds while it is summed
BLOCK = 2048


def class_distributions(model, data: Table | None, cover=None) -> np.ndarray:
    """``(n_rules, n_classes)``: the class counts of the rows each rule
    covers in ``data`` (weights honoured; classes matched to the model's by
    value name, :func:`tables.class_codes`), or the training counts stored on
    the rules when there is no data. ``cover``: :func:`coverage` of
    ``data`` if it is known. Summed over blocks of rows, so a model of
    10,000 rules on 20,000 rows needs no float copy of the matrix."""
    n_classes = len(model.domain.class_var.values)
    if data is None or data.domain.class_var is None or not len(data):
        return np.array([np.asarray(r.curr_class_dist, float)
                         for r in model.rule_list]).reshape(-1, n_classes)
    if cover is None:
        cover = coverage(model, data)
    # by value name: the data may list the class values in another order
    yi = class_codes(data, model.domain.class_var)
    w = data.W.ravel() if data.has_weights() else None
    out = np.zeros((cover.shape[1], n_classes))
    for c in range(n_classes):
        rows = np.flatnonzero(yi == c)
        for start in range(0, len(rows), BLOCK):
            block = rows[start:start + BLOCK]
            if w is None:
                out[:, c] += cover[block].sum(axis=0)
            else:
                out[:, c] += w[block] @ cover[block]
    return out


def rows_covered(cover, rules) -> np.ndarray:
    """The rows (ascending) that any of ``rules`` (columns of ``cover``)
    covers, read a block of rules at a time."""
    rules = np.asarray(rules, dtype=int)
    if not len(rules):
        return np.zeros(0, dtype=int)
    if len(np.unique(rules)) == cover.shape[1]:
        return np.flatnonzero(cover.any(axis=1))
    hit = np.zeros(cover.shape[0], dtype=bool)
    for start in range(0, len(rules), BLOCK // 8):
        hit |= cover[:, rules[start:start + BLOCK // 8]].any(axis=1)
    return np.flatnonzero(hit)


def explanation_text(model, data: Table, top: int = 3):
    """Per row of ``data``: why it got its prediction, in one line (the
    predicted class and its probability, then the ``top`` rules that move
    it most: :meth:`Explanation.describe`); ``None`` for a model that does
    not explain its predictions (Orange's CN2)."""
    if not isinstance(model, RuleModel) or data is None:
        return None
    try:
        explanations = model.explain(data)
    except NotImplementedError:
        return None
    texts = {}

    def rule_text(k):  # each rule's text made once
        if k not in texts:
            texts[k] = model.rule_list[k].to_str(model.domain)
        return texts[k]
    return np.array(["; ".join(line.strip() for line in e.describe(model, top, rule_text))
                     for e in explanations], dtype=object)


def firing_text(cover) -> np.ndarray:
    """Per row of ``cover``: the numbers (from 1) of the rules that fire
    on it, as text ("3, 17, 42")."""
    rows, cols = np.nonzero(cover)
    labels = np.array([str(k + 1) for k in range(cover.shape[1])], dtype=object)
    ends = np.cumsum(np.bincount(rows, minlength=cover.shape[0]))[:-1]
    return np.array([", ".join(p) for p in np.split(labels[cols], ends)], dtype=object)


def rule_table(model) -> RuleTable:
    """The conditions, heads and the model's own numbers per rule (the
    model says which, :meth:`RuleModel.viewer_columns`; Orange's CN2
    models: their quality)."""
    rules = model.rule_list
    table = RuleTable([rule_conditions(model, r) for r in rules],
                      np.array([int(r.prediction) for r in rules], dtype=int))
    if isinstance(model, RuleModel):
        table.columns = model.viewer_columns()
    else:
        table.columns = [Column("Quality", np.array([float(r.quality) for r in rules]),
                                "The rule's quality as its learner reports it.")]
    if is_decision_list(model):
        table.prefixes = ["IF" if i == 0 else "ELSE" if not c and i == len(rules) - 1
                          else "ELSE IF" for i, c in enumerate(table.conditions)]
    return table


def rules_as_table(model, data: Table | None = None, cover=None, table=None,
                   dists=None) -> Table:
    """The model's rules as data: an Orange table with one row per rule of
    ``rule_list``, so Data Table, Select Rows, Distributions and Save Data
    work on rules. Columns: the rule's number (``rule``), its conditions
    (``length``), the rows it covers in ``data`` (weights honoured; without
    ``data``, the training counts stored on the rules), their count per
    class (``n <class value>``), ``precision`` (the share of its own
    class) and the model's own numbers (:func:`rule_table`); the class is
    the rule's head; the rule as text is a meta attribute (``conditions``).
    A column whose name the class variable has gets a number ("rule
    (1)"). ``cover``,
    ``table``, ``dists``: :func:`coverage` of ``data``, :func:`rule_table`
    and :func:`class_distributions`, if they are known."""
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, StringVariable
    from Orange.data.util import get_unique_names

    table = rule_table(model) if table is None else table
    class_var = model.domain.class_var
    dists = class_distributions(model, data, cover) if dists is None else dists
    covered = dists.sum(axis=1)
    heads = table.heads
    own = dists[np.arange(len(heads)), heads] if len(heads) else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(covered > 0, own / np.where(covered > 0, covered, 1), np.nan)
    columns = [("rule", np.arange(1, len(heads) + 1, dtype=float)),
               ("length", np.array([len(c) for c in table.conditions], dtype=float)),
               ("coverage", covered), ("precision", precision)]
    columns += [(f"n {value}", dists[:, j]) for j, value in enumerate(class_var.values)]
    columns += [(c.name, np.asarray(c.values, dtype=float)) for c in table.columns]
    # unique names, the class variable's kept as it is (a class named
    # "rule" or "n yes" renames the column, "rule (1)")
    taken = [class_var.name]
    for name, _ in columns:
        taken.append(get_unique_names(taken, name))
    names = taken[1:]
    attrs = [ContinuousVariable(name) for name in names]
    text = StringVariable(get_unique_names(taken, "conditions"))
    domain = Domain(attrs, DiscreteVariable(class_var.name, values=class_var.values),
                    metas=[text])
    X = (np.column_stack([values for _, values in columns]) if len(heads)
         else np.zeros((0, len(attrs))))
    metas = np.array([[" AND ".join(c) if c else "TRUE"] for c in table.conditions],
                     dtype=object).reshape(-1, 1)
    out = Table.from_numpy(domain, X, heads.astype(float), metas=metas)
    out.name = "rules"
    return out


def rule_set_rows(model):
    """SLS's rules listed rule set by rule set: ``(rules, columns)``, the
    ``rule_list`` index of each row (a rule in several sets is listed in
    each) and the :class:`Column` s over the rows that replace the model's
    own: each rule set's number in its class's ensemble (heaviest first),
    its weight ``Q``, and the rule's ensemble weight (the summed weight of
    its sets). Sets of one class follow each other, heaviest first.
    ``None`` for a model that is not an SLS ensemble."""
    if not isinstance(model, SLSEnsembleModel):
        return None
    rules, number, weight = [], [], []
    for ens, cols in zip(model.ensembles, model._columns):
        q = np.asarray(ens.weights, dtype=float)
        for rank, s in enumerate(np.argsort(-q, kind="stable"), start=1):
            idx = np.asarray(cols[s], dtype=int)
            rules.extend(idx.tolist())
            number += [rank] * len(idx)
            weight += [q[s]] * len(idx)
    rules = np.array(rules, dtype=int)
    ensemble = next(c for c in model.viewer_columns() if c.name == "Ensemble weight")
    return rules, [
        Column("Rule set", np.array(number, dtype=float),
               "The rule set's number in its class's ensemble, heaviest first "
               "(its rules are listed together).", decimals=0),
        Column("Set weight", np.array(weight),
               "The rule set's weight Q in its class's ensemble (Section 4)."),
        Column(ensemble.name, np.asarray(ensemble.values, dtype=float)[rules],
               ensemble.tooltip, ensemble.decimals)]


def used_mask(model) -> np.ndarray:
    """Per rule of ``rule_list``: do the model's predictions read it (LR
    with rules: a non-zero weight, :meth:`RuleModel.used_rules`)?"""
    rules = model.rule_list
    if not isinstance(model, RuleModel):
        return np.ones(len(rules), dtype=bool)
    used = {id(r) for r in model.used_rules()}
    return np.array([id(r) in used for r in rules], dtype=bool)


def listed_mask(model, show_unused=False) -> np.ndarray:
    """Per rule of ``rule_list``: is it a row of the viewer's table? Not the
    rules the model shows apart (SLIPPER's default rules, summed in the
    summary) and, unless ``show_unused``, not those of weight 0."""
    mask = np.ones(len(model.rule_list), dtype=bool)
    if isinstance(model, RuleModel):
        mask &= ~np.asarray(model.set_apart(), dtype=bool)
    if not show_unused:
        mask &= used_mask(model)
    return mask


def model_summary(model) -> list[str]:
    """A few lines about the model for the widget's info box."""
    if isinstance(model, RuleModel):
        return model.summary_lines()
    if is_decision_list(model):
        return [f"Decision list ({type(model).__name__}): {len(model.rule_list)} rules, "
                "tried in order; the first that fires gives the class",
                "Covered rows and counts: the rows each rule decides (it fires and no "
                "rule above it does)"]
    return [f"{type(model).__name__}: {len(model.rule_list)} rules, unordered"]


# --------------------------------------------------------------- plot data

def plot_kind(model) -> str | None:
    """``"hull"`` (ROCCER), ``"abstention"`` (SLS), ``"evc"`` (EVC rules and
    the logistic regression with them) or ``None``: as the model says."""
    return getattr(model, "plot_kind", None)


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
