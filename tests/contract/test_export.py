"""SQL and JSON export (orangecontrib.rules.export, doc/export.md): every
learner and resolution strategy, two and three classes, trained on 600
rows and checked on a 10,000-row table with missing values in numeric and
categorical columns whose names hold spaces, quotes and operators:

* the query of ``model.to_sql()``, run by SQLite (Python's ``sqlite3``),
  gives ``model(data, model.Probs)`` to 1e-9 and the predicted class
  exactly, in the table's row order (and sorted by a ``key`` column);
* ``load_json(model.to_json())`` predicts the same probabilities and
  classes, explains, shows in the Rule Viewer's table and pickles;
* a file of another format or schema version is refused;
* the same query runs on PostgreSQL when a server can be started here
  (``initdb`` and ``pg_ctl`` of a PostgreSQL installation; the test says
  why it skips otherwise).
"""
from __future__ import annotations

import glob
import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import tempfile

import numpy as np
import pytest
from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
from Orange.preprocess import Continuize, Discretize, Impute, Normalize

import orangecontrib.rules as R
from orangecontrib.rules.export import ExportError, save_model, to_sql
from orangecontrib.rules.export.variables import quote
from orangecontrib.rules.ruleset import random_firing_rule
from orangecontrib.rules.viewer import rule_table, rules_as_table

N_TEST = 10_000


def make_table(n, n_classes, seed):
    """Numeric and categorical columns with awkward names, 10% missing
    values in each, a class that depends on several of them."""
    rng = np.random.default_rng(seed)
    attrs = [ContinuousVariable("age (years)"), ContinuousVariable('say "hi"'),
             ContinuousVariable("x <= y"), DiscreteVariable("it's", ("a", "b b", "c'")),
             DiscreteVariable("colour", ("red", "green", "blue", "other"))]
    X = np.column_stack([np.round(rng.normal(40, 10, n), 1), rng.normal(size=n),
                         rng.integers(0, 5, n).astype(float),
                         rng.integers(0, 3, n).astype(float),
                         rng.integers(0, 4, n).astype(float)])
    signal = ((X[:, 0] - 40) / 10 + X[:, 1] + (X[:, 3] == 1) - 0.5 * (X[:, 4] == 2)
              + 0.3 * X[:, 2] + rng.normal(size=n) * 0.7)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    cv = DiscreteVariable("class", ("k 0", 'k"1', "k'2")[:n_classes])
    return Table.from_numpy(Domain(attrs, cv), X, y.astype(float))


def rows_of(data, domain):
    """``data``'s attributes as SQL values: value names, floats, None."""
    X = data.transform(Domain(domain.attributes)).X
    return [[None if np.isnan(v) else (var.values[int(v)] if var.is_discrete else float(v))
             for v, var in zip(x, domain.attributes)] for x in X]


def create_table(conn, domain, rows, name="data", key=None):
    cols = [f"{quote(v.name)} {'TEXT' if v.is_discrete else 'REAL'}"
            for v in domain.attributes]
    if key is not None:
        cols.insert(0, f"{quote(key)} INTEGER")
    conn.execute(f"DROP TABLE IF EXISTS {quote(name)}")
    conn.execute(f"CREATE TABLE {quote(name)} ({', '.join(cols)})")
    conn.executemany(f"INSERT INTO {quote(name)} VALUES ({', '.join('?' * len(cols))})", rows)


@pytest.fixture(scope="module")
def tables():
    """Per number of classes: (training table, test table, SQLite with it)."""
    out = {}
    for n_classes in (2, 3):
        train, test = make_table(600, n_classes, 1), make_table(N_TEST, n_classes, 2)
        conn = sqlite3.connect(":memory:")
        create_table(conn, train.domain, rows_of(test, train.domain))
        out[n_classes] = (train, test, conn)
    yield out
    for _, _, conn in out.values():
        conn.close()


def evc(**kw):
    return R.EVCRuleLearner(n_permutations=4, beam_width=3, max_rule_length=3, **kw)


LEARNERS = {
    **{f"scoring-{s}": (lambda s=s: R.RuleScoringLearner(beam_width=2, max_rule_length=2,
                                                          strategy=s)) for s in R.STRATEGIES},
    **{f"evc-{s}": (lambda s=s: evc(strategy=s)) for s in R.STRATEGIES},
    "scoring-decision-list": lambda: R.RuleScoringLearner(
        beam_width=2, max_rule_length=2, strategy="first", ordered=True),
    "scoring-cn2": lambda: R.RuleScoringLearner(base=R.cn2_base(beam_width=2,
                                                                max_rule_length=2)),
    "slipper": lambda: R.SlipperLearner(T_max=6, n_folds=2),
    "lrr": lambda: R.RuleLogisticRegressionLearner(rule_learner=evc(), n_folds=2),
    "lrr-ovr": lambda: R.RuleLogisticRegressionLearner(rule_learner=evc(), n_folds=2,
                                                       multi_class="ovr"),
    "lrr-budget": lambda: R.RuleLogisticRegressionLearner(rule_learner=evc(), n_folds=2,
                                                          max_rules=4),
    "lrr-rules-only": lambda: R.RuleLogisticRegressionLearner(
        rule_learner=evc(), n_folds=2, attributes=False),
    "sls": lambda: R.SLSEnsembleLearner(k_max=2, n_rule_sets=2, max_steps=80),
    "sls-abstains": lambda: R.SLSEnsembleLearner(k_max=2, n_rule_sets=3, max_steps=80,
                                                 theta=0.3),
    "sls-intervals": lambda: R.SLSEnsembleLearner(k_max=2, n_rule_sets=2, max_steps=80,
                                                  numeric="intervals"),
    "sls-budget": lambda: R.SLSEnsembleLearner(k_max=2, n_rule_sets=3, max_steps=80,
                                               max_rules=3),
    "roccer": lambda: R.ROCCERLearner(max_length=2),
    "roccer-hulls": lambda: R.ROCCERLearner(max_length=2, multi_class="hulls"),
    # preprocessed domains: Orange's discretiser, imputation and normalisation
    "evc-discretized": lambda: evc(preprocessors=[Discretize()]),
    "scoring-imputed": lambda: R.RuleScoringLearner(beam_width=2, max_rule_length=2,
                                                    preprocessors=[Impute()]),
    "lrr-normalized": lambda: R.RuleLogisticRegressionLearner(
        rule_learner=evc(), n_folds=2, preprocessors=[Normalize()]),
    "slipper-discretized": lambda: R.SlipperLearner(T_max=4, n_folds=2,
                                                    preprocessors=[Discretize()]),
}

_MODELS = {}


def model_of(name, n_classes, tables):
    if (name, n_classes) not in _MODELS:
        _MODELS[name, n_classes] = LEARNERS[name]()(tables[n_classes][0])
    return _MODELS[name, n_classes]


def expected(model, data):
    probs = model(data, model.Probs)
    values = model(data)
    names = [model.domain.class_var.values[int(v)] for v in values]
    return probs, names


def sqlite_has_exp(conn) -> bool:
    try:
        conn.execute("SELECT EXP(1.0)").fetchall()
        return True
    except sqlite3.OperationalError:
        return False


def assert_query_gives(out, model, data, what=""):
    """The rows ``out`` of a query are ``model``'s probabilities of
    ``data`` (to 1e-9) and its predicted classes (exactly), in order."""
    probs, names = expected(model, data)
    got = np.array([row[:-1] for row in out], dtype=float)
    assert got.shape == probs.shape, what
    np.testing.assert_allclose(got, probs, rtol=0, atol=1e-9, err_msg=what)
    assert [row[-1] for row in out] == names, what


@pytest.fixture(params=[(name, n) for n in (2, 3) for name in LEARNERS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def case(request, tables):
    """``(model, test table, SQLite with it)`` of a learner on two and on
    three classes."""
    name, n_classes = request.param
    _, test, conn = tables[n_classes]
    return model_of(name, n_classes, tables), test, conn


def test_sqlite_gives_the_models_predictions(case):
    model, test, conn = case
    sql = model.to_sql()
    if "EXP(" in sql and not sqlite_has_exp(conn):
        pytest.skip("this SQLite is built without its math functions (EXP); "
                    f"{type(model).__name__}'s query needs EXP (doc/export.md)")
    cursor = conn.execute(sql)
    columns = [d[0] for d in cursor.description]
    assert columns == list(model.domain.class_var.values) + ["prediction"]
    assert_query_gives(cursor.fetchall(), model, test)


def test_json_round_trip(case):
    model, test, _ = case
    text = model.to_json()
    loaded = R.load_json(text)
    assert type(loaded) is type(model)
    probs, names = expected(model, test)
    loaded_probs, loaded_names = expected(loaded, test)
    np.testing.assert_array_equal(loaded_probs, probs)
    assert loaded_names == names
    assert loaded.size == model.size and len(loaded.rule_list) == len(model.rule_list)
    assert [r.to_str() for r in loaded.rule_list] == [r.to_str() for r in model.rule_list]
    # explanations, the Rule Viewer's table and the printout work on it
    rows = test[:50]
    for a, b in zip(loaded.explain(rows), model.explain(rows)):
        np.testing.assert_array_equal(a.rules, b.rules)
        np.testing.assert_allclose(a.probabilities(), b.probabilities(), atol=1e-12)
    table = rule_table(loaded)
    assert table.conditions == rule_table(model).conditions
    for a, b in zip(table.columns, rule_table(model).columns):
        assert a.name == b.name
        np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(rules_as_table(loaded, rows).X, rules_as_table(model, rows).X)
    assert loaded.summary_lines() == model.summary_lines()
    assert str(loaded) == str(model)
    # the loaded model pickles, and writes the same JSON again
    again = pickle.loads(pickle.dumps(loaded))
    np.testing.assert_array_equal(again(test, again.Probs), probs)
    assert loaded.to_json() == text


def test_budget_survives_the_round_trip(tables):
    train = tables[3][0]
    model = evc(max_rules=4)(train)
    assert 0 < len(model.rule_list) <= 4
    loaded = R.load_json(model.to_json())
    assert len(loaded.rule_list) == len(model.rule_list) and loaded.size == model.size


def test_prior_model(tables):
    train, test, conn = tables[2]
    one = train[train.Y == 0]
    model = evc()(one)
    assert isinstance(model, R.PriorRuleModel)
    assert_query_gives(conn.execute(model.to_sql()).fetchall(), model, test)
    np.testing.assert_array_equal(R.load_json(model.to_json())(test, model.Probs),
                                  model(test, model.Probs))


def test_row_order_and_key(tables):
    """Without a key the rows come in the table's order; with one, sorted
    by it and with it first."""
    train, test, _ = tables[2]
    model = model_of("scoring-wvote", 2, tables)
    rows = rows_of(test[:2000], train.domain)
    ids = np.random.default_rng(0).permutation(len(rows))
    conn = sqlite3.connect(":memory:")
    create_table(conn, train.domain, [[int(i)] + r for i, r in zip(ids, rows)],
                 name="my table", key="row id")
    probs, _ = expected(model, test[:2000])
    out = np.array(conn.execute(model.to_sql("my table")).fetchall())[:, :-1].astype(float)
    np.testing.assert_allclose(out, probs, atol=1e-9)
    out = conn.execute(model.to_sql("my table", key="row id")).fetchall()
    assert [r[0] for r in out] == list(range(len(rows)))
    np.testing.assert_allclose(np.array([r[1:-1] for r in out], float),
                               probs[np.argsort(ids)], atol=1e-9)


def test_values_the_model_does_not_know_are_missing(tables):
    """A categorical value the training data did not have is unknown, as
    in Python (RuleModel.data_to_model_domain)."""
    train = tables[2][0]
    model = R.SLSEnsembleLearner(k_max=2, n_rule_sets=2, max_steps=80)(train)
    test = make_table(300, 2, 5)
    rows = rows_of(test, train.domain)
    for r in rows[::3]:
        r[3] = "never seen"
    conn = sqlite3.connect(":memory:")
    create_table(conn, train.domain, rows)
    X = test.X.copy()
    X[::3, 3] = np.nan
    assert_query_gives(conn.execute(model.to_sql()).fetchall(), model,
                       Table.from_numpy(test.domain, X, test.Y))


def test_refuses_what_it_cannot_translate(tables):
    train = tables[2][0]
    # indicator columns, which LR with rules' attribute terms read
    model = R.RuleLogisticRegressionLearner(rule_learner=evc(), n_folds=2,
                                            preprocessors=[Continuize()])(train)
    with pytest.raises(ExportError, match="Indicator"):
        model.to_sql()
    with pytest.raises(ExportError, match="Indicator"):
        model.to_json()
    from Orange.classification import CN2UnorderedLearner
    cn2 = CN2UnorderedLearner()(train)
    with pytest.raises(ExportError, match="not a model of this add-on"):
        to_sql(cn2)
    values = ("prediction", "other")
    data = Table.from_numpy(Domain(train.domain.attributes, DiscreteVariable("c", values)),
                            train.X, train.Y)
    with pytest.raises(ExportError, match="prediction="):
        evc()(data).to_sql()
    assert "AS \"guess\"" in evc()(data).to_sql(prediction="guess")


def test_refuses_other_files(tables):
    model = model_of("scoring-wvote", 2, tables)
    doc = json.loads(model.to_json())
    doc["version"] = 2
    with pytest.raises(ExportError, match="schema version 2.*version 1"):
        R.load_json(json.dumps(doc))
    with pytest.raises(ExportError, match="not a model of Orange3-Rules"):
        R.load_json(json.dumps({"rules": []}))
    with pytest.raises(ExportError, match="not JSON"):
        R.load_json("SELECT 1")
    doc["version"] = 1
    del doc["combine"]
    with pytest.raises(ExportError, match="not a valid model"):
        R.load_json(json.dumps(doc))


def test_save_model(tables, tmp_path):
    train, test, _ = tables[2]
    model = model_of("sls", 2, tables)
    save_model(model, tmp_path / "model.json")
    save_model(model, tmp_path / "model.sql")
    from orangecontrib.rules.export import load_model
    np.testing.assert_array_equal(load_model(tmp_path / "model.json")(test, model.Probs),
                                  model(test, model.Probs))
    sql = (tmp_path / "model.sql").read_text(encoding="utf-8")
    assert sql.startswith("WITH") and sql.rstrip().endswith(";")
    with pytest.raises(ExportError, match="choose one of .sql, .json"):
        save_model(model, tmp_path / "model.txt")


def test_long_models_within_sqlites_limits(tables):
    """Sums and disjunctions of thousands of terms stay within SQLite's
    1,000 nested expressions; RAND and WVOTE over 1,500 rules (RAND's
    largest draw: MAX over a VALUES list of 1,500 rows)."""
    from orangecontrib.rules.export.sql import any_of, total
    conn = sqlite3.connect(":memory:")
    terms = [f"{k}.5" for k in range(2500)]
    assert conn.execute(f"SELECT {total(terms)}").fetchone()[0] == sum(k + 0.5
                                                                       for k in range(2500))
    conds = [f"{k} = 2499" for k in range(2500)]
    assert conn.execute(f"SELECT CASE WHEN {any_of(conds)} THEN 1 ELSE 0 END").fetchone() == (1,)
    assert conn.execute(f"SELECT CASE WHEN {any_of(conds[:-1])} THEN 1 ELSE 0 END"
                        ).fetchone() == (0,)
    train, test, conn = tables[3]
    rng = np.random.default_rng(0)
    rules = [R.Rule([R.Condition(0, "<=", float(rng.normal(45, 10))),
                     R.Condition(3, "==", float(rng.integers(0, 3)))],
                    int(rng.integers(0, 3)), np.zeros(3)) for _ in range(1500)]
    from orangecontrib.rules.features import encode_table
    for strategy in ("rand", "wvote"):
        model = R.RuleSetModel(train.domain, rules, [200.0, 200.0, 200.0], strategy)
        model.original_domain = train.domain
        model.set_rule_distributions(train, encode_table(train))
        rows = test[:1000]
        assert_query_gives(conn.execute(model.to_sql() + " LIMIT 1000").fetchall(), model, rows)


def test_rand_hash_is_uniform_and_repeatable():
    """RAND's choice (the SQL-friendly hash): each firing rule is as likely
    as any other over random sets of firing rules, the choice depends on
    the set alone."""
    rng = np.random.default_rng(0)
    n_rules, size, n = 60, 3, 30_000
    sets = np.sort(np.array([rng.choice(n_rules, size, replace=False) for _ in range(n)]),
                   axis=1)
    cover = np.zeros((n, n_rules), bool)
    cover[np.arange(n)[:, None], sets] = True
    chosen = random_firing_rule(cover, 7)
    position = (sets == chosen[:, None]).argmax(axis=1)
    assert cover[np.arange(n), chosen].all()
    share = np.bincount(position, minlength=size) / n
    assert np.abs(share - 1 / size).max() < 0.015  # 5 standard deviations
    np.testing.assert_array_equal(random_firing_rule(cover[::-1], 7), chosen[::-1])
    assert not np.array_equal(random_firing_rule(cover, 8), chosen)


# ------------------------------------------------------------- PostgreSQL

def _postgres_bin():
    found = shutil.which("pg_ctl")
    if found:
        return os.path.dirname(os.path.realpath(found))
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return os.path.dirname(candidates[-1]) if candidates else None


@pytest.fixture(scope="module")
def postgres():
    """A throw-away PostgreSQL server on a Unix socket in a temporary
    directory: ``run(sql) -> rows`` (through ``psql``), or a skip that
    says why none could be started."""
    bindir, psql = _postgres_bin(), shutil.which("psql")
    if bindir is None or psql is None:
        pytest.skip("no PostgreSQL here (pg_ctl and psql not found)")
    user = []
    tmp = tempfile.mkdtemp(prefix="rules-pg-")
    if os.geteuid() == 0:  # PostgreSQL does not run as root: as its own user
        import pwd
        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(tmp)
            pytest.skip("running as root and no 'postgres' user to run PostgreSQL as")
        os.chown(tmp, pw.pw_uid, pw.pw_gid)
        user = ["runuser", "-u", "postgres", "--"]
    data = os.path.join(tmp, "data")

    def call(args, **kw):
        return subprocess.run(user + args, capture_output=True, text=True, timeout=120, **kw)

    r = call([os.path.join(bindir, "initdb"), "-D", data, "-A", "trust", "-U", "rules"])
    if r.returncode:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip(f"initdb failed: {r.stderr.strip()[:200]}")
    r = call([os.path.join(bindir, "pg_ctl"), "-D", data, "-w", "-l",
              os.path.join(tmp, "log"), "-o", f"-k {tmp} -c listen_addresses='' -p 54329",
              "start"])
    if r.returncode:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip(f"PostgreSQL did not start: {r.stderr.strip()[:200]}")

    def run(sql):
        r = subprocess.run([psql, "-h", tmp, "-p", "54329", "-U", "rules", "-d", "postgres",
                            "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1"],
                           input=sql, capture_output=True, text=True, timeout=600)
        if r.returncode:
            raise RuntimeError(r.stderr)
        return [line.split("\x1f") for line in r.stdout.splitlines() if line]
    try:
        yield run
    finally:
        call([os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "immediate", "stop"])
        shutil.rmtree(tmp, ignore_errors=True)


def _pg_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return repr(float(v))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_postgresql_gives_the_models_predictions(n_classes, tables, postgres):
    """The queries of one model of each kind (every strategy) on
    PostgreSQL: the same probabilities (1e-9) and classes."""
    train, test, _ = tables[n_classes]
    test = test[:2000]
    cols = ", ".join(f"{quote(v.name)} {'TEXT' if v.is_discrete else 'DOUBLE PRECISION'}"
                     for v in train.domain.attributes)
    values = ",\n".join("(" + ", ".join(_pg_literal(v) for v in r) + ")"
                        for r in rows_of(test, train.domain))
    postgres(f"DROP TABLE IF EXISTS data; CREATE TABLE data ({cols});\n"
             f"INSERT INTO data VALUES {values};")
    names = ([f"scoring-{s}" for s in R.STRATEGIES] + ["evc-wvote", "slipper", "lrr", "lrr-ovr",
             "sls-abstains", "roccer", "roccer-hulls", "evc-discretized", "lrr-normalized"])
    for name in names:
        model = model_of(name, n_classes, tables)
        assert_query_gives(postgres(model.to_sql() + ";"), model, test, name)
