"""Collects ROCCER's AUC next to the paper's Table 2 from the committed
reports (``roccer.md``, ``roccer_part2.md``, ``roccer_chess.md``) into
``results/roccer_summary.md``: the full run was split over three commands.

    python benchmarks/summarise_roccer.py
"""
import os

import numpy as np

from summarise_sls import read_part, table

RESULTS = os.path.join(os.path.dirname(__file__), "results")
PARTS = ["roccer.md", "roccer_part2.md", "roccer_chess.md"]


def main():
    rows, commands = [], []
    for name in PARTS:
        text, command = read_part(name)
        commands.append(command)
        _, part = table(text, "ROCCER's AUC (%) next to the paper's Table 2")
        rows += [(d, f"{v['rows']:.0f}", f"{v['paper']:.2f}", f"{v['this add-on']:.2f}",
                  f"{v['± std']:.2f}", f"{v['difference']:+.2f}") for d, v in part.items()]
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
