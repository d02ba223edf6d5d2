"""Every document the project cites is in the repository: paths in the
README, in doc/ and in the code resolve, and nothing cites a ``docs/``
folder that is not part of the project."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ([ROOT / "README.md"] + sorted((ROOT / "doc").glob("*.md"))
           + sorted((ROOT / "orangecontrib" / "rules").rglob("*.py"))
           + sorted((ROOT / "orangecontrib" / "rules").rglob("*.pyx"))
           + sorted((ROOT / "benchmarks").glob("*.py")))
#: repository paths the text may name
PATH = re.compile(r"(?<![\w/.-])((?:doc|benchmarks|scripts|tests|orangecontrib)/[\w./*{}-]*[\w*}])")
LINK = re.compile(r"\]\(([^)#:]+\.(?:md|png|svg|ows))\)")


def cited(path):
    text = path.read_text(encoding="utf-8")
    for m in PATH.finditer(text):
        yield ROOT / m.group(1)
    for m in LINK.finditer(text):
        yield path.parent / m.group(1)


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


@pytest.mark.skipif(not (ROOT / "doc").is_dir(), reason="not a source tree")
def test_no_reference_to_documents_outside_the_project():
    bad = [str(src.relative_to(ROOT)) for src in SOURCES
           if re.search(r"\bdocs/|algorithms\.md|\.\./shared", src.read_text(encoding="utf-8"))]
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
