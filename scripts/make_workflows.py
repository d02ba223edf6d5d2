"""Writes the example workflows in ``orangecontrib/rules/tutorials`` (run by
hand after changing a widget's inputs or outputs; the files are committed).

    python scripts/make_workflows.py
"""
import logging
import os
import sys

from Orange.canvas.config import Config
from Orange.widgets.utils.filedialogs import RecentPath
from orangecanvas.registry import WidgetRegistry
from orangecanvas.scheme import Scheme, SchemeLink, SchemeNode, SchemeTextAnnotation
from orangecanvas.scheme.readwrite import scheme_to_ows_stream

OUT = os.path.join(os.path.dirname(__file__), "..", "orangecontrib", "rules", "tutorials")


def registry():
    reg = WidgetRegistry()
    Config.widget_discovery(reg).run(Config.widgets_entry_points())
    return reg


class Builder:
    def __init__(self, reg, title, description):
        self.reg = reg
        self.scheme = Scheme(title=title, description=description)

    def node(self, qualified_name, position, title=None, **properties):
        desc = self.reg.widget(qualified_name)
        node = SchemeNode(desc, title=title or desc.name, position=position,
                          properties=properties or None)
        self.scheme.add_node(node)
        return node

    def link(self, source, output, sink, input_):
        self.scheme.add_link(SchemeLink(source, source.output_channel(output),
                                        sink, sink.input_channel(input_)))

    def note(self, rect, text):
        self.scheme.add_annotation(SchemeTextAnnotation(rect, text))

    def save(self, name):
        with open(os.path.join(OUT, name), "wb") as f:
            scheme_to_ows_stream(self.scheme, f, pretty=True, pickle_fallback=True)


def file_node(b, dataset, position):
    path = RecentPath(abspath=dataset + ".tab", prefix="sample-datasets",
                      relpath=dataset + ".tab", title="")
    return b.node("Orange.widgets.data.owfile.OWFile", position,
                  recent_paths=[path], source=0)


LEARNERS = [  # (module.class, title)
    ("orangecontrib.rules.widgets.owslipper.OWSlipper", "SLIPPER"),
    ("orangecontrib.rules.widgets.owevcrules.OWEVCRules", "EVC Rules"),
    ("orangecontrib.rules.widgets.owrulelogreg.OWRuleLogisticRegression",
     "LR with Rules"),  # the widget's short name: the full one overlaps its links
    ("orangecontrib.rules.widgets.owslsensembles.OWSLSEnsembles", "SLS Ensembles"),
    ("orangecontrib.rules.widgets.owroccer.OWROCCER", "ROCCER"),
]


def compare_learners(reg):
    b = Builder(reg, "Rule learners compared by ROC",
                "heart_disease goes to the five rule learners of the Rules "
                "add-on; Test & Score cross-validates them (5 folds) and ROC "
                "Analysis draws their ROC curves. Open a learner to change "
                "its settings; the evaluation updates.")
    # File above Test & Score: its Data link crosses no learner
    data = file_node(b, "heart_disease", (500, 60))
    ts = b.node("Orange.widgets.evaluate.owtestandscore.OWTestAndScore", (500, 250))
    roc = b.node("Orange.widgets.evaluate.owrocanalysis.OWROCAnalysis", (700, 250))
    b.link(data, "Data", ts, "Data")
    for i, (name, title) in enumerate(LEARNERS):
        node = b.node(name, (290, 60 + 95 * i), title=title)
        b.link(node, "Learner", ts, "Learner")
    b.link(ts, "Evaluation Results", roc, "Evaluation Results")
    b.note((570, 20, 220, 80), "heart_disease ships with Orange. Replace it "
                              "with your own data in the File widget.")
    b.note((620, 330, 260, 80), "Test & Score's table has each learner's AUC; "
                                "ROC Analysis shows the curves per target class.")
    b.save("rules-roc-comparison.ows")


def inspect_rules(reg):
    b = Builder(reg, "Reading rules",
                "SLIPPER and EVC Rules learn from heart_disease; the Rule "
                "Viewer lists each model's rules with its own numbers "
                "(confidence, corrected quality) and a plot. Select rules to "
                "see the patients they cover in the Data Table.")
    data = file_node(b, "heart_disease", (80, 200))
    slipper = b.node(LEARNERS[0][0], (280, 110), title="SLIPPER")
    evc = b.node(LEARNERS[1][0], (280, 300), title="EVC Rules")
    v1 = b.node("orangecontrib.rules.widgets.owrulesviewer.OWRulesViewer",
                (480, 110), title="Rule Viewer (SLIPPER)")
    v2 = b.node("orangecontrib.rules.widgets.owrulesviewer.OWRulesViewer",
                (480, 300), title="Rule Viewer (EVC)")
    t1 = b.node("Orange.widgets.data.owtable.OWTable", (680, 110),
                title="Covered by SLIPPER rules")
    t2 = b.node("Orange.widgets.data.owtable.OWTable", (680, 300),
                title="Covered by EVC rules")
    # the viewers show the rules on the models' training data (no Data
    # link of their own, which would cross the learners and their titles)
    for learner, view, table in ((slipper, v1, t1), (evc, v2, t2)):
        b.link(data, "Data", learner, "Data")
        b.link(learner, "Model", view, "Model")
        b.link(view, "Selected Data", table, "Data")
    b.note((420, 380, 300, 70), "In the EVC viewer, points below the diagonal "
                                "are rules whose accuracy the search overrated.")
    b.save("rules-viewer.ows")


def plots(reg):
    b = Builder(reg, "ROC hulls, abstention and rule scoring",
                "ROCCER, SLS Ensembles and Rule Scoring learn from heart_disease "
                "and each model goes to a Rule Viewer: ROCCER's per-class ROC "
                "convex hull with the selected rules, the SLS ensemble's "
                "abstention curve with its PAC-Bayes bound, and the rules "
                "Rule Scoring resolves with Fawcett's strategies.")
    data = file_node(b, "heart_disease", (80, 200))
    rows = [("orangecontrib.rules.widgets.owroccer.OWROCCER", "ROCCER", 80),
            ("orangecontrib.rules.widgets.owslsensembles.OWSLSEnsembles",
             "SLS Ensembles", 200),
            ("orangecontrib.rules.widgets.owrulescoring.OWRuleScoring",
             "Rule Scoring", 320)]
    for name, title, y in rows:
        learner = b.node(name, (280, y), title=title)
        # the SLS ensemble listed as it is: rule set by rule set
        grouped = {"group_sets": True} if title == "SLS Ensembles" else {}
        view = b.node("orangecontrib.rules.widgets.owrulesviewer.OWRulesViewer",
                      (480, y), title=f"Rule Viewer ({title})", **grouped)
        b.link(data, "Data", learner, "Data")
        b.link(learner, "Model", view, "Model")  # shown on the training data
    b.note((560, 160, 260, 90), "Set a margin threshold θ in SLS Ensembles to "
                                "let the model abstain; the viewer's curve shows "
                                "what that costs and gains.")
    b.save("rules-plots.ows")


def main():
    # RecentPath is not a literal: the canvas logs a traceback, then pickles
    logging.getLogger("orangecanvas.scheme.readwrite").setLevel(logging.CRITICAL)
    reg = registry()
    compare_learners(reg)
    inspect_rules(reg)
    plots(reg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
