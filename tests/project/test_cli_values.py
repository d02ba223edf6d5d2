"""The command line's bad values (issue 67 item 6): each gets one line on
stderr and exit code 2, never a traceback; more folds than rows get a
header that says how many folds the table's rows come from."""
import pytest
from Orange.data import Table


BAD_VALUES = [["--permutations", "1"], ["--permutations", "0"], ["--permutations", "x"],
              ["--seed", "-1"], ["--seed", str(2 ** 32)], ["--seed", "1.5"],
              ["--folds", "0"], ["--folds", "1"], ["--folds", "-3"], ["--folds", "x"],
              ["--max-rules", "-1"], ["--strategies", ","], ["--strategies", "best"],
              ["--learners", ""], ["--learners", "c4.5"], ["--show-rules", "best"],
              ["--data", "housing"], ["--data", "no-such-file.tab"], ["--bogus"],
              ["--folds"]]


@pytest.mark.parametrize("argv", BAD_VALUES, ids=" ".join)
def test_every_bad_command_line_value_gets_one_line_and_code_2(argv, capsys):
    from orangecontrib.rules.__main__ import main
    assert main(["--data", "iris", "--learners", "scoring"] + argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m orangecontrib.rules: error: ")


def test_bad_command_line_values_in_a_process():
    """The same from a shell: one line on stderr, exit code 2, no traceback."""
    import subprocess
    import sys
    for argv in (["--permutations", "1"], ["--seed", "-1"], ["--folds", "1"]):
        run = subprocess.run([sys.executable, "-m", "orangecontrib.rules", "--data", "iris"]
                             + argv, capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr


def test_more_folds_than_rows_says_how_many_it_made(tmp_path, capsys):
    """``--folds 500`` on 30 rows: the header says how many folds the
    table's rows come from (10, the rows of the largest class)."""
    from orangecontrib.rules.__main__ import main
    from orangecontrib.rules.evaluation import stratified_folds
    data = Table("iris")[::5]  # 30 rows, 10 per class
    data.save(str(tmp_path / "iris30.tab"))
    assert main(["--data", str(tmp_path / "iris30.tab"), "--learners", "scoring",
                 "--strategies", "wvote", "--folds", "500"]) == 0
    out = capsys.readouterr().out
    assert len(stratified_folds(data, 500, 0)) == 10
    assert "Stratified 10-fold cross-validation (not 500" in out


