"""The tests keep the layout tests/README.md describes: every test file in
one layer's folder, each file name once (pytest imports test files by
name), the helpers at the top."""
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
LAYERS = ("kernels", "learners", "contract", "widgets", "project")


def test_every_test_file_is_in_a_layer_folder():
    misplaced = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                       if p.relative_to(TESTS).parts[0] not in LAYERS)
    assert not misplaced, (f"move {misplaced} into one of tests/{{{','.join(LAYERS)}}}/ "
                           "(see tests/README.md)")


def test_test_file_names_are_unique():
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []


def test_the_layers_are_those_the_readme_lists():
    readme = (TESTS / "README.md").read_text(encoding="utf-8")
    folders = sorted(p.name for p in TESTS.iterdir()
                     if p.is_dir() and not p.name.startswith((".", "_")) and p.name != "data")
    assert folders == sorted(LAYERS)
    assert all(f"`{layer}/`" in readme for layer in LAYERS)
