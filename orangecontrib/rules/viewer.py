"""What every view shows of a model, without Qt: the Rule Viewer's table
and plots, the rules as data, the explanations in words.

For any model of this add-on (and Orange's own CN2 models) this module gives
the rules' condition text, the class each rule favours, which rules fire on
a table, the model's own numbers per rule (the first is its principal one:
confidence, corrected quality, weight, ensemble weight, likelihood ratio)
and the data of the plots (ROC convex hull, abstention curve, EVC
correction). The models give their data through public methods
(:meth:`RuleModel.viewer_columns`, :meth:`~RuleModel.rule_directions`,
``plot_kind``, ``hull``, ``rule_sets``, ``abstention_curve``); this module
decides how it reads, and knows no learner by its type. Kept apart from
the widget so it can be tested and scripted without a GUI.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from Orange.data import Table

from .base import RuleModel, ViewerColumn
from .rules import condition_text, conditions_texts, format_threshold, head_text, quoted
from .rules import rule_text as _rule_text
from .tables import class_codes


#: a numeric column of the rule table (the models describe theirs)
Column = ViewerColumn


@dataclass
class RuleTable:
    """Everything the rule table shows, one entry per rule of ``rule_list``."""

    conditions: list = field(default_factory=list)  # per rule: condition strings
    heads: np.ndarray = None                         # the class each rule favours
    columns: list = field(default_factory=list)      # the model's Columns, principal first
    prefixes: list = None   # a decision list's IF / ELSE IF / ELSE per rule, else None
    against: np.ndarray = None                       # the rule lowers its class (``not c``)
    notes: list = None      # per rule, where it comes from ("" for nothing to say)

    def head_texts(self, class_var) -> list[str]:
        """Per rule, its head as the Class column shows it: the value, or
        ``not`` the value for a rule that lowers its class."""
        against = (np.zeros(len(self.heads), bool) if self.against is None
                   else self.against)
        return [("not " if a else "") + str(class_var.values[h])
                for h, a in zip(self.heads, against)]


def condition_str(domain, sel) -> str:
    """``sel`` is this add-on's :class:`Condition` or Orange's ``Selector``
    (whose CN2 rules also test ``!=`` and ``>``)."""
    if sel.op in ("==", "<=", ">=", "<"):
        return condition_text(int(sel.column), sel.op, float(sel.value), domain)
    var = domain.attributes[sel.column]
    value = (quoted(var.values[int(sel.value)]) if var.is_discrete
             else format_threshold(float(sel.value)))
    return f"{quoted(var.name)} {sel.op} {value}"


def rule_conditions(model, rule) -> list[str]:
    """The condition texts of ``rule`` as every view lists them."""
    if all(s.op in ("==", "<=", ">=", "<") for s in rule.selectors):
        return conditions_texts(rule.selectors, model.domain)
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
    """Boolean ``(len(data), n_rules)``: the rows each rule is counted on:
    the rows it fires on; for a decision list (:func:`is_decision_list`),
    the one rule that decides each row (the first that fires); a model of
    this add-on says which (:meth:`RuleModel.counted_cover`: ROCCER's
    rules, the rows each decides in its class's list)."""
    if isinstance(model, RuleModel):
        return model.counted_cover(data)
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
        if isinstance(model, RuleModel):
            return model.rule_counts()
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
    predicted class and its probability, then the rules that support it,
    those against it, and what decided when no rule supports it:
    :meth:`Explanation.describe`, the same reasons the Why box shows);
    ``None`` for a model that does not explain its predictions (Orange's
    CN2)."""
    if not isinstance(model, RuleModel) or data is None:
        return None
    try:
        explanations = model.explain(data)
    except NotImplementedError:
        return None
    texts = {}
    favours, against = model.rule_directions()
    counted = model.rule_counts()

    def rule_text(k):  # each rule's text made once, as describe() writes it
        if k not in texts:
            texts[k] = _rule_text(model.rule_list[k], model.domain, int(favours[k]),
                                  bool(against[k]), dist=counted[k])
        return texts[k]
    return np.array(["; ".join(line.strip() for line in e.describe(model, top, rule_text))
                     for e in explanations], dtype=object)


def firing_text(cover, rules=None) -> np.ndarray:
    """Per row of ``cover``: the numbers (from 1) of the rules that fire
    on it, as text ("3, 17, 42"); no rows, no texts. ``rules``: a mask of
    the rules to name (the viewer's: those its table lists by default,
    :func:`listed_mask`; a rule of weight 0 changes no prediction and is
    not named), default every rule."""
    n = cover.shape[0]
    if n == 0:
        return np.zeros(0, dtype=object)
    named = np.arange(cover.shape[1]) if rules is None else np.flatnonzero(rules)
    cover = cover[:, named]
    labels = np.array([str(k + 1) for k in named], dtype=object)
    rows, cols = np.nonzero(cover)
    ends = np.cumsum(np.bincount(rows, minlength=n))[:-1]
    return np.array([", ".join(p) for p in np.split(labels[cols], ends)], dtype=object)


def _cn2_columns(model) -> list:
    """Orange's CN2 rules: the probability of the rule's class (what CN2
    predicts when it fires) and CN2's own quality (negative entropy)."""
    rules = model.rule_list
    prob = np.array([float(np.asarray(r.probabilities)[int(r.prediction)])
                     if getattr(r, "probabilities", None) is not None else np.nan
                     for r in rules])
    quality = np.array([float(r.quality) for r in rules])
    quality[np.abs(quality) < 5e-7] = 0.0  # no "-0.000"
    return [Column("Probability", prob, "The probability CN2 gives the rule's class "
                   "when the rule decides: a Laplace estimate on the examples CN2 had "
                   "left when it learned the rule (unordered: without the rows of its "
                   "class the class's earlier rules cover), so it may differ from the "
                   "Distribution column, which counts every row the rule covers."),
            Column("CN2 quality", quality, "CN2's quality of the rule: the negative "
                   "entropy of its covered examples' classes (0: pure).")]


def rule_table(model) -> RuleTable:
    """The conditions, the class each rule favours, and the model's own
    numbers per rule (the model says which, :meth:`RuleModel.viewer_columns`,
    the principal one first; Orange's CN2 models: the probability of the
    rule's class and CN2's quality)."""
    rules = model.rule_list
    notes = [""] * len(rules)
    if isinstance(model, RuleModel):
        heads, against = model.rule_directions()
        columns = model.viewer_columns()
        notes = model.rule_notes()
    else:
        heads = np.array([int(r.prediction) for r in rules], dtype=int)
        against = np.zeros(len(rules), dtype=bool)
        columns = _cn2_columns(model)
    table = RuleTable([rule_conditions(model, r) for r in rules],
                      np.asarray(heads, dtype=int), columns, None,
                      np.asarray(against, dtype=bool), list(notes))
    if is_decision_list(model):
        table.prefixes = ["IF" if i == 0 else "ELSE" if not c and i == len(rules) - 1
                          else "ELSE IF" for i, c in enumerate(table.conditions)]
    return table


def rule_line(model, k: int, table: RuleTable | None = None) -> str:
    """Rule ``k`` as one line of text, ``IF ... THEN class = value``, its
    head the class it favours (what the viewer copies)."""
    table = rule_table(model) if table is None else table
    conds = table.conditions[k]
    against = bool(table.against[k]) if table.against is not None else False
    return (f"IF {' AND '.join(conds) if conds else 'TRUE'} THEN "
            f"{head_text(model.domain, int(table.heads[k]), against)}")


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
               ("length", np.array([len(r.selectors) for r in model.rule_list], dtype=float)),
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
    """A model's rules listed rule set by rule set (SLS ensembles, whose
    ``rule_sets()`` gives them): ``(rules, columns)``, the ``rule_list``
    index of each row (a rule in several sets is listed in each) and the
    :class:`Column` s over the rows that replace the model's own: each rule
    set's number in its class's ensemble (heaviest first), its weight ``Q``,
    and the rule's ensemble weight (the model's principal number). ``None``
    for a model without rule sets."""
    sets = getattr(model, "rule_sets", None)
    if not callable(sets):
        return None
    rules, number, weight = [], [], []
    rank, last = 0, None
    for cls, q, idx in sets():
        rank = rank + 1 if cls == last else 1
        last = cls
        rules.extend(int(k) for k in idx)
        number += [rank] * len(idx)
        weight += [q] * len(idx)
    rules = np.array(rules, dtype=int)
    principal = model.viewer_columns()[0]
    return rules, [
        Column("Rule set", np.array(number, dtype=float),
               "The rule set's number in its class's ensemble, heaviest first "
               "(its rules are listed together).", decimals=0),
        Column("Set weight", np.array(weight),
               "The rule set's weight Q in its class's ensemble (Section 4)."),
        Column(principal.name, np.asarray(principal.values, dtype=float)[rules],
               principal.tooltip, principal.decimals)]


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
    """A few lines about the model for the widget's info box: the model's
    own (:meth:`RuleModel.summary_lines`) and its warnings."""
    if isinstance(model, RuleModel):
        lines = model.summary_lines()
        return lines + [w for w in model.warnings() if w not in lines]
    if is_decision_list(model):
        return [f"Decision list (Orange's CN2): {len(model.rule_list)} rules, "
                "tried in order; the first that fires gives the class",
                "Covered rows and counts: the rows each rule decides (it fires and no "
                "rule above it does)"]
    return [f"Orange's CN2 rules: {len(model.rule_list)} rules, unordered",
            "Probability: CN2's, on the rows left when it learned each rule (the "
            "Distribution column counts every row a rule covers)"]


# --------------------------------------------------------------- plot data

def plot_kind(model) -> str | None:
    """``"hull"`` (ROC convex hulls), ``"abstention"`` (an abstention curve),
    ``"evc"`` (rules with an EVC correction) or ``None``: as the model
    says (its ``plot_kind``)."""
    return getattr(model, "plot_kind", None)


def hull_points(model, cls: int):
    """``(points, rule indices per entry)`` of class ``cls``'s hull (the
    model's ``hull``): the ROC points from (0, 0) to (1, 1) and, per
    selected entry, its rules."""
    return model.hull(cls)


def abstention_curve(model, data: Table, n=41):
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


@dataclass
class PlotData:
    """What the viewer's plot draws for one model and table, computed once
    (off the GUI thread for big inputs) and redrawn on a selection without
    being computed again."""

    kind: str | None
    hulls: dict = field(default_factory=dict)   # class -> hull_points
    abstention: tuple = None                    # abstention_curve on the shown data
    evc: tuple = None                           # evc_points


def plot_data(model, data: Table | None) -> PlotData:
    """The plot's data for ``model`` and the shown table ``data``."""
    kind = plot_kind(model)
    out = PlotData(kind)
    if kind == "hull":
        out.hulls = {c: hull_points(model, c)
                     for c in range(len(model.domain.class_var.values))}
    elif kind == "abstention" and data is not None and len(data) \
            and data.domain.class_var is not None:
        out.abstention = abstention_curve(model, data)
    elif kind == "evc":  # the rules the model reads (LR with rules: of non-zero weight)
        raw, q, heads = evc_points(model)
        out.evc = (np.where(used_mask(model), raw, np.nan), q, heads)
    return out
