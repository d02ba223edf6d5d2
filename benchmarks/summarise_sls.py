"""Joins SLS benchmark reports of ``bench_sls.py`` (by default
``results/sls_accuracy.md``, all 15 data sets in one run) into
``results/sls_summary.md``: accuracy and AUC per data set, wins / ties /
losses of the SLS ensemble against each peer, and average ranks.

    python benchmarks/summarise_sls.py [--parts a.md,b.md] [--out summary.md]

(``--parts``: reports in ``results/``; a run split over several commands
gives several parts.)
"""
import argparse
import os

import numpy as np

RESULTS = os.path.join(os.path.dirname(__file__), "results")
PARTS = ["sls_accuracy.md"]
SLS = "SLS ensemble"


def read_part(name):
    """A committed report's text and a bullet naming it with its command."""
    text = open(os.path.join(RESULTS, name), encoding="utf-8").read()
    command = next(line for line in text.splitlines() if line.startswith("Command:"))
    return text, f"* `{name}`: {command}"


def table(text, heading):
    """``{data set: {learner: value}}`` of the markdown table under ``heading``."""
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    names = [c.strip() for c in rows[0].strip("|").split("|")][1:]
    out = {}
    for line in rows[1:]:
        cells = [c.strip().strip("*") for c in line.strip("|").split("|")]
        if cells[0] == "mean":
            continue
        out[cells[0]] = {n: (float(v) if v not in ("", "nan") else np.nan)
                         for n, v in zip(names, cells[1:])}
    return names, out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--parts", default=",".join(PARTS))
    p.add_argument("--out", default="sls_summary.md")
    args = p.parse_args()
    commands, tables = [], {"Classification accuracy": {}, "AUC": {}}
    names = None
    for part in args.parts.split(","):
        text, command = read_part(part)
        commands.append(command)
        for heading, acc in tables.items():
            names, rows = table(text, heading)
            acc.update(rows)
    lines = ["# SLS rule-set ensembles against rule learners: all data sets", "",
             "Collected by `python benchmarks/summarise_sls.py` from:", *commands, ""]
    for heading, rows in tables.items():
        lines += [f"## {heading}", "", "| data set | " + " | ".join(names) + " |",
                  "|---|" + "---:|" * len(names)]
        for ds, vals in rows.items():
            lines.append(f"| {ds} | " + " | ".join(
                "" if np.isnan(vals[n]) else f"{vals[n]:.3f}" for n in names) + " |")
        lines.append("")
        for n in names:
            if n == SLS:
                continue
            pairs = [(v[SLS], v[n]) for v in rows.values() if not np.isnan(v[n])]
            w = sum(a > b + 1e-9 for a, b in pairs)
            lo = sum(b > a + 1e-9 for a, b in pairs)
            lines.append(f"* SLS vs {n}: {w} wins / {len(pairs) - w - lo} ties / "
                         f"{lo} losses over {len(pairs)} data sets")
        for label, cols in (("all sets, learners that handle multi-class",
                             [n for n in names if all(not np.isnan(v[n]) for v in rows.values())]),
                            ("two-class sets, all learners", names)):
            sets = [v for v in rows.values() if all(not np.isnan(v[n]) for n in cols)]
            ranks = np.mean([len(cols) + 1 - _rank([v[n] for n in cols]) for v in sets], axis=0)
            lines.append(f"* Average rank ({label}, {len(sets)} sets; 1 = best): " + ", ".join(
                f"{n} {r:.2f}" for r, n in sorted(zip(ranks, cols))))
        lines.append("")
    with open(os.path.join(RESULTS, args.out), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def _rank(values):
    """Ranks, 1 = smallest, ties share the mean rank."""
    values = np.asarray(values)
    order = values.argsort()
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    for v in np.unique(values):
        ranks[values == v] = ranks[values == v].mean()
    return ranks


if __name__ == "__main__":
    main()
