"""The add-on is discoverable after installation and fails loudly without
its compiled core."""
import os
import shutil
import subprocess
import sys
import textwrap
import time
from importlib.metadata import distribution, entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_entry_points_are_registered():
    groups = {"orange.widgets": ("Rules", "orangecontrib.rules.widgets"),
              "orange3.addon": ("rules", "orangecontrib.rules"),
              "orange.canvas.help": ("html-index",
                                     "orangecontrib.rules.widgets:WIDGET_HELP_PATH")}
    for group, (name, value) in groups.items():
        eps = [ep for ep in entry_points(group=group)
               if ep.dist.name == "Orange3-Rules"]
        assert [(ep.name, ep.value) for ep in eps] == [(name, value)], group
        assert eps[0].load() is not None


def test_keywords_name_the_addon():
    meta = distribution("Orange3-Rules").metadata
    assert "orange3 add-on" in meta["Keywords"]


def test_canvas_discovers_category_and_widgets(tmp_path):
    # In a fresh interpreter, as the canvas does it: the registry's Qt
    # objects, created here before any QApplication, were later collected
    # inside the widget tests and crashed the interpreter (1 run in 8).
    code = textwrap.dedent("""
        from orangecanvas.registry import WidgetRegistry
        from Orange.canvas.config import Config
        reg = WidgetRegistry()
        Config.widget_discovery(reg).run(Config.widgets_entry_points())
        cats = [c for c in reg.categories() if c.project_name == "Orange3-Rules"]
        widgets = [w for w in reg.widgets() if w.project_name == "Orange3-Rules"]
        print("CATEGORIES", sorted(c.name for c in cats))
        print("WIDGETS", sorted(w.name for w in widgets))
        print("IN RULES", all(w.category == "Rules" for w in widgets))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path).stdout  # the installed package
    assert "CATEGORIES ['Rules']" in out, out
    widgets = ("WIDGETS ['EVC Rules', 'Logistic Regression with Rules', 'ROCCER', "
               "'Rule Scoring', 'Rule Viewer', 'SLIPPER', 'SLS Ensembles']")
    assert widgets in out, out
    assert "IN RULES True" in out, out


WIDGET_MODULES = ["owrulescoring", "owslipper", "owevcrules", "owrulelogreg",
                  "owslsensembles", "owroccer", "owrulesviewer"]


def widget_classes():
    import importlib
    from orangewidget.widget import OWBaseWidget
    for name in WIDGET_MODULES:
        module = importlib.import_module(f"orangecontrib.rules.widgets.{name}")
        yield next(v for v in vars(module).values()
                   if isinstance(v, type) and issubclass(v, OWBaseWidget)
                   and v.__module__ == module.__name__)


def test_help_pages_cover_every_widget_and_their_images_exist():
    import os
    import re
    from orangecontrib.rules.widgets import WIDGET_HELP_PATH
    index = WIDGET_HELP_PATH[0][0]
    help_dir = os.path.dirname(index)
    text = open(index, encoding="utf-8").read()
    assert 'id="widgets"' in text
    links = dict((name, href) for href, name in
                 re.findall(r'<a href="([^"]+)">([^<]+)</a>', text))
    for cls in widget_classes():
        assert cls.name in links, cls.name  # the canvas finds help by name
        page = os.path.join(help_dir, links[cls.name])
        assert os.path.exists(page), page
        assert "<img" in open(page, encoding="utf-8").read(), page
    for page in os.listdir(help_dir):
        if page.endswith(".html"):
            html = open(os.path.join(help_dir, page), encoding="utf-8").read()
            for src in re.findall(r'<img src="([^"]+)"', html):
                assert os.path.exists(os.path.join(help_dir, src)), (page, src)


def test_icons_and_keywords():
    import os
    import orangecontrib.rules.widgets as w
    base = os.path.dirname(w.__file__)
    assert os.path.exists(os.path.join(base, w.ICON))
    for cls in widget_classes():
        assert os.path.exists(os.path.join(base, cls.icon)), cls.name
        assert cls.keywords and cls.description, cls.name


def test_tutorials_entry_point():
    eps = [ep for ep in entry_points(group="orange.widgets.tutorials")
           if ep.dist.name == "Orange3-Rules"]
    assert [(ep.name, ep.value) for ep in eps] == [("rules", "orangecontrib.rules.tutorials")]


def test_import_fails_clearly_without_compiled_core():
    code = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "orangecontrib.rules.core._coverage":
                    raise ImportError("simulated: extension not built")
        sys.meta_path.insert(0, Block())
        try:
            import orangecontrib.rules
        except ImportError as e:
            print("IMPORT ERROR:", e)
        else:
            print("IMPORTED")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=120).stdout
    assert "IMPORT ERROR" in out and "compiled core" in out and "pip install" in out


def test_names_fit_the_toolbox_and_icons_differ():
    """The canvas's toolbox shows a widget's (short) name on at most two
    lines under its icon: every name splits into two lines of at most 13
    characters (Orange's own "Logistic Regression" needs 10); no two
    widgets share an icon."""
    import os
    import orangecontrib.rules.widgets as w
    icons, classes = set(), list(widget_classes())
    for cls in classes:
        words = (cls.short_name or cls.name).split()
        best = min(max(len(" ".join(words[:i])), len(" ".join(words[i:])))
                   for i in range(1, len(words) + 1))
        assert best <= 13, cls.name
        with open(os.path.join(os.path.dirname(w.__file__), cls.icon), "rb") as f:
            icons.add(f.read())
    assert len(icons) == len(classes)


def test_no_import_circle_among_the_packages_modules():
    """Every relative import of orangecontrib.rules' modules, at the top or
    inside a function, leaves no module that imports itself through others
    (base.py imports no learner; the learners import base, features, rules,
    ruleset; features.py only rules.py, rules.py none)."""
    import ast
    import os

    import orangecontrib.rules as R
    pkg = os.path.dirname(R.__file__)
    mods = {f[:-3] for f in os.listdir(pkg) if f.endswith(".py")}
    graph = {}
    for m in mods:
        with open(os.path.join(pkg, m + ".py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps.update([node.module.split(".")[0]] if node.module
                            else [a.name for a in node.names])
        graph[m] = deps & mods
    for start in mods:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()]:
                assert nxt != start, f"{start} imports itself through {sorted(seen)}"
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    assert not graph["base"] - {"features", "parallel", "rules", "tables"}, graph["base"]
    # rules as data, the feature space and the table checks sit below every learner
    assert not graph["rules"], graph["rules"]
    assert not graph["features"] - {"rules"}, graph["features"]
    assert not graph["tables"] - {"rules"}, graph["tables"]


COMPILERS = ("gcc", "cc", "clang", "c++", "g++", "clang++", "cl", "x86_64-linux-gnu-gcc")


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / "setup.py").exists(), reason="not a source tree")
def test_wheel_installs_and_runs_without_a_compiler(tmp_path):
    """What a user without a C compiler gets from a wheel (doc/install.md):
    the wheel built from this source installs into a fresh virtual
    environment whose PATH has no compiler and whose CC names none, the
    widgets import, and the CLI demo runs on data shipped with Orange. The
    new environment sees the add-on's dependencies (Orange, numpy, ...) of
    this one through a .pth line, the add-on itself only from the wheel."""
    import sysconfig
    import venv

    src = tmp_path / "src"  # a copy of the tracked files: no build/ in the checkout
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        skip = ("benchmarks/results/", "doc/screenshots/")  # not part of a build
        if (ROOT / name).is_file() and not name.startswith(skip):
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    # The checkout's compiled kernels (an editable install builds them in
    # place), if newer than every source of the core, go where setuptools
    # looks for its own, dated after their sources, so the build packages
    # them instead of compiling the core again (two CPU minutes).
    core = ROOT / "orangecontrib" / "rules" / "core"
    compiled = sorted(core.glob(f"_*{sysconfig.get_config_var('EXT_SUFFIX')}"))
    newest_source = max(p.stat().st_mtime for p in core.iterdir()
                        if p.suffix in (".pyx", ".pxd", ".h"))
    if len(compiled) == 6 and min(p.stat().st_mtime for p in compiled) > newest_source:
        plat = f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}"
        build_lib = src / "build" / plat / "orangecontrib" / "rules" / "core"
        build_lib.mkdir(parents=True)
        now = time.time()
        for so in compiled:
            for where in (src / "orangecontrib" / "rules" / "core", build_lib):
                c = shutil.copy(so.with_name(so.name.split(".")[0] + ".c"), where)
                os.utime(c, (now, now))
                os.utime(shutil.copy(so, where), (now + 5, now + 5))
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(dist), str(src)], check=True, timeout=1200)
    wheel, = dist.glob("orange3_rules-*.whl")

    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    bindir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    python = bindir / ("python.exe" if sys.platform == "win32" else "python")
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = subprocess.run([str(python), "-c", purelib], capture_output=True, text=True,
                          check=True).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, timeout=600)

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CC", "CXX", "LDSHARED")}
    env.update(PATH=str(bindir), CC="no-such-compiler", CXX="no-such-compiler",
               QT_QPA_PLATFORM="offscreen")
    assert not any(shutil.which(c, path=env["PATH"]) for c in COMPILERS)
    code = textwrap.dedent("""
        import orangecontrib.rules, orangecontrib.rules.core._sls as sls
        import orangecontrib.rules.widgets as w
        from orangecontrib.rules.widgets import (owevcrules, owroccer, owrulelogreg, owrulescoring,
                                                 owrulesviewer, owslipper, owslsensembles)
        print("FROM", orangecontrib.rules.__file__)
        print("WIDGETS", len(w.WIDGET_HELP_PATH))
    """)
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"FROM {site}" in out.stdout, out.stdout  # the wheel's copy, not the checkout
    demo = subprocess.run([str(python), "-m", "orangecontrib.rules", "--learners",
                           "scoring,slipper", "--folds", "3"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600)
    assert demo.returncode == 0, demo.stderr
    assert "heart_disease" in demo.stdout and "IF " in demo.stdout, demo.stdout
