"""Every code block of the README and of doc/*.md runs as it is written.

A ```python block runs in a fresh interpreter, as a script (so a block with
``if __name__ == "__main__":`` runs its main part), in an empty folder. A
block whose first line is ``# continues the block above`` runs after the
Python block before it in the same file (and what that one continues). Shell
commands, output and diagrams are tagged as such (```sh, ```text); every
block has a tag, so an untagged Python block cannot slip through."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "doc").glob("*.md"))]
CONTINUES = "# continues the block above"
#: tags of blocks that are not Python
OTHER = {"sh", "text", "json"}  # json: a file's contents, shown, not run
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<tag>\S*)[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.M | re.S)


def blocks(path):
    """(line, tag, code) of each fenced block, the code dedented."""
    text = path.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        code = "".join(line[indent:] if line[:indent].isspace() else line
                       for line in m.group("body").splitlines(keepends=True))
        yield text.count("\n", 0, m.start()) + 1, m.group("tag"), code


def python_blocks():
    for path in DOCS:
        if not path.exists():
            continue
        before = ""
        for line, tag, code in blocks(path):
            if tag != "python":
                continue
            script = (before + "\n" + code) if code.startswith(CONTINUES) else code
            before = script
            yield pytest.param(script, id=f"{path.relative_to(ROOT)}:{line}")


@pytest.mark.skipif(not (ROOT / "doc").is_dir(), reason="not a source tree")
def test_every_block_says_what_it_is():
    untagged = [f"{path.relative_to(ROOT)}:{line} ```{tag}"
                for path in DOCS for line, tag, _ in blocks(path)
                if tag not in OTHER | {"python"}]
    assert not untagged, "tag these blocks python, sh, text or json:\n" + "\n".join(untagged)


@pytest.mark.slow
@pytest.mark.parametrize("script", python_blocks())
def test_python_block_runs(script, tmp_path):
    if "dask" in script:
        pytest.importorskip("distributed")
    (tmp_path / "block.py").write_text(script, encoding="utf-8")
    run = subprocess.run([sys.executable, "block.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
