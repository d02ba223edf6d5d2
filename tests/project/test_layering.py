"""The package's import layers (doc/architecture.md, "Who may import
whom"): every module of ``orangecontrib.rules`` sits in a layer and imports
only modules of lower layers, so the compiled core imports nothing of the
package (nor Orange), the learners and ``viewer.py`` import no widget and
no Qt, and there is no import circle. Imports inside functions count as
well: a circle made lazy is still a circle."""
from __future__ import annotations

import ast
import os
import re

import pytest

PACKAGE = "orangecontrib.rules"
ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "orangecontrib", "rules")

#: lowest first; a module may import modules of lower layers only. A new
#: module joins a layer here and in doc/architecture.md.
LAYERS = (
    ("core", ["core"]),
    ("shared, alone", ["rules", "params", "parallel", "logistic"]),
    ("the feature space", ["tables", "features"]),
    ("the Orange base classes", ["base"]),
    ("shared by learners", ["ruleset", "cn2", "slipper_rounds", "evaluation", "base_rules",
                            "gradient_rules"]),
    ("learners", ["slipper", "evc", "sls", "roccer"]),
    ("learners built on a learner", ["logreg", "scoring", "export.variables"]),
    ("the exporters", ["export.sql", "export.json"]),
    ("the exporters' front", ["export"]),
    ("scripting and presentation", ["", "__main__", "viewer"]),
    ("widgets' shared parts", ["widgets", "widgets.base", "widgets.common",
                                 "widgets.ruletable", "widgets.ruleplots"]),
    ("widgets", ["widgets.owevcrules", "widgets.owroccer", "widgets.owrulelogreg",
                 "widgets.owrulescoring", "widgets.owrulesviewer", "widgets.owslipper",
                 "widgets.owslsensembles"]),
)
#: packages of data, not code
DATA = {"tutorials"}
GUI = ("AnyQt", "PyQt5", "PyQt6", "Orange.widgets", "orangewidget", "orangecanvas")


def python_modules() -> dict:
    """``{name relative to the package: path}`` of every ``.py`` file."""
    out = {}
    for folder, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, f), ROOT)[:-3].replace(os.sep, ".")
                out[rel[:-len("__init__")].rstrip(".") if rel.endswith("__init__") else rel] = \
                    os.path.join(folder, f)
    return out


MODULES = python_modules()


def imports(name) -> list[str]:
    """Every module ``name`` imports (at any depth of its code), as full
    dotted names."""
    path = MODULES[name]
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = [PACKAGE] + ([package] if package else [])
                base = ".".join(parts).split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            # ``from X import y`` imports the module X.y, or else X (for its y)
            out += [f"{target}.{a.name}" if is_module(f"{target}.{a.name}") else target
                    for a in node.names]
    return out


def is_module(full) -> bool:
    if not full.startswith(PACKAGE + "."):
        return False
    rel = full[len(PACKAGE) + 1:]
    return rel in MODULES or (rel.startswith("core.") and os.path.exists(
        os.path.join(ROOT, *rel.split(".")) + ".pyx"))


def package_imports(name) -> set[str]:
    """The package's modules ``name`` imports (relative names), itself not."""
    out = set()
    for full in imports(name):
        if full != PACKAGE and not full.startswith(PACKAGE + "."):
            continue
        rel = full[len(PACKAGE) + 1:] if full != PACKAGE else ""
        while rel not in MODULES and rel:  # a name inside a module
            rel = rel.rpartition(".")[0]
        if rel != name and not rel.startswith("core.") and not (name == "core"
                                                                 and rel == "core"):
            out.add(rel)
    return out


def layer_of(name) -> int:
    for i, (_, names) in enumerate(LAYERS):
        if name in names:
            return i
    raise AssertionError(f"orangecontrib.rules.{name} is in no layer: add it to LAYERS "
                         "in tests/project/test_layering.py and to doc/architecture.md")


def test_every_module_is_in_a_layer():
    listed = [n for _, names in LAYERS for n in names]
    assert len(listed) == len(set(listed))
    code = {n for n in MODULES if n.split(".")[0] not in DATA and not n.startswith("core")}
    assert code == set(listed) - {"core"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.split(".")[0] not in DATA))
def test_a_module_imports_lower_layers_only(name):
    mine = layer_of("core" if name.startswith("core") else name)
    for other in package_imports(name):
        theirs = layer_of(other)
        assert theirs < mine, (f"{name} ({LAYERS[mine][0]}) imports {other} "
                               f"({LAYERS[theirs][0]})")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not n.startswith("widgets")))
def test_no_widget_and_no_qt_below_the_widgets(name):
    for full in imports(name):
        assert not full.startswith(GUI), f"{name} imports {full}"


def test_the_compiled_core_imports_nothing_of_the_package_nor_orange():
    """Its Python side (``core/__init__.py``) imports its own extensions
    only; its Cython sources (import and cimport lines) nothing but their
    siblings, numpy, scipy, the C library and Cython's own."""
    assert all(full.startswith(PACKAGE + ".core") or not full.startswith(PACKAGE)
               for full in imports("core"))
    assert not any(full.startswith(("Orange", "sklearn")) for full in imports("core"))
    allowed = ("numpy", "scipy.", "libc.", "cpython", "cython", "libcpp.")
    folder = os.path.join(ROOT, "core")
    seen = 0
    for f in sorted(os.listdir(folder)):
        if not f.endswith((".pyx", ".pxd")):
            continue
        for line in open(os.path.join(folder, f), encoding="utf-8"):
            m = re.match(r"^(?:from\s+(\S+)\s+c?import\b|c?import\s+(\S+))", line)
            if m:
                module = m.group(1) or m.group(2)
                seen += 1
                assert module.startswith(".") and not module.startswith("..") or \
                    module.startswith(allowed), f"core/{f} imports {module}"
    assert seen > 10


def test_no_import_circle():
    graph = {n: package_imports(n) for n in MODULES}
    state = {}

    def visit(n, path):
        if state.get(n) == "done":
            return
        assert state.get(n) != "open", " -> ".join(path + [n])
        state[n] = "open"
        for m in graph.get(n, ()):
            visit(m, path + [n])
        state[n] = "done"
    for n in graph:
        visit(n, [])
