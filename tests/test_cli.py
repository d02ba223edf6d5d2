"""``python -m orangecontrib.rules``."""
import subprocess
import sys

from orangecontrib.rules.__main__ import main


def test_cli_prints_table_and_rules(capsys):
    assert main(["--data", "iris", "--folds", "3", "--strategies", "first,wvote",
                 "--permutations", "10"]) == 0
    out = capsys.readouterr().out
    assert "| learner | CA | AUC | log loss | rules |" in out
    assert "CN2 rules + FIRST" in out and "CN2 rules + WVOTE" in out
    assert "| SLIPPER |" in out and "EVC rules (WVOTE)" in out
    assert "LR with EVC rules (LRRP-EVC)" in out
    assert "THEN iris = Iris-" in out


def test_cli_reads_a_file(tmp_path, capsys):
    from Orange.data import Table
    path = tmp_path / "data.tab"
    Table("titanic")[::4].save(str(path))
    assert main(["--data", str(path), "--folds", "3", "--learners", "cn2"]) == 0
    assert "THEN survived = " in capsys.readouterr().out


def test_cli_rejects_bad_input(capsys):
    assert main(["--data", "housing"]) == 2
    assert "categorical class" in capsys.readouterr().err
    assert main(["--data", "no-such-file.tab"]) == 2
    assert main(["--strategies", "best"]) == 2
    assert main(["--learners", "c4.5"]) == 2


def test_module_help():
    out = subprocess.run([sys.executable, "-m", "orangecontrib.rules", "--help"],
                         capture_output=True, text=True, timeout=120).stdout
    assert "--data" in out and "--folds" in out
