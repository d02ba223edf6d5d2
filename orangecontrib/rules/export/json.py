"""A model as JSON text and back (``doc/export.md``, "JSON": the schema).

:func:`to_json` writes a model of the add-on as a JSON object: the
training data's columns, the model's attributes (each a column of the
training data or made from one by the learner's preprocessing), the rules
as conditions over attribute names and values with their class, counts
and number, and under ``"combine"`` the numbers of the way the model
combines them (a resolution strategy, boosters, logistic models, weighted
rule sets, ROC hull lists). :func:`load_json` builds the same model from
it: the same class, rules and numbers, so it predicts the same
probabilities and classes, explains, shows in the Rule Viewer and pickles
as the original. A file of another ``"format"`` or ``"version"`` is
refused with a message that says which.
"""
from __future__ import annotations

import json
import math

import numpy as np
from Orange.data import DiscreteVariable, Domain

from ..base import PriorRuleModel, RuleModel
from ..evc import EVCRuleModel, GumbelParameters
from ..logreg import AttributeFeatures, RuleLogisticRegressionModel
from ..roccer import ClassRuleList, ROCCERModel
from ..rules import Condition, Rule
from ..ruleset import RuleSetModel
from ..slipper import SlipperModel
from ..sls import Ensemble, EnsembleBound, SLSEnsembleModel
from .variables import ExportError, describe, describe_original, rebuild, rebuild_original

#: the ``"format"`` of every file this module writes
FORMAT = "orange3-rules model"
#: the schema's version: a reader refuses a file of another
VERSION = 1

#: the attributes a learner sets on its model besides the constructor's,
#: written under ``"attributes"`` when the model has them (summaries and
#: plots read them)
MODEL_ATTRIBUTES = ("name", "used_vals", "search_rows", "rounds", "rounds_tried", "grow_rows",
                    "stats", "size_curve", "penalty_scale", "penalty_scale_losses",
                    "budget_choice", "budget_losses", "decided_counts")


# ---------------------------------------------------------------- values

def num(x):
    """A float for JSON: a number, or ``"NaN"``, ``"Infinity"``,
    ``"-Infinity"`` (JSON has no such numbers)."""
    x = float(x)
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def unnum(x) -> float:
    return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(x, x))


def nums(a) -> list:
    """An array of floats (any shape) as nested lists of :func:`num`."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0:
        return num(a)
    return [nums(x) for x in a]


def unnums(a) -> np.ndarray:
    def walk(x):
        return [walk(y) for y in x] if isinstance(x, list) else unnum(x)
    return np.array(walk(a), dtype=float)


def encode(value):
    """Any of a model's own attributes (numbers, strings, lists, arrays,
    dicts) as JSON, tagged where JSON would lose the type: ``{"float":
    "NaN"}``, ``{"array": [...], "dtype": "int64"}``, ``{"tuple": [...]}``,
    ``{"dict": [[key, value], ...]}``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else {"float": num(value)}
    if isinstance(value, np.ndarray):
        return {"array": encode(value.tolist()), "dtype": str(value.dtype)}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    raise ExportError(f"cannot write a {type(value).__name__} to JSON")


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "float" in value:
        return unnum(value["float"])
    if "array" in value:
        return np.array(decode(value["array"]), dtype=value["dtype"])
    if "tuple" in value:
        return tuple(decode(v) for v in value["tuple"])
    if "dict" in value:
        return {_hashable(decode(k)): decode(v) for k, v in value["dict"]}
    raise ExportError(f"unknown value {value!r}")


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


# ------------------------------------------------------------ writing

class _Writer:
    def __init__(self, model: RuleModel):
        self.model = model
        self.domain = model.domain
        names = [v.name for v in self.domain.attributes]
        if len(set(names)) != len(names):
            raise ExportError("the model's attributes do not have distinct names")
        self.values = list(self.domain.class_var.values)

    def cls(self, c) -> str:
        return self.values[int(c)]

    def condition(self, c: Condition) -> dict:
        var = self.domain.attributes[c.column]
        value = var.values[int(c.value)] if var.is_discrete and c.op == "==" else num(c.value)
        return {"attribute": var.name, "op": c.op, "value": value}

    def rule(self, r: Rule) -> dict:
        out = {"if": [self.condition(c) for c in r.conditions], "then": self.cls(r.head),
               "class_distribution": nums(r.class_distribution), "quality": num(r.quality)}
        if r.extra:
            out["extra"] = {k: encode(v) for k, v in r.extra.items()}
        return out

    def document(self) -> dict:
        m = self.model
        original = m.original_domain
        cv = self.domain.class_var
        return {
            "format": FORMAT, "version": VERSION, "model": type(m).__name__,
            "domain": {
                "training_attributes": [describe_original(v) for v in original.attributes],
                "attributes": [describe(v, original) for v in self.domain.attributes],
                "class": {"name": cv.name, "values": list(cv.values)}},
            "class_distribution": nums(m.class_distribution),
            "rules": [self.rule(r) for r in m.rule_list],
            "combine": self.combine(),
            "attributes": {k: encode(getattr(m, k)) for k in MODEL_ATTRIBUTES
                           if k in vars(m)},
        }

    def combine(self) -> dict:
        m = self.model
        index = {id(r): k for k, r in enumerate(m.rule_list)}
        if isinstance(m, PriorRuleModel):
            return {"kind": "prior"}
        if isinstance(m, RuleSetModel):
            out = {"kind": "resolution", "strategy": m.strategy, "ordered": m.ordered,
                   "random_state": encode(m.random_state), "confidence": "laplace"}
            if isinstance(m, EVCRuleModel):
                out.update(confidence="quality", quality_measure=m.quality_measure)
                g = m.gumbel
                out["gumbel"] = None if g is None else {
                    "mu": nums(g.mu), "beta": nums(g.beta),
                    "n_permutations": int(g.n_permutations)}
            return out
        if isinstance(m, SlipperModel):
            return {"kind": "boosting", "boosters": [
                {"class": self.cls(c), "rules": [index[id(r)] for r in rules]}
                for c, rules in m.boosters]}
        if isinstance(m, RuleLogisticRegressionModel):
            return self.logistic(m)
        if isinstance(m, SLSEnsembleModel):
            return {"kind": "rule set ensembles", "theta": num(m.theta), "k_max": m.k_max,
                    "ensembles": [
                        {"class": self.cls(e.cls),
                         "rule_sets": [[int(k) for k in idx] for idx in cols],
                         "weights": nums(e.weights), "errors": nums(e.errors),
                         "ks": [int(k) for k in e.ks], "leaf": nums(e.leaf)}
                        for e, cols in zip(m.ensembles, m.rule_set_rules)],
                    "bounds": [{"class": self.cls(c), "gibbs_error": num(b.gibbs_error),
                                "kl": num(b.kl), "epsilon": num(b.epsilon), "m": int(b.m),
                                "delta": num(b.delta)} for c, b in m.bounds.items()]}
        if isinstance(m, ROCCERModel):
            comb = m.combination
            return {"kind": "roc hulls", "lists": [
                {"class": self.cls(cl.cls),
                 "entries": [[int(k) for k in cols] for cols in cl.columns],
                 "points": nums(cl.points), "P": num(cl.P), "N": num(cl.N),
                 "n_candidates": int(cl.n_candidates),
                 "min_confidence": num(cl.min_confidence)} for cl in m.class_lists],
                "combination": None if comb is None else {
                    "classes": [self.cls(c) for c in comb[0]],
                    "intercepts": nums(comb[1]), "weights": nums(comb[2])}}
        raise ExportError(f"{type(m).__name__} is not a model of this add-on")

    def logistic(self, m: RuleLogisticRegressionModel) -> dict:
        f = m.features
        features = None
        if f is not None:
            features = []
            for name, (a, v) in zip(f.names, f.columns):
                var = self.domain.attributes[a]
                item = {"name": name, "attribute": var.name}
                if v is None:
                    item.update(size=num(f.size[a]), mean=num(f.mean[a]), scale=num(f.scale[a]))
                else:
                    item["value"] = var.values[int(v)]
                features.append(item)
        rule_model = m.rule_model
        return {"kind": "logistic", "multinomial": bool(getattr(m, "multinomial", False)),
                "lambda": num(m.lam), "features": features,
                "submodels": [{"class": self.cls(c), "intercept": num(b0),
                               "attribute_weights": nums(w),
                               "rules": [int(k) for k in idx], "rule_weights": nums(b)}
                              for c, idx, b0, w, b in m.submodels],
                "rule_model": (None if not isinstance(rule_model, RuleModel)
                               else _Writer(rule_model).document())}


def to_json(model, indent=None) -> str:
    """The model as JSON text (``doc/export.md``).

    Parameters
    ----------
    model : RuleModel
        A model of this add-on.
    indent : int, optional
        Indent the text by this many spaces per level (default: one line).
    """
    if not isinstance(model, RuleModel):
        raise ExportError(f"{type(model).__name__} is not a model of this add-on; "
                          "only its models export to JSON")
    return json.dumps(_Writer(model).document(), indent=indent, ensure_ascii=False,
                      allow_nan=False)


# ------------------------------------------------------------ reading

class _Reader:
    def __init__(self, doc: dict):
        d = doc["domain"]
        originals = [rebuild_original(v) for v in d["training_attributes"]]
        by_name = {v.name: v for v in originals}
        cv = DiscreteVariable(d["class"]["name"], values=tuple(d["class"]["values"]))
        self.original = Domain(originals, cv)
        self.domain = Domain([rebuild(v, by_name) for v in d["attributes"]], cv)
        self.columns = {v.name: i for i, v in enumerate(self.domain.attributes)}
        self.values = {v: i for i, v in enumerate(cv.values)}
        self.doc = doc

    def cls(self, name) -> int:
        if name not in self.values:
            raise ExportError(f"class value {name!r} is not among the class's values")
        return self.values[name]

    def condition(self, c: dict) -> Condition:
        if c["attribute"] not in self.columns:
            raise ExportError(f"a rule refers to attribute {c['attribute']!r}, which the "
                              "model does not have")
        a = self.columns[c["attribute"]]
        var = self.domain.attributes[a]
        if var.is_discrete and c["op"] == "==":
            if c["value"] not in var.values:
                raise ExportError(f"{var.name!r} has no value {c['value']!r}")
            value = var.values.index(c["value"])
        else:
            value = unnum(c["value"])
        return Condition(a, c["op"], float(value))

    def rule(self, r: dict) -> Rule:
        extra = {k: decode(v) for k, v in r.get("extra", {}).items()}
        return Rule([self.condition(c) for c in r["if"]], self.cls(r["then"]),
                    unnums(r["class_distribution"]), unnum(r["quality"]),
                    domain=self.domain, **extra)

    def model(self) -> RuleModel:
        doc, comb = self.doc, self.doc["combine"]
        rules = [self.rule(r) for r in doc["rules"]]
        dist = unnums(doc["class_distribution"])
        kind, name = comb["kind"], doc["model"]
        if kind == "prior":
            model = PriorRuleModel(self.domain, rules, dist)
        elif kind == "resolution":
            if name == "EVCRuleModel":
                g = comb.get("gumbel")
                gumbel = None if g is None else GumbelParameters(
                    unnums(g["mu"]), unnums(g["beta"]), g["n_permutations"])
                model = EVCRuleModel(self.domain, rules, dist, comb["strategy"], gumbel,
                                     comb["quality_measure"])
            else:
                model = RuleSetModel(self.domain, rules, dist, comb["strategy"],
                                     comb["ordered"], decode(comb["random_state"]))
            model.ordered = bool(comb["ordered"])
            model.random_state = decode(comb["random_state"])
        elif kind == "boosting":
            boosters = [(self.cls(b["class"]), [rules[k] for k in b["rules"]])
                        for b in comb["boosters"]]
            model = SlipperModel(self.domain, boosters, dist)
        elif kind == "logistic":
            model = self.logistic(comb, rules, dist)
        elif kind == "rule set ensembles":
            model = self.ensembles(comb, rules, dist)
        elif kind == "roc hulls":
            model = self.hulls(comb, rules, dist)
        else:
            raise ExportError(f"unknown kind of model {kind!r}")
        if type(model).__name__ != name:
            raise ExportError(f"the file's model {name!r} does not match its "
                              f"combination {kind!r}")
        model.original_domain = self.original
        for k, v in doc.get("attributes", {}).items():
            if k in MODEL_ATTRIBUTES:
                setattr(model, k, decode(v))
        return model

    def logistic(self, comb, rules, dist):
        features = None
        if comb["features"] is not None:
            features = object.__new__(AttributeFeatures)
            features.names, features.columns = [], []
            features.size, features.mean, features.scale = {}, {}, {}
            for item in comb["features"]:
                a = self.columns[item["attribute"]]
                var = self.domain.attributes[a]
                features.names.append(item["name"])
                if "value" in item:
                    features.columns.append((a, var.values.index(item["value"])))
                else:
                    features.columns.append((a, None))
                    features.size[a] = unnum(item["size"])
                    features.mean[a] = unnum(item["mean"])
                    features.scale[a] = unnum(item["scale"])
        submodels = [(self.cls(s["class"]), np.array(s["rules"], dtype=np.intp),
                      unnum(s["intercept"]), unnums(s["attribute_weights"]),
                      unnums(s["rule_weights"])) for s in comb["submodels"]]
        rule_model = None
        if comb.get("rule_model") is not None:
            rule_model = _load(comb["rule_model"])
        return RuleLogisticRegressionModel(self.domain, rules, dist, features, submodels,
                                           unnum(comb["lambda"]), rule_model,
                                           multinomial=bool(comb["multinomial"]))

    def ensembles(self, comb, rules, dist):
        def literals(k):
            return tuple((int(c.column), c.op, float(c.value)) for c in rules[k].conditions)
        ensembles = []
        for e in comb["ensembles"]:
            ensembles.append(Ensemble(
                self.cls(e["class"]),
                [tuple(literals(k) for k in rs) for rs in e["rule_sets"]],
                unnums(e["weights"]), unnums(e["errors"]),
                np.array(e["ks"], dtype=int), unnums(e["leaf"]).reshape(-1, 3)))
        bounds = {self.cls(b["class"]): EnsembleBound(
            unnum(b["gibbs_error"]), unnum(b["kl"]), unnum(b["epsilon"]), int(b["m"]),
            unnum(b["delta"])) for b in comb["bounds"]}
        model = SLSEnsembleModel(self.domain, ensembles, dist, bounds,
                                 unnum(comb["theta"]), comb["k_max"])
        return _same_rules(model, rules)

    def hulls(self, comb, rules, dist):
        lists = []
        for cl in comb["lists"]:
            entries = [[rules[k].conditions for k in cols] for cols in cl["entries"]]
            lists.append(ClassRuleList(self.cls(cl["class"]), entries, unnums(cl["points"]),
                                       unnum(cl["P"]), unnum(cl["N"]), cl["n_candidates"],
                                       min_confidence=unnum(cl["min_confidence"])))
        model = ROCCERModel(self.domain, lists, dist)
        if comb["combination"] is not None:
            c = comb["combination"]
            model.combination = (np.array([self.cls(v) for v in c["classes"]]),
                                 unnums(c["intercepts"]), unnums(c["weights"]))
        return _same_rules(model, rules)


def _same_rules(model, rules):
    """The model's rules rebuilt from its structure, checked against the
    file's rules (the same conditions and classes, in the same order), with
    the file's counts, numbers and extras."""
    if len(model.rule_list) != len(rules) or any(
            a.conditions != b.conditions or a.head != b.head
            for a, b in zip(model.rule_list, rules)):
        raise ExportError("the file's rules are not those its model's structure makes")
    for a, b in zip(model.rule_list, rules):
        a.class_distribution, a.quality = b.class_distribution, b.quality
        a.extra.update(b.extra)
    return model


def _load(doc) -> RuleModel:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ExportError("not a model of Orange3-Rules: the JSON has no "
                          f"\"format\": \"{FORMAT}\"")
    if doc.get("version") != VERSION:
        raise ExportError(f"the file is a model of schema version {doc.get('version')!r}; "
                          f"this version of Orange3-Rules reads version {VERSION} only")
    try:
        return _Reader(doc).model()
    except (KeyError, IndexError, TypeError) as exc:
        raise ExportError(f"the file is not a valid model of schema version {VERSION}: "
                          f"{type(exc).__name__}: {exc}") from None


def load_json(text: str) -> RuleModel:
    """The model :func:`to_json` wrote.

    Parameters
    ----------
    text : str or bytes
        The JSON text.

    Raises
    ------
    ExportError
        (a ``ValueError``) for text that is not JSON, a file of another
        format or of another schema version.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExportError(f"not a model of Orange3-Rules: not JSON ({exc})") from None
    return _load(doc)
