"""Joins the SLIPPER benchmark reports into ``results/slipper_summary.md``:
the error next to the paper's Table 1 on all 10 data sets and, where the
peers' runs are there, accuracy, AUC, wins / ties / losses and average ranks
against imodels' SLIPPER, wittgenstein's RIPPER and BOOMER.

The 10 sets ran as two commands: ``slipper_accuracy.md`` (9 sets) and splice2
on its own (the peers take about two hours there). The splice2 report with the
peers, ``slipper_accuracy_splice2.md``, is used when present; otherwise
``slipper_accuracy_splice2_ours.md`` (this add-on only, the same folds).

    python benchmarks/summarise_slipper.py
"""
import os

import numpy as np

from summarise_sls import _rank, read_part, table

RESULTS = os.path.join(os.path.dirname(__file__), "results")
OURS = "SLIPPER (this add-on)"


def parts():
    splice = "slipper_accuracy_splice2.md"
    if not os.path.exists(os.path.join(RESULTS, splice)):
        splice = "slipper_accuracy_splice2_ours.md"
    return ["slipper_accuracy.md", splice]


def peer_lines(tables):
    """Accuracy / AUC / seconds-per-rule tables with ranks over the data sets
    where every learner has a value."""
    lines = []
    for heading, best in (("Accuracy", max), ("AUC", max),
                          ("Fit seconds per rule learned", min)):
        rows = tables[heading]
        names = max((list(v) for v in rows.values()), key=len)
        if len(names) < 2:
            continue
        sets = {d: v for d, v in rows.items()
                if all(not np.isnan(v.get(n, np.nan)) for n in names)}
        fmt = "{:.4f}" if best is min else "{:.3f}"
        lines += [f"## {heading}", "", "| data set | " + " | ".join(names) + " |",
                  "|---|" + "---:|" * len(names)]
        for d, v in sets.items():
            top = best(v.values())
            lines.append(f"| {d} | " + " | ".join(
                (f"**{fmt.format(v[n])}**" if v[n] == top else fmt.format(v[n]))
                for n in names) + " |")
        means = [np.mean([v[n] for v in sets.values()]) for n in names]
        lines += ["| **mean** | " + " | ".join(fmt.format(m) for m in means) + " |", ""]
        if best is min:
            lines += ["Mean seconds per rule relative to this add-on's (its fit includes the "
                      "internal 5-fold cross-validation choosing T): " + ", ".join(
                f"{n} {m / means[0]:.3g}x" for n, m in zip(names[1:], means[1:])), ""]
            continue
        for n in names[1:]:
            pairs = [(v[OURS], v[n]) for v in sets.values()]
            w = sum(a > b + 1e-9 for a, b in pairs)
            lo = sum(b > a + 1e-9 for a, b in pairs)
            lines.append(f"* this add-on vs {n}: {w} wins / {len(pairs) - w - lo} ties / "
                         f"{lo} losses")
        ranks = np.mean([len(names) + 1 - _rank([v[n] for n in names])
                         for v in sets.values()], axis=0)
        lines += [f"* Average rank by {heading} ({len(sets)} data sets, 1 = best, "
                  "from the 3-decimal values above): " + ", ".join(
                      f"{n} {r:.2f}" for r, n in sorted(zip(ranks, names))), ""]
    return lines


def main():
    commands, rows = [], {}
    tables = {"Accuracy": {}, "AUC": {}, "Fit seconds per rule learned": {}}
    for part in parts():
        text, command = read_part(part)
        commands.append(command)
        rows.update(table(text, "Error (%) next to the paper's Table 1")[1])
        for heading, acc in tables.items():
            acc.update(table(text, heading)[1])
    paper = np.array([r["paper"] for r in rows.values()])
    ours = np.array([r["this add-on"] for r in rows.values()])
    lines = [f"# SLIPPER against the paper's Table 1 and peers: all {len(rows)} data sets", "",
             "Collected by `python benchmarks/summarise_slipper.py` from:", *commands, "",
             "## Error (%) next to the paper's Table 1", "",
             "| data set | paper error (%) | this add-on (%) | ± std |", "|---|---:|---:|---:|"]
    lines += [f"| {d} | {r['paper']:.1f} | {r['this add-on']:.1f} | {r['± std']:.1f} |"
              for d, r in rows.items()]
    lines += [f"| **mean** | {paper.mean():.2f} | {ours.mean():.2f} | |", "",
              f"{len(rows)} data sets: mean error {ours.mean():.2f}% against the paper's "
              f"{paper.mean():.2f}% (difference {ours.mean() - paper.mean():+.2f} "
              "percentage points).", ""]
    lines += peer_lines(tables)
    with open(os.path.join(RESULTS, "slipper_summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
