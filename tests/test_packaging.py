"""The add-on is discoverable after installation and fails loudly without
its compiled core."""
import subprocess
import sys
import textwrap
from importlib.metadata import distribution, entry_points


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


def test_canvas_discovers_category_and_widgets():
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
                         text=True, timeout=300).stdout
    assert "CATEGORIES ['Rules']" in out, out
    assert "WIDGETS ['EVC Rules', 'Logistic Regression with Rules', 'ROCCER', 'Rule Scoring', 'Rule Viewer', 'SLIPPER', 'SLS Ensembles']" in out, out
    assert "IN RULES True" in out, out


def test_help_index_lists_every_widget():
    import os
    from orangecontrib.rules.widgets import WIDGET_HELP_PATH
    index = WIDGET_HELP_PATH[0][0]
    text = open(index, encoding="utf-8").read()
    assert 'id="widgets"' in text and ">Rule Scoring<" in text
    page = os.path.join(os.path.dirname(index), "rule-scoring.html")
    assert os.path.exists(page)


def test_icons_are_installed():
    import os
    import orangecontrib.rules.widgets as w
    from orangecontrib.rules.widgets.owrulescoring import OWRuleScoring
    base = os.path.dirname(w.__file__)
    assert os.path.exists(os.path.join(base, w.ICON))
    assert os.path.exists(os.path.join(base, OWRuleScoring.icon))


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
