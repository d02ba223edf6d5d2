"""Where a ROCCER fit goes on many rows: the items (``make_items``), the
candidates per class, how often Algorithm 1 inserts a candidate and how
often the repair looks for a concavity, and the seconds of mining and of
selection, on the first ``rows`` rows of ``bench_million.py``'s data.

    OMP_NUM_THREADS=1 python benchmarks/probes/roccer_selection.py 100000 [search_rows=None ...]

Arguments after the rows: keyword arguments of ``ROCCERLearner``. The
counts come from wrapping ``first_insertion`` and the repair's concavity
test (``first_concavity``, or ``_first_concavity`` in older code) for the
fit. Since the selection is compiled (``core.HullSelection``, 2026-11-29)
it calls neither from Python, so the fit then runs Algorithm 1 driven from
Python (``tests/roccer_reference.py``: the same lists) and its selection
seconds are that path's, not the compiled one's.
"""
import ast
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_million import make_data  # noqa: E402


def main(rows, kwargs):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

    import orangecontrib.rules as R
    from orangecontrib.rules import roccer
    X, y = make_data()
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", ("0", "1")))
    train = Table.from_numpy(domain, X[:rows], y[:rows].astype(float))
    counts = {"insertions": 0, "concavity tests": 0, "items": 0}
    driver = roccer
    if not hasattr(roccer, "first_insertion"):  # compiled: count the reference's calls
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
        import roccer_reference as driver
        roccer.select_rules = driver.select_rules

    def counted(name, key, test=lambda out: True):
        inner = getattr(driver, name)

        def wrapper(*args, **kw):
            out = inner(*args, **kw)
            counts[key] += bool(test(out))
            return out
        setattr(driver, name, wrapper)

    counted("first_insertion", "insertions", lambda out: out[0] >= 0)
    counted("first_concavity" if hasattr(driver, "first_concavity") else "_first_concavity",
            "concavity tests")
    make_items = roccer.make_items

    def items(*args, **kw):
        out = make_items(*args, **kw)
        counts["items"] = len(out.group)
        return out
    roccer.make_items = items
    t = time.perf_counter()
    model = R.ROCCERLearner(**kwargs)(train)
    seconds = time.perf_counter() - t
    st = model.stats
    print(f"{rows} rows {kwargs}: {seconds:.1f} s, {len(model.rule_list)} rules, "
          f"{counts['items']} items, candidates {st['candidates']} "
          f"({sum(st['candidates'].values())}), {counts['insertions']} insertions, "
          f"{counts['concavity tests']} concavity tests, mining {st['mining_s']:.1f} s, "
          f"selection {st['selection_s']:.1f} s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]),
         {k: ast.literal_eval(v) for k, v in (a.split("=", 1) for a in sys.argv[2:])})
