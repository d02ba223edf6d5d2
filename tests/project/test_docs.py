"""Every document the project cites is in the repository: paths in the
README, in doc/, in the benchmarks' index and reports, in the tests, the
scripts and the code resolve (or name a file of a commit, ``COMMIT:PATH``,
that git has), nothing cites a ``docs/`` folder that is not part of the
project, and every report in benchmarks/results is in the benchmarks'
index."""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
SOURCES = ([ROOT / "README.md", ROOT / "benchmarks" / "README.md"]
           + sorted((ROOT / "doc").glob("*.md"))
           + sorted((ROOT / "orangecontrib" / "rules").rglob("*.py"))
           + sorted((ROOT / "orangecontrib" / "rules").rglob("*.pyx"))
           + sorted((ROOT / "benchmarks").glob("*.py"))
           + sorted(RESULTS.glob("*.md"))
           + sorted((ROOT / "tests").rglob("*.py"))
           + sorted((ROOT / "scripts").glob("*.*")))
#: repository paths the text may name
FOLDERS = r"(?:doc|benchmarks|scripts|tests|orangecontrib)"
PATH = re.compile(r"(?<![\w/.:-])(" + FOLDERS + r"/[\w./*{}-]*[\w*}])")
#: a file of a commit, as ``git show COMMIT:PATH`` takes it
PINNED = re.compile(r"(?<![\w/.-])([0-9a-f]{7,40}):(" + FOLDERS + r"/[\w./-]*\w)")
LINK = re.compile(r"\]\(([^)#:]+\.(?:md|png|svg|ows))\)")
#: a bare file name in backticks, as the reports name each other
BARE = re.compile(r"`([\w-]+\.(?:md|json|png))`")


def cited(path):
    text = path.read_text(encoding="utf-8")
    for m in PATH.finditer(text):
        yield ROOT / m.group(1)
    for m in LINK.finditer(text):
        yield path.parent / m.group(1)


def git_has(commit, path):
    """Whether git knows ``commit:path``; None when this is no git checkout
    with that commit (a source tarball, a shallow clone)."""
    try:
        known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT,
                               capture_output=True, timeout=60).returncode == 0
        if not known:
            return None
        return subprocess.run(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=ROOT,
                              capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return None


@pytest.mark.skipif(not (ROOT / "doc").is_dir(), reason="not a source tree")
def test_every_cited_path_resolves():
    missing = []
    for src in SOURCES:
        for target in cited(src):
            if any(ch in str(target) for ch in "*{<"):
                continue  # a pattern, not a file
            if not target.exists():
                missing.append(f"{src.relative_to(ROOT)} -> {target.relative_to(ROOT)}"
                               if target.is_relative_to(ROOT) else f"{src} -> {target}")
    assert not missing, "\n".join(missing)


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_every_pinned_path_is_in_its_commit():
    """``COMMIT:PATH`` (a report or probe since removed) names a file git
    has; commits a shallow clone lacks are skipped."""
    wrong, unknown = [], 0
    for src in SOURCES:
        for m in PINNED.finditer(src.read_text(encoding="utf-8")):
            has = git_has(*m.groups())
            if has is None:
                unknown += 1
            elif not has:
                wrong.append(f"{src.relative_to(ROOT)} -> {m.group(0)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.skipif(not RESULTS.is_dir(), reason="not a source tree")
def test_bare_report_names_exist():
    """A report named without its folder (`` `shapes.md` ``) is one of the
    current reports, or a document beside the text that names it."""
    missing = []
    for src in [ROOT / "README.md", ROOT / "benchmarks" / "README.md",
                *sorted((ROOT / "doc").glob("*.md")), *sorted(RESULTS.glob("*.md"))]:
        for m in BARE.finditer(src.read_text(encoding="utf-8")):
            name = m.group(1)
            if not any((d / name).exists() for d in (RESULTS, src.parent, ROOT, ROOT / "doc")):
                missing.append(f"{src.relative_to(ROOT)} -> {name}")
    assert not missing, "\n".join(missing)


@pytest.mark.skipif(not RESULTS.is_dir(), reason="not a source tree")
def test_every_report_is_in_the_benchmarks_index():
    """benchmarks/README.md names every file of benchmarks/results (one
    current report per script, and the data its reports need), and only
    files that are there."""
    index = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    files = {p.name for p in RESULTS.iterdir() if p.is_file()}
    unlisted = sorted(f for f in files if f"`{f}`" not in index)
    assert not unlisted, f"not in benchmarks/README.md: {unlisted}"
    named = {m for m in re.findall(r"`([\w-]+\.(?:md|json|png))`", index)} - {"README.md"}
    assert not named - files, f"benchmarks/README.md names missing reports: {sorted(named - files)}"


@pytest.mark.skipif(not (ROOT / "doc").is_dir(), reason="not a source tree")
def test_no_reference_to_documents_outside_the_project():
    bad = [str(src.relative_to(ROOT)) for src in SOURCES
           if src != Path(__file__).resolve()
           and re.search(r"\bdocs/|algorithms\.md|\.\./shared", src.read_text(encoding="utf-8"))]
    assert not bad, bad


def test_every_public_learner_documents_its_parameters():
    """numpydoc: each learner of the add-on has a Parameters section that
    names every parameter of its constructor."""
    import inspect

    from registry import REGISTRY
    for cls in (entry.cls for entry in REGISTRY.values()):
        doc = inspect.getdoc(cls)
        assert "Parameters\n----------" in doc, cls.__name__
        section = doc.split("Parameters\n----------", 1)[1]
        documented = set()
        for line in section.splitlines():
            if line and not line.startswith(" "):
                documented.update(n.strip() for n in line.split(":")[0].split(","))
        params = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
        missing = [n for n in params if n not in documented]
        assert not missing, f"{cls.__name__}: {missing}"
