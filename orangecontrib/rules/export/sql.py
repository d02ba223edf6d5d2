"""A model as one SQL ``SELECT`` (``doc/export.md``, "SQL").

:func:`to_sql` writes, for any model of the add-on, a query over a table
whose columns are named as the training data's attributes (categorical
values as their names, numbers as ``REAL``/``DOUBLE PRECISION``, a missing
value as ``NULL``) that returns per row the model's probability of each
class (a column named as the class value) and the predicted class
(``prediction``), computed as the model computes them in Python: the same
rules, the same numbers, combined by the same formulas, so the results
agree to rounding (the tests ask 1e-9) and the predicted class is the same
(ties as :func:`~orangecontrib.rules.base.argmax_with_ties`).

The query is a chain of common table expressions, each reading the one
before (``WITH "_rules_1" AS (...), "_rules_2" AS (...) SELECT ...``):
the first reads the table and evaluates the rules, the next ones combine
their numbers. Only SQL that SQLite and PostgreSQL both run is used
(tested with SQLite 3.40 and PostgreSQL 15): ``CASE``, ``COALESCE``, ``ABS``, ``CAST``,
arithmetic, integer ``%``, a ``MAX`` over a ``VALUES`` list and, for the
models whose probabilities are logistic (SLIPPER, LR with rules, ROCCER's
multinomial combination), ``EXP``, which SQLite has when it is built with
its math functions (the default of its own build since 3.35; Python's
``sqlite3`` on Debian 12 and the python.org installers have it). Each
stage ends with ``LIMIT 9223372036854775807 OFFSET 0``: a subquery with
an ``OFFSET`` is never merged into the query that reads it (SQLite's
flattening rule 14, PostgreSQL's pull-up), so a number a stage computes is
computed once per row however often the next stage reads it.

The rows come in the order the database reads the table: with no ``key``,
the query has no join, grouping or sort, and SQLite and PostgreSQL return
a table's rows in their stored order (the order they were inserted, for a
table not updated since); with ``key``, a column that orders the rows
(e.g. a row number), the query returns that column first and sorts by it.
"""
from __future__ import annotations

import numpy as np

from ..base import PriorRuleModel, RuleModel
from ..logreg import RuleLogisticRegressionModel
from ..roccer import ROCCERModel
from ..rules import spread
from ..ruleset import HASH_PRIME, RuleSetModel, rand_constants
from ..slipper import SlipperModel
from ..sls import SLSEnsembleModel
from .variables import FALSE, TRUE, ExportError, number, quote, sql_source, text

#: the terms of a sum written in one flat chain at most (SQLite's
#: expressions may nest at most 1000 deep: a longer sum is a sum of
#: parenthesised chains of this many)
CHAIN = 100
#: no stage is merged into the next (see the module's docstring)
FENCE = "LIMIT 9223372036854775807 OFFSET 0"
#: ``exp`` of a larger argument overflows a double, of a smaller one
#: underflows (PostgreSQL raises an error on both): a logistic function
#: is 0 or 1 to the last bit beyond it
EXP_LIMIT = 700.0
#: argmax_with_ties' tolerance (rtol and atol of np.isclose)
TIE = 1e-12


def total(terms, zero="0.0") -> str:
    """The SQL sum of ``terms`` in their order (chains of :data:`CHAIN`)."""
    terms = list(terms)
    if not terms:
        return zero
    if len(terms) <= CHAIN:
        return "(" + " + ".join(terms) + ")"
    return "(" + " + ".join(total(terms[i:i + CHAIN]) for i in range(0, len(terms), CHAIN)) \
        + ")"


def any_of(conditions) -> str:
    """The SQL disjunction of ``conditions`` (chains of :data:`CHAIN`, as
    :func:`total`); none: never true."""
    conditions = list(conditions)
    if not conditions:
        return FALSE
    if len(conditions) <= CHAIN:
        return "(" + " OR ".join(conditions) + ")"
    return "(" + " OR ".join(any_of(conditions[i:i + CHAIN])
                             for i in range(0, len(conditions), CHAIN)) + ")"


def greatest(values) -> str:
    """The largest of the SQL expressions ``values`` (NULLs ignored):
    ``MAX`` over a ``VALUES`` list (SQLite and PostgreSQL name its column
    ``column1``; neither has a portable ``GREATEST``; a list of up to
    500 ``UNION ALL`` would hit SQLite's limit of compound selects)."""
    values = list(values)
    if len(values) == 1:
        return values[0]
    # a first row of NULL: SQLite names the column after a first row that
    # is a bare column, not column1
    rows = ", ".join(["(NULL)"] + [f"({v})" for v in values])
    return f'(SELECT MAX(column1) FROM (VALUES {rows}) AS "values")'


def sigmoid(z: str) -> str:
    """``1 / (1 + exp(-z))`` of the column ``z``, as numpy computes it."""
    return (f"CASE WHEN {z} > {number(EXP_LIMIT)} THEN 1.0 WHEN {z} < {number(-EXP_LIMIT)} "
            f"THEN 0.0 ELSE 1.0 / (1.0 + EXP(-{z})) END")


def clip01(x: str) -> str:
    return f"CASE WHEN {x} < 0.0 THEN 0.0 WHEN {x} > 1.0 THEN 1.0 ELSE {x} END"


class Query:
    """The query under construction: its stages (common table
    expressions), each selecting the previous one's columns and new
    ones."""

    def __init__(self, model: RuleModel, table, key=None):
        self.model = model
        self.domain = model.domain
        self._sources = {}
        self.table = (".".join(quote(t) for t in table) if isinstance(table, (tuple, list))
                      else quote(table))
        self.key = key
        taken = {v.name for v in model.original_domain.variables} | {str(key)}
        self.prefix = "_rules_"
        while any(name.startswith(self.prefix) for name in taken):
            self.prefix = "_" + self.prefix
        self.stages = []
        self.count = 0

    def source(self, a: int):
        """How the model's attribute ``a`` reads the table (translated when
        first used: an attribute no rule or term reads may be made by any
        transformation)."""
        if a not in self._sources:
            self._sources[a] = sql_source(self.domain.attributes[a], self.model.original_domain)
        return self._sources[a]

    def name(self) -> str:
        self.count += 1
        return quote(f"{self.prefix}{self.count}")

    def stage(self, exprs, attributes=False) -> list[str]:
        """A new stage computing ``exprs`` (SQL expressions); returns their
        column names. The first stage reads the table (and passes its
        attributes on with ``attributes``), the next the stage before."""
        names = [self.name() for _ in exprs]
        columns = [f"{e} AS {n}" for e, n in zip(exprs, names)]
        if not self.stages:
            keep = []
            if self.key is not None:
                keep.append(f"{quote(self.key)} AS {self.key_column}")
            if attributes:
                keep += [quote(v.name) for v in self.model.original_domain.attributes]
            body = f"SELECT {', '.join(keep + columns)} FROM {self.table}"
        else:
            body = f"SELECT {self.stages[-1][0]}.*, {', '.join(columns)} FROM {self.stages[-1][0]}"
        self.stages.append((quote(f"{self.prefix}step{len(self.stages) + 1}"), body))
        return names

    @property
    def key_column(self):
        return quote(f"{self.prefix}key")

    # --- the rules --------------------------------------------------------
    def condition(self, cond) -> str:
        src = self.source(cond.column)
        if src.discrete:
            if cond.op != "==":
                raise ExportError(f"condition {cond.to_str(self.domain)}: a categorical "
                                  f"attribute compared with {cond.op}")
            return src.is_value(cond.value)
        op = "=" if cond.op == "==" else cond.op
        return f"{src.value} {op} {number(cond.value)}"

    def fires(self, rule) -> str:
        if not rule.conditions:
            return TRUE
        return "(" + " AND ".join(self.condition(c) for c in rule.conditions) + ")"

    def misses_at_most(self, rule, k: int) -> str:
        """The row fails at most ``k`` of ``rule``'s conditions (a missing
        value fails one)."""
        if len(rule.conditions) <= k:
            return TRUE
        failed = total([f"CASE WHEN {self.condition(c)} THEN 0 ELSE 1 END"
                        for c in rule.conditions], "0")
        return f"({failed} <= {int(k)})"

    # --- the end ----------------------------------------------------------
    def finish(self, probs, prediction="prediction") -> str:
        """The query: ``probs`` (a column or expression per class) as the
        class columns, the predicted class as ``prediction``."""
        values = list(self.domain.class_var.values)
        if prediction in values:
            raise ExportError(f"a class value is named {prediction!r}; give the "
                              "prediction column another name (prediction=...)")
        cols = self.stage([f"CAST({p} AS DOUBLE PRECISION)" for p in probs])
        best = self.stage([greatest(cols)])[0]
        pref = self.model.class_preference
        order = sorted(range(len(values)), key=lambda c: (-pref[c], c))
        tie = f"{number(TIE)} + {number(TIE)} * ABS({best})"
        predicted = "CASE " + " ".join(
            f"WHEN ABS({cols[c]} - {best}) <= {tie} THEN {text(values[c])}" for c in order) \
            + " END"
        out = ([f"{self.key_column} AS {quote(self.key)}"] if self.key is not None else []) \
            + [f"{col} AS {quote(v)}" for col, v in zip(cols, values)] \
            + [f"{predicted} AS {quote(prediction)}"]
        ctes = ",\n".join(f"{n} AS (\n  {body}\n  {FENCE})" for n, body in self.stages)
        order_by = f"\nORDER BY {self.key_column}" if self.key is not None else ""
        return (f"WITH\n{ctes}\nSELECT {', '.join(out)}\nFROM {self.stages[-1][0]}"
                f"{order_by}")


# ----------------------------------------------------------------- models

def _constants(q, probs):
    return [number(p) for p in probs]


def _by_rule(q, chosen, rule_probs, prior):
    """Per class: the probabilities of the chosen rule (column ``chosen``,
    ``-1``: none, the prior)."""
    out = []
    for c in range(len(prior)):
        branches = " ".join(f"WHEN {k} THEN {number(p[c])}" for k, p in enumerate(rule_probs))
        out.append(f"CASE {chosen} {branches} ELSE {number(prior[c])} END"
                   if len(rule_probs) else number(prior[c]))
    return out


def ruleset_sql(m: RuleSetModel, q: Query):
    """Fawcett's strategies (:func:`ruleset.score_rules`)."""
    heads, conf, fpr = m.rule_statistics()
    rules, prior, tie = m.rule_list, m.prior, m.class_preference
    R, C = len(rules), m.n_classes
    if R == 0:
        return _constants(q, prior)
    if m.strategy in ("first", "lfpr", "rand"):
        rule_probs = spread(heads, conf, prior)  # the one rule decides: its row
        if m.strategy == "rand":
            chosen = _random_rule(m, q)
        else:
            idx = np.arange(R)
            order = (idx if m.strategy == "first" and m.ordered else
                     np.lexsort((idx, -tie[heads], -conf)) if m.strategy == "first" else
                     np.lexsort((idx, -tie[heads], -conf, fpr)))
            chosen = q.stage(["CASE " + " ".join(f"WHEN {q.fires(rules[k])} THEN {int(k)}"
                                                 for k in order) + " ELSE -1 END"])[0]
        return q.stage(_by_rule(q, chosen, rule_probs, prior))
    # VOTE and WVOTE: the votes (and summed confidences) of each class
    members = [np.flatnonzero(heads == c) for c in range(C)]
    fires = {k: q.fires(rules[k]) for k in range(R)}
    exprs = [total([f"CASE WHEN {fires[k]} THEN 1 ELSE 0 END" for k in ks], "0")
             for ks in members]
    if m.strategy == "wvote":
        exprs += [total([f"CASE WHEN {fires[k]} THEN {number(conf[k])} ELSE 0.0 END"
                         for k in ks]) for ks in members]
    cols = q.stage(exprs)
    votes = cols[:C]
    mass = cols[C:] if m.strategy == "wvote" else [f"CAST({v} AS DOUBLE PRECISION)"
                                                    for v in votes]
    best = q.stage([greatest(f"CASE WHEN {v} > 0 THEN {s} END" for v, s in zip(votes, mass))])[0]
    order = sorted(range(C), key=lambda c: (-tie[c], c))
    near = " ".join(f"WHEN {votes[c]} > 0 AND ABS({mass[c]} - {best}) <= "
                    f"{number(TIE)} + {number(TIE)} * ABS({best}) THEN {c}" for c in order)
    winner = q.stage([f"CASE {near} ELSE -1 END"])[0]
    if m.strategy == "vote":
        all_votes = total([f"CAST({v} AS DOUBLE PRECISION)" for v in votes])
        score = "CASE " + winner + " " + " ".join(
            f"WHEN {c} THEN CAST({votes[c]} AS DOUBLE PRECISION) / {all_votes}"
            for c in range(C)) + " END"
    else:
        score = "CASE " + winner + " " + " ".join(
            f"WHEN {c} THEN {mass[c]} / {votes[c]}" for c in range(C)) + " END"
    weights = [f"({mass[c]} + {number(prior[c])})" for c in range(C)]
    others = "CASE " + winner + " " + " ".join(
        f"WHEN {c} THEN {total(weights[d] for d in range(C) if d != c)}" for c in range(C)) \
        + " END"
    sc, rest = q.stage([score, others])
    sc = q.stage([clip01(sc)])[0]
    uniform = number(1 / (C - 1)) if C > 1 else "0.0"
    probs = []
    for c in range(C):
        share = f"(CASE WHEN {rest} > 0.0 THEN {weights[c]} / {rest} ELSE {uniform} END)"
        probs.append(f"CASE WHEN {winner} < 0 THEN {number(prior[c])} WHEN {winner} = {c} "
                     f"THEN {sc} ELSE {share} * (1.0 - {sc}) END")
    return q.stage(probs)


def _random_rule(m: RuleSetModel, q: Query) -> str:
    """RAND's rule (:func:`ruleset.random_firing_rule`), in SQL's 64-bit
    integers (every number below ``2**62``)."""
    rules = m.rule_list
    R = len(rules)
    a, b, c = rand_constants(R, m.random_state)
    p = HASH_PRIME
    # CAST: PostgreSQL's integer literals are 32-bit, their sum would overflow
    pattern = total([f"CASE WHEN {q.fires(r)} THEN {int(a[k])} ELSE CAST(0 AS BIGINT) END"
                     for k, r in enumerate(rules)], "0")
    h = q.stage([f"{pattern} % {p}"], attributes=True)[0]
    keys = []
    for k, r in enumerate(rules):
        x = f"(({h} + {int(b[k])}) % {p})"
        x = f"(({x} * {x} + {int(c[k])}) % {p})"
        x = f"(({x} * {x} + {int(b[k])}) % {p})"
        keys.append(f"CASE WHEN {q.fires(r)} THEN {x} * {R} + {R - 1 - k} ELSE -1 END")
    best = q.stage([greatest(keys)])[0]
    return q.stage([f"CASE WHEN {best} < 0 THEN -1 ELSE {R - 1} - {best} % {R} END"])[0]


def slipper_sql(m: SlipperModel, q: Query):
    """``P(+|x) = 1 / (1 + exp(-2 f(x)))`` per booster (SlipperModel.predict)."""
    C, start, f = m.n_classes, 0, []
    for _, rules in m.boosters:
        f.append(total([f"CASE WHEN {q.fires(r)} THEN {number(r.quality)} ELSE 0.0 END"
                        for r in rules]))
        start += len(rules)
    f = q.stage(f)
    z = q.stage([f"2.0 * {x}" for x in f])
    p = q.stage([sigmoid(x) for x in z])
    if len(m.boosters) == 1:
        pos = m.boosters[0][0]
        out = ["0.0"] * C
        out[pos], out[1 - pos] = p[0], f"1.0 - {p[0]}"
        return out
    out = ["0.0"] * C
    for (cls, _), col in zip(m.boosters, p):
        out[cls] = col
    s = q.stage([total(out)])[0]
    return q.stage([f"{x} / {s}" for x in out])


def _features(m: RuleLogisticRegressionModel, q: Query, w) -> list[str]:
    """The attribute terms ``F(x) . w`` (AttributeFeatures: a numeric
    attribute standardised, a missing value 0; a categorical one one-hot,
    a missing value 0 in every column)."""
    feats = m.features
    if feats is None:
        return []
    terms, onehot = [], {}
    for j, (a, v) in enumerate(feats.columns):
        if v is not None:
            onehot.setdefault(a, []).append((v, w[j]))
            continue
        if w[j] == 0:
            continue
        src = q.source(a)
        z = (f"(({src.value} / {number(feats.size[a])} - {number(feats.mean[a])}) / "
             f"{number(feats.scale[a])})")
        terms.append(f"{number(w[j])} * COALESCE({z}, 0.0)")
    for a, values in onehot.items():
        branches = " ".join(f"WHEN {q.source(a).is_value(v)} THEN {number(wj)}"
                            for v, wj in values if wj != 0)
        if branches:
            terms.append(f"CASE {branches} ELSE 0.0 END")
    return terms


def logreg_sql(m: RuleLogisticRegressionModel, q: Query):
    """``submodel_probabilities``: softmax, one logistic model, or logistic
    models per class normalised (RuleLogisticRegressionModel.predict)."""
    C, prior = m.n_classes, m.prior
    multinomial = getattr(m, "multinomial", False)
    f = []
    for cls, idx, b0, w, b in m.submodels:
        rules = total([f"CASE WHEN {q.fires(m.rule_list[int(k)])} THEN {number(bk)} ELSE 0.0 END"
                       for k, bk in zip(idx, b) if bk != 0])
        f.append(f"{number(b0)} + {total(_features(m, q, w))} + {rules}")
    f = q.stage(f)
    classes = [cls for cls, *_ in m.submodels]
    out = ["0.0"] * C
    if multinomial:
        mx = q.stage([greatest(f)])[0]
        e = q.stage([f"CASE WHEN {x} - {mx} < {number(-EXP_LIMIT)} THEN 0.0 "
                     f"ELSE EXP({x} - {mx}) END" for x in f])
        s = q.stage([total(e)])[0]
        for cls, x in zip(classes, q.stage([f"{x} / {s}" for x in e])):
            out[cls] = x
        return out
    p = q.stage([sigmoid(x) for x in f])
    if C == 2 and len(m.submodels) == 1:
        out[classes[0]], out[1 - classes[0]] = p[0], f"1.0 - {p[0]}"
        return out
    for cls, x in zip(classes, p):
        out[cls] = x
    s = q.stage([total(out)])[0]
    return q.stage([f"CASE WHEN {s} > 0.0 THEN {x} / {s} ELSE {number(prior[c])} END"
                    for c, x in enumerate(out)])


def sls_sql(m: SLSEnsembleModel, q: Query):
    """``sum_r Q(r) P_r(y | x)`` per class, each rule set's Laplace estimate
    of its region (its nearest rule misses 0, 1 or more literals);
    abstention and silent rows answered by the prior
    (SLSEnsembleModel.predict)."""
    rules, prior, C = m.rule_list, m.prior, m.n_classes
    columns = m.rule_set_rules
    two = C == 2 and len(m.ensembles) == 1
    exprs, scores = [], []
    for ens, cols in zip(m.ensembles, columns):
        terms, votes = [], []
        for qr, idx, leaf in zip(ens.weights, cols, ens.leaf):
            fires = any_of(q.fires(rules[k]) for k in idx)
            near = any_of(q.misses_at_most(rules[k], 1) for k in idx)
            terms.append(f"{number(qr)} * CASE WHEN {fires} THEN {number(leaf[0])} "
                         f"WHEN {near} THEN {number(leaf[1])} ELSE {number(leaf[2])} END")
            votes.append(f"{number(qr)} * CASE WHEN {fires} THEN 1.0 ELSE -1.0 END")
        exprs.append(total(terms))
        scores.append(total(votes))
    every = all(c in {e.cls for e in m.ensembles} for c in np.flatnonzero(m.class_distribution > 0))
    any_fires = any_of(q.fires(r) for r in rules)
    extra = [f"CASE WHEN {any_fires} THEN 1 ELSE 0 END"] if not two else []
    theta = float(m.theta)
    cols = q.stage(exprs + (scores if theta > 0 else []) + extra)
    p_ens = cols[:len(exprs)]
    out = [number(prior[c]) for c in range(C)]
    for ens, col in zip(m.ensembles, p_ens):
        out[ens.cls] = col
    if two:
        cls = m.ensembles[0].cls
        out = ["0.0"] * C
        out[cls], out[1 - cls] = p_ens[0], f"1.0 - {p_ens[0]}"
        probs = out
    else:
        fired = cols[-1]
        s = q.stage([total(out)])[0]
        silent = f"({s} <= 0.0" + (f" OR {fired} = 0)" if every else ")")
        probs = [f"CASE WHEN {silent} THEN {number(prior[c])} ELSE {out[c]} / {s} END"
                 for c in range(C)]
    if theta > 0:  # the abstaining classifier (Section 5.2): margin < theta
        sc = ["-1.0"] * C
        for ens, col in zip(m.ensembles, cols[len(exprs):2 * len(exprs)]):
            sc[ens.cls] = col
        if two:
            sc[1 - m.ensembles[0].cls] = f"(-{sc[m.ensembles[0].cls]})"
        # some class's score is at least theta above every other's
        decided = any_of(
            "(" + " AND ".join(f"{sc[i]} - {sc[j]} >= {number(theta)}"
                               for j in range(C) if j != i) + ")" for i in range(C))
        probs = [f"CASE WHEN {decided} THEN {p} ELSE {number(prior[c])} END"
                 for c, p in enumerate(probs)]
    return probs


def roccer_sql(m: ROCCERModel, q: Query):
    """Per class the odds of its first firing list entry's segment
    (ROCCERModel.posteriors), or the multinomial combination of the
    entries (ROCCERModel.combined); normalised (ROCCERModel.predict)."""
    C, prior, rules = m.n_classes, m.prior, m.rule_list

    def entry(cols):
        return any_of(q.fires(rules[int(k)]) for k in cols)

    out = ["0.0"] * C
    if m.combination is None:
        exprs, classes = [], []
        for cl in m.class_lists:
            lr = cl.likelihood_ratios()
            odds = lr * (cl.P / cl.N if cl.N > 0 else np.inf)
            with np.errstate(invalid="ignore"):
                post = np.where(np.isinf(odds), 1.0, odds / (1 + odds))
            branches = " ".join(f"WHEN {entry(cols)} THEN {number(post[e])}"
                                for e, cols in enumerate(cl.columns))
            exprs.append(f"CASE {branches} ELSE {number(post[-1])} END" if branches
                         else number(post[-1]))
            classes.append(cl.cls)
        for cls, col in zip(classes, q.stage(exprs)):
            out[cls] = col
    else:
        classes, b0, W = m.combination
        entries = [entry(cols) for cl in m.class_lists for cols in cl.columns]
        E = q.stage([f"CASE WHEN {e} THEN 1 ELSE 0 END" for e in entries])
        f = q.stage([f"{number(b0[j])} + "
                     + total([f"CASE WHEN {E[i]} = 1 THEN {number(W[i, j])} ELSE 0.0 END"
                              for i in range(len(E))])
                     for j in range(len(classes))])
        mx = q.stage([greatest(f)])[0]
        e = q.stage([f"CASE WHEN {x} - {mx} < {number(-EXP_LIMIT)} THEN 0.0 "
                     f"ELSE EXP({x} - {mx}) END" for x in f])
        s = q.stage([total(e)])[0]
        for cls, x in zip(classes, q.stage([f"{x} / {s}" for x in e])):
            out[int(cls)] = x
    s = q.stage([total(out)])[0]
    return q.stage([f"CASE WHEN {s} > 0.0 THEN {x} / {s} ELSE {number(prior[c])} END"
                    for c, x in enumerate(out)])


def prior_sql(m: PriorRuleModel, q: Query):
    return _constants(q, m.prior)


#: the writer of each model class (the first that the model is an instance of)
WRITERS = ((PriorRuleModel, prior_sql), (RuleSetModel, ruleset_sql),
           (SlipperModel, slipper_sql), (RuleLogisticRegressionModel, logreg_sql),
           (SLSEnsembleModel, sls_sql), (ROCCERModel, roccer_sql))


def to_sql(model, table="data", key=None, prediction="prediction") -> str:
    """The model as one SQL ``SELECT`` over ``table`` (see the module's
    docstring and ``doc/export.md``).

    Parameters
    ----------
    model : RuleModel
        A model of this add-on.
    table : str or tuple of str
        The table's name (quoted as one identifier), or its parts
        (``("schema", "table")``).
    key : str, optional
        A column that orders the rows: returned first, and the rows sorted
        by it. Without it the rows come in the order the database reads
        the table (its stored order).
    prediction : str
        The name of the predicted class's column.

    Returns
    -------
    str
        The query: a column per class value (its probability, named as
        the value) and ``prediction`` (the predicted value's name).
    """
    for cls, writer in WRITERS:
        if isinstance(model, cls):
            break
    else:
        raise ExportError(f"{type(model).__name__} is not a model of this add-on; "
                          "only its models export to SQL")
    q = Query(model, table, key)
    probs = writer(model, q)
    if not q.stages:  # constant probabilities: one stage to select from the table
        q.stage(["1"])
    return q.finish(probs, prediction)
