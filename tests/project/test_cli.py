"""``python -m orangecontrib.rules``."""
import subprocess
import sys

from orangecontrib.rules.__main__ import main


def test_cli_prints_table_and_rules(capsys):
    assert main(["--data", "iris", "--folds", "3", "--strategies", "first,wvote",
                 "--permutations", "10"]) == 0
    out = capsys.readouterr().out
    # LR with rules' attribute weights beside the rules
    assert "| learner | CA | AUC | log loss | rules | attribute weights |" in out
    lr = next(line for line in out.splitlines() if line.startswith("| LR with EVC rules"))
    assert float(lr.split("|")[-2]) > 0  # its mean attribute weights
    assert "Rules + FIRST" in out and "Rules + WVOTE" in out
    assert "| SLIPPER |" in out and "EVC rules (WVOTE)" in out
    assert "LR with EVC rules (LRRP-EVC)" in out
    assert "THEN iris = Iris-" in out


def test_cli_reads_a_file(tmp_path, capsys):
    from Orange.data import Table
    path = tmp_path / "data.tab"
    Table("titanic")[::4].save(str(path))
    assert main(["--data", str(path), "--folds", "3", "--learners", "scoring,cn2"]) == 0
    out = capsys.readouterr().out
    assert "THEN survived = " in out and "CN2 rules + WVOTE" in out


def test_cli_rejects_bad_input(capsys):
    assert main(["--data", "housing"]) == 2
    assert "categorical class" in capsys.readouterr().err
    assert main(["--data", "no-such-file.tab"]) == 2
    assert main(["--strategies", "best"]) == 2
    assert main(["--learners", "c4.5"]) == 2


def test_module_help(tmp_path):
    # from another folder, so that the installed package runs, not a source
    # tree in the working directory (as when testing an unpacked sdist)
    out = subprocess.run([sys.executable, "-m", "orangecontrib.rules", "--help"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path).stdout
    assert "--data" in out and "--folds" in out


def test_cli_prints_the_rules_of_the_learners_named_only(capsys):
    assert main(["--data", "titanic", "--folds", "2", "--learners", "slipper,roccer",
                 "--max-rules", "3"]) == 0
    out = capsys.readouterr().out
    assert "## SLIPPER" in out and "## ROCCER" in out and "## Rules" not in out
    assert "the first 3 shown" in out or "SLIPPER (q = confidence C): 3 rules" in out
    assert "[a/b/...] after a rule: the weighted training rows it covers of each " \
           "class (no, yes); ROCCER's: the rows it decides" in out
