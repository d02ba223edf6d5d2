"""Collects ROCCER's AUC next to the paper's Table 2 from the committed
reports (``roccer.md``, ``roccer_part2.md``, ``roccer_chess.md``) into
``results/roccer_summary.md``: the full run was split over three commands.

    python benchmarks/summarise_roccer.py
"""
import os
import re

import numpy as np

RESULTS = os.path.join(os.path.dirname(__file__), "results")
PARTS = ["roccer.md", "roccer_part2.md", "roccer_chess.md"]
ROW = re.compile(r"^\| (\S+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([+-][\d.]+) \|$")


def main():
    rows, commands = [], []
    for name in PARTS:
        text = open(os.path.join(RESULTS, name), encoding="utf-8").read()
        commands.append(f"* `{name}`: " + next(line for line in text.splitlines()
                                               if line.startswith("Command:")))
        section = text.split("## ROCCER's AUC", 1)[1].split("\n## ", 1)[0]
        rows += [m.groups() for line in section.splitlines() if (m := ROW.match(line))]
    diffs = np.array([float(r[5]) for r in rows])
    lines = ["# ROCCER against the paper's Table 2: all 14 data sets", "",
             "Collected by `python benchmarks/summarise_roccer.py` from:", *commands, "",
             "| data set | rows | paper AUC | this add-on | ± std | difference |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {' | '.join(r)} |" for r in rows]
    lines += ["", f"{len(rows)} data sets: mean difference {diffs.mean():+.2f} AUC "
                  f"points, mean absolute difference {np.abs(diffs).mean():.2f}; "
                  f"higher than the paper on {int((diffs > 0).sum())}, lower on "
                  f"{int((diffs < 0).sum())}.", ""]
    with open(os.path.join(RESULTS, "roccer_summary.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
