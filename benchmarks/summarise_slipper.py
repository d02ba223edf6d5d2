"""Joins SLIPPER's error next to the paper's Table 1 from ``slipper_accuracy.md``
(9 data sets with peers) and ``slipper_accuracy_splice2_ours.md`` (splice2,
this add-on only: the peers take over an hour there) into
``results/slipper_summary.md``.

    python benchmarks/summarise_slipper.py
"""
import os

import numpy as np

from summarise_sls import read_part, table

RESULTS = os.path.join(os.path.dirname(__file__), "results")
PARTS = ["slipper_accuracy.md", "slipper_accuracy_splice2_ours.md"]


def main():
    commands, rows = [], {}
    for part in PARTS:
        text, command = read_part(part)
        commands.append(command)
        rows.update(table(text, "Error (%) next to the paper's Table 1")[1])
    paper = np.array([r["paper"] for r in rows.values()])
    ours = np.array([r["this add-on"] for r in rows.values()])
    lines = ["# SLIPPER against the paper's Table 1: all 10 data sets", "",
             "Collected by `python benchmarks/summarise_slipper.py` from:", *commands, "",
             "| data set | paper error (%) | this add-on (%) | ± std |", "|---|---:|---:|---:|"]
    lines += [f"| {d} | {r['paper']:.1f} | {r['this add-on']:.1f} | {r['± std']:.1f} |"
              for d, r in rows.items()]
    lines += [f"| **mean** | {paper.mean():.2f} | {ours.mean():.2f} | |", "",
              f"{len(rows)} data sets: mean error {ours.mean():.2f}% against the paper's "
              f"{paper.mean():.2f}% (difference {ours.mean() - paper.mean():+.2f} "
              "percentage points).", ""]
    with open(os.path.join(RESULTS, "slipper_summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
