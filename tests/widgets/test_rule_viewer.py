"""The Rule Viewer widget on every model type, headless."""
import re

import numpy as np
import Orange.widgets.tests.base as owtest  # module import: see add-on guide 5.2
from AnyQt.QtCore import Qt
from AnyQt.QtGui import QKeySequence
from Orange.classification import CN2Learner
from Orange.classification.rules import _RuleClassifier
from Orange.data import Table

from orangecontrib.rules import viewer
from orangecontrib.rules.widgets.owrulesviewer import OWRulesViewer
from orangecontrib.rules.widgets.ruletable import RULE_ROLE, SORT_ROLE
from registry import KINDS, make

_MODELS = {}


def fitted(kind, data_name="heart_disease"):
    """Models of the registry's learners (and Orange's CN2) are fitted once
    per test session (and given ``instances`` as the learner widgets do)."""
    key = (kind, data_name)
    if key not in _MODELS:
        data = Table(data_name)
        learner = CN2Learner() if kind == "cn2" else make(kind)
        model = learner(data)
        model.instances = data
        _MODELS[key] = model
    return _MODELS[key]


def cn2_cover(model, data):
    """Orange's CN2 by its own rules: the rows each rule fires on; for the
    ordered (decision list) model, the rows it decides (the first to fire)."""
    from Orange.classification.rules import CN2Classifier
    X = model.data_to_model_domain(data).X
    fire = np.column_stack([r.evaluate_data(X) for r in model.rule_list]).astype(bool)
    if not isinstance(model, CN2Classifier):
        return fire
    decided = np.zeros_like(fire)
    for i, row in enumerate(fire):
        if row.any():
            decided[i, np.argmax(row)] = True
    return decided


def non_white_share(widget) -> float:
    """Share of a rendered widget's pixels that are not background white."""
    image = widget.grab().toImage()
    w, h = image.width(), image.height()
    step = 3
    pixels = [image.pixelColor(x, y) for x in range(0, w, step) for y in range(0, h, step)]
    dark = sum(1 for c in pixels if c.red() + c.green() + c.blue() < 600)
    return dark / len(pixels)


def assert_left_panel_whole(test, w):
    """Every visible label, box and control of the viewer's left panel lies
    inside the panel's visible width (Orange's scroll area does not scroll
    sideways: what lies outside is cut off)."""
    from AnyQt.QtCore import QPoint
    from AnyQt.QtWidgets import QLabel, QScrollArea
    area = w.controlArea.parentWidget()
    while not isinstance(area, QScrollArea):
        area = area.parentWidget()
    viewport = area.viewport()
    labels = [c for c in w.controlArea.findChildren(QLabel) if c.isVisible() and c.text()]
    test.assertIn(w.info_label, labels)
    for child in labels + [w.why_box, w.save_button]:
        if not child.isVisible():
            continue
        right = child.mapTo(viewport, QPoint(child.width(), 0)).x()
        test.assertLessEqual(right, viewport.width(),
                             f"{child.objectName() or type(child).__name__} "
                             f"{child.text()[:40] if isinstance(child, QLabel) else ''!r} "
                             f"is cut off: its right edge at {right}, the panel "
                             f"{viewport.width()} wide")


class TestOWRulesViewer(owtest.WidgetTest):
    def setUp(self):
        self.widget = self.create_widget(OWRulesViewer)
        self.heart = Table("heart_disease")

    def show(self, model, data=None):
        self.send_signal(self.widget.Inputs.model, model)
        if data is not None:
            self.send_signal(self.widget.Inputs.data, data)

    def expected_rows(self, model, data, rules):
        if kind_of(model) == "cn2":
            cover = cn2_cover(model, data)[:, rules]
        else:
            cover = model.counted_cover(data)[:, rules]
        return np.flatnonzero(cover.any(axis=1))

    def test_every_model_shows_its_rules_and_selection_outputs_covered_rows(self):
        for kind in (*KINDS, "cn2"):
            with self.subTest(kind):
                model = fitted(kind)
                self.show(model, self.heart)
                w = self.widget
                self.assertFalse(w.Error.not_rules.is_shown())
                used = np.flatnonzero(viewer.listed_mask(model))  # LR: weight 0 hidden
                self.assertEqual(w.rule_model.rowCount(), len(used))
                self.assertIn(str(len(model.rule_list)), w.info_label.text())
                rules = [used[0], used[-1]]
                w.select_rules(rules)
                self.assertEqual(w.selected_rules(), sorted(set(rules)))
                out = self.get_output(w.Outputs.selected_data)
                expected = self.expected_rows(model, self.heart, rules)
                self.assertGreater(len(expected), 0)
                np.testing.assert_array_equal(out.ids, self.heart.ids[expected])
                annotated = self.get_output(w.Outputs.annotated_data)
                self.assertEqual(len(annotated), len(self.heart))
                selected = annotated.get_column("Selected")
                np.testing.assert_array_equal(np.flatnonzero(selected), expected)
                self.send_signal(w.Inputs.data, None)

    def test_model_specific_columns(self):
        headers = {
            "slipper": ["Confidence"], "evc": ["EVC quality", "Raw frequency", "Vote"],
            "lrr": ["Weight", "EVC quality"],
            "sls": ["Ensemble weight", "Rule sets", "Heaviest set", "Set weight"],
            "roccer": ["Likelihood ratio", "Position", "FPR", "TPR"],
            "scoring": ["Confidence"], "cn2": ["Probability", "CN2 quality"]}
        for kind, names in headers.items():
            with self.subTest(kind):
                model = fitted(kind)
                self.show(model)
                m = self.widget.rule_model
                got = [m.headerData(c, Qt.Horizontal) for c in range(m.columnCount())]
                self.assertEqual(got[5:], names)
        # the numbers are the model's own: SLIPPER's confidences, in order
        model = fitted("slipper")
        self.show(model)
        col = 5
        listed = self.widget.listed_rules()  # the default rules are summed apart
        shown = [float(self.widget.rule_model.index(r, col).data(Qt.UserRole + 1))
                 for r in range(len(listed))]
        np.testing.assert_allclose(shown, [model.rule_list[k].quality for k in listed])
        # ROCCER's ROC points come from the class lists
        model = fitted("roccer")
        self.show(model)
        fpr = [float(self.widget.rule_model.index(r, 7).data(Qt.UserRole + 1))
               for r in range(len(model.rule_list))]
        np.testing.assert_allclose(fpr, [r.extra["roc_point"][0] for r in model.rule_list])

    def test_sls_rules_name_their_heaviest_rule_set(self):
        model = fitted("sls")
        cols = {c.name: c.values for c in model.viewer_columns()}
        for k in range(len(model.rule_list)):
            sets = [(q, e) for e, (ens, cols_e) in enumerate(zip(model.ensembles,
                                                                 model._columns))
                    for q, idx in zip(ens.weights, cols_e) if k in set(np.asarray(idx))]
            self.assertEqual(cols["Rule sets"][k], len(sets))
            q, e = max(sets)
            self.assertAlmostEqual(cols["Set weight"][k], q)
            rank = 1 + sum(w > q for w in model.ensembles[e].weights)
            self.assertEqual(cols["Heaviest set"][k], rank)
            self.assertAlmostEqual(cols["Ensemble weight"][k], sum(w for w, _ in sets))

    def test_sls_rules_grouped_by_rule_set(self):
        """'Group rules by rule set': every rule set's rules together, the
        heaviest set first in each class, with the set's number and weight
        (and the rule's ensemble weight, the model's other columns left out);
        a rule in several sets is listed in each, and selecting it selects
        it once (outputs, copy)."""
        model = fitted("sls")
        self.show(model, self.heart)
        w, rm = self.widget, self.widget.rule_model
        self.assertTrue(w.group_check.isEnabled())
        self.assertEqual(rm.rowCount(), len(model.rule_list))
        w.controls.group_sets.setChecked(True)
        sizes = [len(idx) for cols in model._columns for idx in cols]
        self.assertEqual(rm.rowCount(), sum(sizes))
        headers = [rm.headerData(c, Qt.Horizontal) for c in range(rm.columnCount())]
        number = headers.index("Rule set")
        weight = headers.index("Set weight")
        self.assertEqual(headers[len(headers) - 3:], ["Rule set", "Set weight",
                                                      "Ensemble weight"])
        rows = [(float(rm.index(r, number).data(Qt.UserRole + 1)),
                 float(rm.index(r, weight).data(Qt.UserRole + 1)),
                 int(rm.index(r, 0).data(Qt.UserRole + 2)))
                for r in range(rm.rowCount())]
        k = 0
        for ens, cols in zip(model.ensembles, model._columns):
            q = np.asarray(ens.weights)
            for rank, s in enumerate(np.argsort(-q, kind="stable"), start=1):
                for rule in cols[s]:
                    self.assertEqual(rows[k], (rank, q[s], int(rule)))
                    k += 1
        # a rule listed in several sets: selected once
        counts = np.bincount([r for _, _, r in rows])
        twice = int(np.argmax(counts))
        self.assertGreater(counts[twice], 1)
        w.select_rules([twice])
        self.assertEqual(len(w._selected_view_rows()), counts[twice])
        self.assertEqual(w.selected_rules(), [twice])
        self.assertEqual(len(w.selected_rules_text().splitlines()), 1)
        out = self.get_output(w.Outputs.selected_data)
        np.testing.assert_array_equal(
            out.ids, self.heart.ids[self.expected_rows(model, self.heart, [twice])])
        w.controls.group_sets.setChecked(False)
        self.assertEqual(rm.rowCount(), len(model.rule_list))
        self.show(fitted("evc"))
        self.assertFalse(w.group_check.isEnabled())

    def test_distribution_is_on_the_data_shown(self):
        """ROCCER's rules counted on the rows they decide in their class's
        list (each list a decision list: a row is decided by one rule of a
        list at most), on the data shown."""
        model = fitted("roccer")
        self.show(model, self.heart[:100])
        cover = model.counted_cover(self.heart[:100])
        self.assertTrue((cover <= model.covering(self.heart[:100])).all())
        for cl in model.class_lists:
            cols = np.concatenate(cl.columns)
            self.assertLessEqual(cover[:, cols].sum(axis=1).max(), 1)
        covered = [int(self.widget.rule_model.index(r, 4).data(Qt.UserRole + 1))
                   for r in range(len(model.rule_list))]
        np.testing.assert_array_equal(covered, cover.sum(axis=0))

    def test_roccer_counts_on_empty_one_row_and_class_less_data(self):
        """ROCCER's rules counted on the rows they decide also on empty,
        one-row and class-less data: every rule listed, the Covered column
        and the rows selecting a rule those of ``counted_cover`` (no rows:
        the training rows each decides, ``rule_counts``)."""
        from Orange.data import Domain
        model = fitted("roccer")
        w, m = self.widget, self.widget.rule_model
        cases = {"empty": self.heart[:0], "one row": self.heart[:1],
                 "no class": self.heart.transform(Domain(self.heart.domain.attributes))}
        for name, shown in cases.items():
            with self.subTest(data=name):
                self.show(model, shown)
                self.assertEqual(m.rowCount(), len(model.rule_list))
                cover = model.counted_cover(shown)
                self.assertEqual(cover.shape, (len(shown), len(model.rule_list)))
                covered = [int(m.index(r, 4).data(Qt.UserRole + 1)) for r in range(m.rowCount())]
                rules = [int(m.index(r, 0).data(RULE_ROLE)) for r in range(m.rowCount())]
                # no rows, no counts: the table shows the training rows each rule decides
                want = (model.rule_counts().sum(axis=1) if not len(shown)
                        else cover.sum(axis=0))
                np.testing.assert_array_equal(covered, want[rules])
                w.select_rules([rules[0]])
                selected = self.get_output(w.Outputs.selected_data)
                self.assertEqual(0 if selected is None else len(selected),
                                 int(cover[:, rules[0]].sum()))

    def test_sorting_keeps_selection_on_the_right_rules(self):
        model = fitted("slipper")
        self.show(model, self.heart)
        w = self.widget
        w.view.sortByColumn(5, Qt.AscendingOrder)
        first = int(w.rule_model.data(w.rule_model.index(0, 0), Qt.UserRole + 2))
        listed = w.listed_rules()
        self.assertEqual(first, listed[int(np.argmin([model.rule_list[k].quality
                                                      for k in listed]))])
        w.view.selectRow(0)
        self.assertEqual(w.selected_rules(), [first])
        out = self.get_output(w.Outputs.selected_data)
        np.testing.assert_array_equal(
            out.ids, self.heart.ids[self.expected_rows(model, self.heart, [first])])

    def test_compact_and_full_conditions(self):
        model = fitted("roccer")
        self.show(model)
        w = self.widget
        long_rule = max(range(len(model.rule_list)),
                        key=lambda k: len(model.rule_list[k].conditions))
        self.assertGreater(len(model.rule_list[long_rule].conditions), 1)
        row = int(w.rule_model.view_rows([long_rule])[0])
        w.compact_check.setChecked(True)
        self.process_events()
        self.assertNotIn("\n", w.rule_model.index(row, 1).data())
        height = w.view.rowHeight(row)
        w.compact_check.setChecked(False)
        self.process_events()
        self.assertIn("\nAND ", w.rule_model.index(row, 1).data())
        # the row is as high as its lines
        self.assertGreater(w.view.rowHeight(row), height)

    def test_full_conditions_by_default_and_row_heights_follow_a_sort(self):
        """As in Orange's CN2 Rule Viewer, conditions are shown in full, one
        per line, unless "Conditions run on" is checked; after a sort or a
        filter every row is still as high as its own rule's wrapped lines."""
        self.assertFalse(OWRulesViewer.compact_view.default)
        model = fitted("sls")  # rules of one condition and of several
        self.show(model, self.heart)
        w = self.widget
        w.resize(1150, 700)
        w.show()
        self.process_events()
        assert_every_condition_shown(self, w, model)
        heights = [w.view.rowHeight(r) for r in range(w.rule_model.rowCount())]
        self.assertGreater(max(heights), min(heights))  # short rows move where tall ones were
        w.view.sortByColumn(3, Qt.DescendingOrder)
        assert_every_condition_shown(self, w, model)
        w.filter_edit.setText("gender")
        assert_every_condition_shown(self, w, model)
        w.filter_edit.setText("")
        w.view.sortByColumn(0, Qt.AscendingOrder)
        assert_every_condition_shown(self, w, model)
        w.hide()

    def test_every_condition_is_whole_at_the_default_size_and_on_a_small_screen(self):
        """At the viewer's own default size and at 1024 x 640, for every
        kind of model, every condition of every listed rule is in its cell
        in full (no ellipsis) and the cell is wide and high enough for its
        wrapped lines, laid out independently with QTextLayout; also with
        the conditions run on, and with every column shown."""
        for kind in ("slipper", "evc", "lrr", "sls", "roccer", "scoring", "cn2"):
            model = fitted(kind)
            self.show(model, self.heart)
            w = self.widget
            for size in ((1150, 700), (1024, 640)):
                for compact, every in ((False, False), (True, False), (False, True)):
                    with self.subTest(kind=kind, size=size, compact=compact, every=every):
                        w.compact_check.setChecked(compact)
                        w.numbers_check.setChecked(every)
                        w.resize(*size)
                        w.show()
                        self.process_events()
                        self.assertEqual((w.width(), w.height()), size)
                        assert_every_condition_shown(self, w, model)
                        # the conditions get most of the table
                        widths = [w.view.columnWidth(c) for c in range(w.rule_model.columnCount())
                                  if not w.view.isColumnHidden(c)]
                        if not every:
                            self.assertGreaterEqual(w.view.columnWidth(1), 0.4 * sum(widths))
            w.compact_check.setChecked(False)
            w.numbers_check.setChecked(False)
            w.hide()
        self.assertEqual(OWRulesViewer().sizeHint().width(), 1150)

    def test_texts_are_whole_when_a_model_arrives_at_an_open_viewer(self):
        """As on the canvas: the viewer is open (at its default size, or at
        1024 x 640) before a model arrives. The summary, "Why this
        prediction" and the plot's note then get longer, and the left panel
        widens with them: every visible text of the panel lies inside the
        panel's visible area (it was cut off at the right, the panel keeping
        the width it had while empty). Every narrow column of the table is
        as wide as Qt's own measure of its cells (the class column was a
        colour square short: 'Iris-versicolor' lost its last letters). Also
        with a font 1.3 times Qt's default here (as macOS's or a desktop's
        larger system font)."""
        from AnyQt.QtWidgets import QApplication
        default = QApplication.font()
        views = ((("heart_disease", (1150, 700), 1.0), ("heart_disease", (1024, 640), 1.0),
                  ("iris", (1024, 640), 1.0), ("iris", (1024, 640), 1.3),
                  ("heart_disease", (1150, 700), 1.3)))
        cases = [(kind, data, size, scale)
                 for kind in ("slipper", "evc", "lrr", "sls", "roccer", "scoring", "cn2")
                 for data, size, scale in views]
        for kind, data, size, scale in cases:
            with self.subTest(kind=kind, data=data, size=size, font=scale):
                font = QApplication.font()
                font.setPointSizeF(default.pointSizeF() * scale)
                QApplication.setFont(font)
                try:
                    w = self.create_widget(OWRulesViewer)
                    w.resize(*size)
                    w.show()
                    self.process_events()
                    self.send_signal(w.Inputs.model, fitted(kind, data), widget=w)
                    self.send_signal(w.Inputs.data, Table(data), widget=w)
                    self.wait_until_finished(widget=w)
                    for _ in range(5):  # the layouts, parent by parent, as the canvas's loop runs
                        self.process_events()
                    assert_left_panel_whole(self, w)
                    self.assertTrue(w.info_label.text())
                    view = w.view
                    for col in range(w.rule_model.columnCount()):
                        if col != 1 and not view.isColumnHidden(col):  # 1: wrapped conditions
                            self.assertGreaterEqual(view.columnWidth(col),
                                                    view.sizeHintForColumn(col),
                                                    w.rule_model.headers[col])
                    w.hide()
                finally:
                    QApplication.setFont(default)

    def test_plots_render(self):
        w = self.widget
        for kind in ("roccer", "sls", "evc", "lrr"):
            with self.subTest(kind):
                self.show(fitted(kind), self.heart)
                self.assertTrue(w.plot.isVisibleTo(w))
                w.resize(1000, 700)
                self.assertGreater(len(w.plot.getPlotItem().listDataItems()), 0)
                self.assertGreater(non_white_share(w.plot), 0.01)
        self.show(fitted("slipper"))
        self.assertFalse(w.plot.isVisibleTo(w))

    def test_roccer_hull_per_class_and_selection_highlight(self):
        model = fitted("roccer")
        self.show(model, self.heart)
        w = self.widget
        self.assertEqual(w.class_combo.count(), 2)
        for cls in (0, 1):
            w.class_combo.setCurrentIndex(cls)
            w.class_combo.activated[int].emit(cls)
            items = w.plot.getPlotItem().listDataItems()
            hull = items[1].getData()
            points, _ = model.class_lists[cls].points, None
            np.testing.assert_allclose(hull[0], points[:, 0])
            np.testing.assert_allclose(hull[1], points[:, 1])
        before = len(w.plot.getPlotItem().listDataItems())
        w.select_rules([model.class_lists[1].columns[0][0]])
        self.assertEqual(len(w.plot.getPlotItem().listDataItems()), before + 1)

    def test_sls_curve_matches_the_model(self):
        model = fitted("sls")
        self.show(model, self.heart)
        items = self.widget.plot.getPlotItem().listDataItems()
        self.assertEqual(len(items), 3)  # error, abstention, bound
        theta, abstain = items[1].getData()
        curve = model.abstention_curve(self.heart, theta)
        np.testing.assert_allclose(abstain, [c["abstention"] for c in curve])

    def test_multiclass_and_orange_cn2(self):
        iris = Table("iris")
        for kind in ("roccer", "sls", "cn2"):
            with self.subTest(kind):
                model = fitted(kind, "iris")
                self.show(model, iris)
                self.assertEqual(self.widget.rule_model.rowCount(), len(model.rule_list))
        self.assertEqual(self.widget.class_combo.count(), 0)

    def test_rules_output_is_one_row_per_rule_with_the_cores_coverage(self):
        from Orange.classification import CN2UnorderedLearner
        kinds = [*KINDS, "cn2"]
        models = [(k, fitted(k)) for k in kinds]
        unordered = CN2UnorderedLearner()(self.heart)
        models.append(("cn2 unordered", unordered))
        for kind, model in models:
            with self.subTest(kind):
                self.show(model, self.heart)
                rules = self.get_output(self.widget.Outputs.rules)
                self.assertEqual(len(rules), len(model.rule_list))
                if kind_of(model) == "cn2":
                    cover = cn2_cover(model, self.heart)
                else:
                    cover = model.counted_cover(self.heart)
                np.testing.assert_array_equal(rules.get_column("coverage"), cover.sum(axis=0))
                heads = (model.rule_directions()[0] if kind_of(model) == "ours"
                         else [int(r.prediction) for r in model.rule_list])
                np.testing.assert_array_equal(rules.Y, heads)  # the class each favours
                y = self.heart.Y.astype(int)
                first = cover[:, 0]
                self.assertEqual(rules.get_column(f"n {self.heart.domain.class_var.values[0]}")[0],
                                 np.sum(first & (y == 0)))
                self.assertEqual(rules.get_column("length")[0],
                                 len(model.rule_list[0].selectors))
                self.assertTrue(all(isinstance(t, str) and t for t in rules.metas[:, 0]))
        self.send_signal(self.widget.Inputs.model, None)
        self.assertIsNone(self.get_output(self.widget.Outputs.rules))

    def test_orange_ordered_cn2_is_read_as_a_decision_list(self):
        from Orange.classification import CN2UnorderedLearner
        model = fitted("cn2")
        self.assertTrue(viewer.is_decision_list(model))
        self.assertFalse(viewer.is_decision_list(CN2UnorderedLearner()(self.heart)))
        self.show(model, self.heart)
        w, m = self.widget, self.widget.rule_model
        texts = [m.index(r, 1).data() for r in range(m.rowCount())]
        self.assertTrue(texts[0].startswith("IF "))
        self.assertTrue(all(t.startswith("ELSE IF ") for t in texts[1:-1]))
        self.assertEqual(texts[-1], "ELSE")  # the default rule
        self.assertIn("Decision list", w.info_label.text())
        # every row is decided by one rule: the counts add up to the rows
        self.assertEqual(w.cover.sum(axis=1).tolist(), [1] * len(self.heart))
        rules = self.get_output(w.Outputs.rules)
        self.assertEqual(rules.get_column("coverage").sum(), len(self.heart))
        # the decided class is the model's prediction
        decided = np.asarray([model.rule_list[k].prediction
                              for k in w.cover.argmax(axis=1)])
        np.testing.assert_array_equal(decided, model(self.heart))

    def test_slippers_default_rules_are_summed_apart(self):
        model = fitted("slipper")
        default = np.array([not r.selectors for r in model.rule_list])
        self.assertTrue(default.any())
        w = self.widget
        self.show(model, self.heart)
        shown = {int(w.rule_model.data(w.rule_model.index(r, 0), RULE_ROLE))
                 for r in range(w.rule_model.rowCount())}
        self.assertEqual(shown, set(np.flatnonzero(~default)))
        total = sum(r.quality for r in model.rule_list if not r.selectors)
        cv = model.domain.class_var
        (positive, _), = model.boosters
        toward = cv.values[positive if total > 0 else 1 - positive]  # the baseline's class
        # the summary names the number the table skips
        numbers = ", ".join(str(k + 1) for k in np.flatnonzero(default))
        self.assertEqual(len(shown) + int(default.sum()), model.size[0])
        self.assertIn(f"Baseline (rule {numbers}, the default rule, on every row, not listed "
                      f"with the rules): confidence {abs(total):.3f} toward {cv.name} = "
                      f"{toward}", w.info_label.text())
        # selecting every listed rule no longer selects every row by a TRUE rule
        w.select_rules(sorted(shown))
        cover = model.covering(self.heart)[:, sorted(shown)].any(axis=1)
        self.assertEqual(len(self.get_output(w.Outputs.selected_data)), cover.sum())

    def test_filter_keeps_the_rules_with_every_word(self):
        model = fitted("evc")
        self.show(model, self.heart)
        w = self.widget
        conditions = [" ".join(c).lower() for c in w.table.conditions]
        classes = [model.domain.class_var.values[h].lower() for h in w.table.heads]
        for text in ("age", "AGE gender", "chest pain", "zzz", ""):
            with self.subTest(text):
                w.filter_edit.setText(text)
                words = text.lower().split()
                expected = sorted(k for k in w.listed_rules()
                                  if all(x in conditions[k] + " " + classes[k]
                                         for x in words))
                shown = sorted(int(w.rule_model.data(w.rule_model.index(r, 0), RULE_ROLE))
                               for r in range(w.rule_model.rowCount()))
                self.assertEqual(shown, expected)
        self.assertEqual(w.rule_model.rowCount(), len(model.rule_list))

    def shown_rules(self):
        m = self.widget.rule_model
        return [int(m.index(r, 0).data(RULE_ROLE)) for r in range(m.rowCount())]

    def test_sorting_each_column_both_ways_orders_by_its_key(self):
        model = fitted("roccer")
        self.show(model, self.heart)
        w, m = self.widget, self.widget.rule_model
        for col in range(m.columnCount()):
            for order in (Qt.AscendingOrder, Qt.DescendingOrder):
                with self.subTest(col=col, order=order):
                    w.view.sortByColumn(col, order)
                    keys = [m.index(r, col).data(SORT_ROLE) for r in range(m.rowCount())]
                    want = sorted(keys, reverse=order == Qt.DescendingOrder)
                    self.assertEqual(keys, want)
                    self.assertEqual(sorted(self.shown_rules()),
                                     list(range(len(model.rule_list))))

    def test_class_filter_and_words_together_keep_the_selection(self):
        model = fitted("evc")
        self.show(model, self.heart)
        w = self.widget
        heads = np.array([r.prediction for r in model.rule_list])
        self.assertEqual(w.class_filter.count(), 1 + len(model.domain.class_var.values))
        w.select_rules([0, 1, 2])
        w.class_filter.setCurrentIndex(2)
        w.class_filter.activated.emit(2)
        self.assertEqual(sorted(self.shown_rules()), list(np.flatnonzero(heads == 1)))
        self.assertEqual(w.selected_rules(), [k for k in (0, 1, 2) if heads[k] == 1])
        w.filter_edit.setText("age")
        expected = [k for k in np.flatnonzero(heads == 1)
                    if "age" in " ".join(w.table.conditions[k]).lower()]
        self.assertEqual(sorted(self.shown_rules()), expected)
        # a sort keeps the selected rules selected
        selected = w.selected_rules()
        w.view.sortByColumn(4, Qt.DescendingOrder)
        self.assertEqual(w.selected_rules(), selected)
        w.class_filter.setCurrentIndex(0)
        w.class_filter.activated.emit(0)
        w.filter_edit.setText("")
        self.assertEqual(sorted(self.shown_rules()), list(range(len(model.rule_list))))

    def test_minimum_coverage_and_top_n(self):
        model = fitted("roccer")
        self.show(model, self.heart)
        w, m = self.widget, self.widget.rule_model
        covered = model.counted_cover(self.heart).sum(axis=0)
        w.min_covered_spin.setValue(20)
        self.assertEqual(sorted(self.shown_rules()), list(np.flatnonzero(covered >= 20)))
        w.min_covered_spin.setValue(0)
        w.view.sortByColumn(4, Qt.DescendingOrder)
        w.top_spin.setValue(5)
        self.assertEqual(m.rowCount(), 5)
        shown = [m.index(r, 4).data(SORT_ROLE) for r in range(5)]
        self.assertEqual(shown, sorted(covered, reverse=True)[:5])
        w.top_spin.setValue(0)
        self.assertEqual(m.rowCount(), len(model.rule_list))

    def test_annotated_data_says_why_each_row_got_its_prediction(self):
        """The annotated data's 'Why' is each row's explanation as describe()
        writes it (Orange's CN2 does not explain: no column), and its 'Rules
        firing' names, per row, the rules of the table (not LR with rules'
        rules of weight 0, which change no prediction, nor SLIPPER's baseline
        on every row) that cover it; every rule its Why names is among them."""
        w = self.widget
        for kind in ("lrr", "slipper", "sls", "roccer", "scoring", "evc", "cn2"):
            with self.subTest(kind):
                model = fitted(kind)
                self.show(model, self.heart)
                annotated = self.get_output(w.Outputs.annotated_data)
                firing = annotated.get_column("Rules firing")
                listed = viewer.listed_mask(model)
                cover = viewer.coverage(model, self.heart)
                if kind in ("lrr", "slipper"):
                    self.assertFalse(listed.all())  # the case the column leaves out
                if kind == "cn2":
                    self.assertNotIn("Why", [m.name for m in annotated.domain.metas])
                    explained = None
                else:
                    explained = model.explain(self.heart)
                    why = annotated.get_column("Why")
                    predicted = model(self.heart)
                    cv = model.domain.class_var
                    for i in (0, 100, 302):
                        lines = explained[i].describe(model, 3)
                        self.assertEqual(why[i], "; ".join(line.strip() for line in lines))
                        self.assertTrue(why[i].startswith(
                            f"{cv.name} = {cv.values[int(predicted[i])]} "))
                for i in range(len(self.heart)):
                    named = {int(k) - 1 for k in firing[i].split(", ") if k}
                    self.assertEqual(named, set(np.flatnonzero(cover[i] & listed)))
                    if explained is not None:
                        reasons = explained[i].reasons(model)
                        self.assertLessEqual(
                            {k for k, _ in reasons.supporting + reasons.opposing}, named)

    def test_why_this_prediction_box_explains_the_chosen_row(self):
        """The box names the row's predicted class with the model's
        probability and its actual class, lists the rules that move it
        (as the Python explanation does), and limits the table to them."""
        w = self.widget
        for kind in ("lrr", "slipper", "evc", "sls", "roccer", "scoring"):
            with self.subTest(kind):
                model = fitted(kind)
                self.show(model, self.heart)
                self.process_events()  # the explanation comes a turn of the loop later
                self.assertFalse(w.why_box.isHidden())
                self.assertEqual(w.why_spin.maximum(), len(self.heart))
                cv = model.domain.class_var
                for row in (1, 120, 303):
                    w.why_spin.setValue(row)
                    w.why_spin.editingFinished.emit()
                    exp = model.explain(self.heart[row - 1:row])[0]
                    p = model(self.heart[row - 1:row], model.Probs)[0]
                    c = int(np.argmax(p))
                    text = w.why_label.text()
                    self.assertTrue(text.startswith(f"<b>{cv.name} = {cv.values[c]}</b> "
                                                    f"(probability {p[c]:.3f})"), text)
                    actual = cv.values[int(self.heart.Y[row - 1])]
                    self.assertIn(f"actual: {actual}", text)
                    # the rules named are the explanation's, strongest first
                    _, _, effect, _ = exp.effects(model)
                    apart = model.set_apart()  # SLIPPER's default rules: not listed
                    top = [int(exp.rules[j]) + 1
                           for j in np.argsort(-np.abs(effect), kind="stable")
                           if not apart[exp.rules[j]]][:5]
                    self.assertEqual([int(k) for k in re.findall(r"</b> rule (\d+):", text)],
                                     top, text)
                    if kind == "slipper":  # its default rule is in "Without rules"
                        self.assertNotIn(": TRUE", text)
                    w.why_only_check.click()  # on
                    self.assertTrue(w.why_rules_only)
                    listed = set(w.rule_model.rules[w.rule_model.order])
                    shown = set(np.asarray(exp.rules)) & set(w.rule_model.rules)
                    self.assertEqual(listed, shown)
                    w.why_only_check.click()  # off: every listed rule again
                    self.assertEqual(w.rule_model.rowCount(), len(w.rule_model.rules))
        self.show(fitted("cn2"), self.heart)  # Orange's CN2 does not explain
        self.assertTrue(w.why_box.isHidden())
        self.send_signal(w.Inputs.model, None)
        self.assertTrue(w.why_box.isHidden())

    def test_big_inputs_are_computed_in_a_thread_with_the_same_result(self):
        from orangecontrib.rules.widgets import owrulesviewer
        model = fitted("evc")
        w = self.widget
        self.show(model, self.heart)
        want_rows = self.shown_rules()
        w.select_rules(want_rows[:3])
        want_out = self.get_output(w.Outputs.annotated_data)
        want_rules = self.get_output(w.Outputs.rules)
        old = owrulesviewer.THREAD_CELLS
        owrulesviewer.THREAD_CELLS = 0
        try:
            self.send_signal(w.Inputs.data, None)
            self.send_signal(w.Inputs.data, self.heart)
            self.assertIsNotNone(w.task)  # computing: the table waits, the GUI does not
            self.assertEqual(w.rule_model.rowCount(), 0)
            # a newer input replaces the running computation
            self.send_signal(w.Inputs.data, self.heart[:50])
            self.wait_until_finished()
            self.assertIs(w.shown_data.ids.tolist() == self.heart[:50].ids.tolist(), True)
            self.send_signal(w.Inputs.data, self.heart)
            self.wait_until_finished()
        finally:
            owrulesviewer.THREAD_CELLS = old
        self.assertEqual(self.shown_rules(), want_rows)
        w.select_rules(want_rows[:3])
        got_rules = self.get_output(w.Outputs.rules)
        np.testing.assert_array_equal(got_rules.X, want_rules.X)
        got = self.get_output(w.Outputs.annotated_data)
        np.testing.assert_array_equal(got.metas[:, -4:].astype(str),
                                      want_out.metas[:, -4:].astype(str))

    def test_every_column_fits_beside_a_long_summary(self):
        from orangecontrib.rules.widgets.owrulesviewer import INFO_WIDTH
        w = self.widget
        for kind in ("sls", "roccer"):
            with self.subTest(kind):
                self.show(fitted(kind), self.heart)
                w.resize(1600, 1000)
                w.show()
                self.process_events()
                self.assertLessEqual(w.info_label.width(), INFO_WIDTH)
                widths = sum(w.view.columnWidth(c) for c in range(w.rule_model.columnCount()))
                self.assertLessEqual(widths, w.view.viewport().width())
                w.hide()

    def test_plots_have_legends_and_hull_numbers_do_not_overlap(self):
        import pyqtgraph as pg
        from orangecontrib.rules.widgets.ruleplots import LABEL_GAP
        w = self.widget
        model = fitted("evc")
        self.show(model, self.heart)
        legend = w.plot.plotItem.legend
        self.assertIsNotNone(legend)
        names = {label.text for _, label in legend.items}
        heads = {model.domain.class_var.values[r.head] for r in model.rule_list}
        self.assertEqual(names, heads)
        # the legend beside the data, never over them, whole inside the plot
        # (at 1024 x 640 the abstention plot's third entry fell on its axis),
        # with as many entries as classes (zoo: seven, in columns)
        for kind, data in (("evc", "heart_disease"), ("sls", "heart_disease"),
                           ("lrr", "iris"), ("evc", "zoo")):
            for size in ((1150, 700), (1024, 640)):
                with self.subTest(kind=kind, data=data, size=size):
                    model = fitted(kind, data)
                    self.show(model, Table(data))
                    w.resize(*size)
                    w.show()
                    self.process_events()
                    item = w.plot.plotItem
                    box = item.legend.sceneBoundingRect()
                    self.assertFalse(box.intersects(item.vb.sceneBoundingRect()))
                    shown = w.plot.mapFromScene(box).boundingRect()
                    self.assertTrue(w.plot.viewport().rect().contains(shown), shown)
                    self.assertGreaterEqual(len(item.legend.items), 2)
                    w.hide()
        self.show(fitted("roccer"), self.heart)
        labels = [item.pos() for item in w.plot.plotItem.items if isinstance(item, pg.TextItem)]
        self.assertTrue(labels)
        for a, b in zip(labels, labels[1:]):
            self.assertGreater(np.hypot(a.x() - b.x(), a.y() - b.y()), LABEL_GAP)

    def test_conditions_take_the_width_the_window_gives(self):
        model = fitted("evc")
        self.show(model, self.heart)
        w = self.widget
        w.resize(1600, 1000)
        w.show()
        w.compact_check.setChecked(True)
        narrow = w.view.columnWidth(1)
        w.resize(2400, 1000)
        self.process_events()
        self.assertGreater(w.view.columnWidth(1), narrow)
        self.assertGreater(w.view.columnWidth(1), 440)  # the old cap
        w.hide()

    def test_copy_gives_the_selected_rules_as_text(self):
        from AnyQt.QtWidgets import QApplication
        model = fitted("evc")
        self.show(model, self.heart)
        w = self.widget
        w.select_rules([0, 2])
        w.copy_selected()
        lines = QApplication.clipboard().text().split("\n")
        cv = model.domain.class_var
        expected = [f"IF {' AND '.join(w.table.conditions[k])} THEN {cv.name} = "
                    f"{cv.values[model.rule_list[k].head]}" for k in (0, 2)]
        self.assertEqual(sorted(lines), sorted(expected))
        self.assertTrue(any(a.shortcut().matches(QKeySequence.Copy) for a in w.view.actions()))

    def test_rules_of_weight_zero_are_hidden_until_asked_for(self):
        model = fitted("lrr")
        used = viewer.used_mask(model)
        self.assertTrue(0 < used.sum() < len(used))
        w = self.widget
        w.show_unused = False
        self.show(model, self.heart)
        shown = sorted(int(w.rule_model.data(w.rule_model.index(r, 0), RULE_ROLE))
                       for r in range(w.rule_model.rowCount()))
        self.assertEqual(shown, list(np.flatnonzero(used)))
        self.assertIn("have weight 0 (not listed)", w.info_label.text())
        # the size beside the rules: the attribute weights the model reads
        self.assertGreater(model.attribute_terms, 0)
        self.assertIn(f"{model.size[0]} rules and {model.attribute_terms} attribute weights",
                      w.info_label.text())
        # the conditions shown are those of the rule in the row (one per line)
        for r in range(w.rule_model.rowCount()):
            k = int(w.rule_model.data(w.rule_model.index(r, 0), RULE_ROLE))
            text = w.rule_model.data(w.rule_model.index(r, 1))
            self.assertEqual(text, "\nAND ".join(w.table.conditions[k]) or "TRUE")
        w.unused_check.click()
        self.assertEqual(w.rule_model.rowCount(), len(model.rule_list))
        self.assertTrue(all(viewer.used_mask(fitted(k)).all() for k in ("evc", "slipper")))

    def test_without_data_uses_training_data_or_nothing(self):
        model = fitted("slipper")
        self.show(model)
        self.assertTrue(self.widget.Information.training_data.is_shown())
        self.widget.select_rules(self.widget.listed_rules()[:1])
        self.assertIsNotNone(self.get_output(self.widget.Outputs.selected_data))
        bare = make("slipper", T=3)(self.heart)  # fitted in a script: no instances
        self.show(bare)
        self.assertEqual(self.widget.rule_model.rowCount(),
                         sum(1 for r in bare.rule_list if r.selectors))
        self.widget.select_rules(self.widget.listed_rules()[:1])
        self.assertIsNone(self.get_output(self.widget.Outputs.selected_data))

    def test_bad_inputs(self):
        w = self.widget
        self.show(_RuleClassifier(self.heart.domain, [object()]))  # no usable rules
        self.assertTrue(w.Error.not_rules.is_shown())
        self.assertEqual(w.rule_model.rowCount(), 0)
        self.show(fitted("roccer"), Table("iris"))  # data of another domain
        self.assertTrue(w.Error.incompatible_data.is_shown())
        self.assertEqual(w.rule_model.rowCount(), len(fitted("roccer").rule_list))
        self.send_signal(w.Inputs.model, None)
        self.assertEqual(w.rule_model.rowCount(), 0)
        self.assertIsNone(self.get_output(w.Outputs.selected_data))

    def test_report(self):
        model = fitted("roccer")
        self.show(model, self.heart)
        self.widget.create_report_html()
        html = self.widget.report_html
        assert "ROCCERModel" in html and str(len(model.rule_list)) in html
        first = model.rule_list[0].conditions[0]
        assert self.heart.domain.attributes[first.column].name in html

    def test_roccer_summary_counts_match_the_listed_rules(self):
        import re
        from orangecontrib.rules.viewer import model_summary, rule_table
        model = fitted("roccer")
        lines = model_summary(model)
        per_class = [re.match(r".*: (\d+) rules in (\d+) hull points", t) for t in lines[1:]]
        assert lines[1].startswith("Counts: the rows each rule decides")
        per_class = [m for m in per_class if m]
        assert len(per_class) == len(model.class_lists)
        assert sum(int(m.group(1)) for m in per_class) == len(model.rule_list)
        assert [int(m.group(2)) for m in per_class] == [len(cl.rules)
                                                       for cl in model.class_lists]
        assert len(rule_table(model).conditions) == len(model.rule_list)

    def test_sls_summary_says_when_the_bound_is_vacuous(self):
        from orangecontrib.rules.viewer import model_summary
        lines = model_summary(fitted("sls"))
        bound = [t for t in lines if t.startswith("Voting error bound")]
        assert bound, lines
        model = fitted("sls")
        assert ("vacuous" in bound[0]) == (model.voting_bound >= 1)
        if model.voting_bound < 1:
            assert f"{model.voting_bound:.3f}" in bound[0]


def assert_every_condition_shown(test, w, model):
    """Every listed rule's conditions are in its cell, none elided, and the
    cell (the row's height, the column's width) holds the text as
    QTextLayout wraps it at the column's width."""
    from AnyQt.QtGui import QFontMetrics, QTextLayout, QTextOption
    from AnyQt.QtWidgets import QApplication
    from orangecontrib.rules.widgets.ruletable import H_MARGIN, V_MARGIN
    QApplication.processEvents()  # the rows are fitted in the event loop's next turn
    view, m = w.view, w.rule_model
    font = view.font()
    metrics = QFontMetrics(font)
    inner = view.columnWidth(1) - 2 * H_MARGIN
    option = QTextOption()
    option.setWrapMode(QTextOption.WordWrap)
    for row in range(m.rowCount()):
        k = int(m.data(m.index(row, 0), RULE_ROLE))
        text = m.data(m.index(row, 1))
        test.assertNotIn("…", text)
        for cond in w.table.conditions[k]:
            test.assertIn(cond, text)
        lines, widest = 0, 0.0
        for paragraph in text.split("\n"):
            layout = QTextLayout(paragraph, font)
            layout.setTextOption(option)
            layout.beginLayout()
            while True:
                line = layout.createLine()
                if not line.isValid():
                    break
                line.setLineWidth(inner)
                lines += 1
                widest = max(widest, line.naturalTextWidth())
            layout.endLayout()
        test.assertLessEqual(widest, inner + 0.5, (k, text))
        need = (lines - 1) * metrics.lineSpacing() + metrics.height() + 2 * V_MARGIN
        test.assertGreaterEqual(view.rowHeight(row), need, (k, text, lines))


def kind_of(model):
    return "cn2" if type(model).__module__.startswith("Orange.") else "ours"


def test_rules_as_table_honours_weights_and_uses_training_counts_without_data():
    heart = Table("heart_disease")
    model = fitted("evc")
    plain = viewer.rules_as_table(model, heart)
    weighted = heart.copy()
    with weighted.unlocked():
        weighted.W = np.full(len(heart), 2.0)
    double = viewer.rules_as_table(model, weighted)
    np.testing.assert_allclose(double.get_column("coverage"), 2 * plain.get_column("coverage"))
    np.testing.assert_allclose(double.get_column("precision"), plain.get_column("precision"))
    training = viewer.rules_as_table(model)
    np.testing.assert_allclose(training.get_column("coverage"),
                               [r.class_distribution.sum() for r in model.rule_list])
    # the model's own numbers are columns too (EVC: the corrected quality)
    column = viewer.rule_table(model).columns[0]
    np.testing.assert_allclose(training.get_column(column.name), column.values)


def test_with_metas_equals_one_column_at_a_time():
    from Orange.data import DiscreteVariable, StringVariable

    from orangecontrib.rules.widgets.owrulesviewer import with_metas
    data = Table("heart_disease")
    text = StringVariable("text")
    flag = DiscreteVariable("flag", values=("no", "yes"))
    texts = np.array([f"row {i}" for i in range(len(data))], dtype=object)
    flags = (np.arange(len(data)) % 3 == 0).astype(float)
    one = with_metas(data, [(text, texts), (flag, flags)])
    step = data.add_column(text, texts, to_metas=True).add_column(flag, flags, to_metas=True)
    assert one.domain == step.domain
    np.testing.assert_array_equal(one.X, step.X)
    assert list(one.get_column(text)) == list(step.get_column(text))
    np.testing.assert_array_equal(one.get_column(flag), step.get_column(flag))
    assert len(data.domain.metas) == 0  # the input is left alone


class TestGrownRules(owtest.WidgetTest):
    def test_a_grown_rules_number_says_where_it_comes_from(self):
        """LR with rules under a budget on a larger table: the number of
        each grown rule has a tooltip saying it was grown on the model's
        errors; an EVC rule's has none."""
        from orangecontrib.rules import RuleLogisticRegressionLearner
        from registry import grown_rules_table
        data = grown_rules_table()
        model = RuleLogisticRegressionLearner(max_rules=20)(data)
        model.instances = data
        assert model.budget_choice == "boosted"
        notes = viewer.rule_table(model).notes
        grown = [bool(r.extra.get("grown")) for r in model.rule_list]
        assert [bool(n) for n in notes] == grown and any(grown) and not all(grown)
        w = self.create_widget(OWRulesViewer)
        self.send_signal(w.Inputs.model, model)
        self.send_signal(w.Inputs.data, data)
        self.wait_until_finished(widget=w)
        m = w.rule_model
        tips = {int(m.index(row, 0).data(RULE_ROLE)): m.index(row, 0).data(Qt.ToolTipRole)
                for row in range(m.rowCount())}
        assert tips
        for k, tip in tips.items():
            if grown[k]:
                assert tip.startswith(f"Rule {k + 1}: Grown on the model's errors")
            else:
                assert tip is None
        # shown on empty, one-row and class-less data: every rule listed, the
        # grown ones still marked, the rows it covers selected
        from Orange.data import Domain
        cases = {"empty": data[:0], "one row": data[:1],
                 "no class": data.transform(Domain(data.domain.attributes))}
        for name, shown in cases.items():
            with self.subTest(data=name):
                self.send_signal(w.Inputs.data, shown)
                self.wait_until_finished(widget=w)
                self.assertEqual(m.rowCount(), len(model.rule_list))
                marked = {int(m.index(row, 0).data(RULE_ROLE))
                          for row in range(m.rowCount())
                          if m.index(row, 0).data(Qt.ToolTipRole)}
                self.assertEqual(marked, {k for k, g in enumerate(grown) if g})
                annotated = self.get_output(w.Outputs.annotated_data, widget=w)
                self.assertEqual(len(annotated), len(shown))
                first = int(m.index(0, 0).data(RULE_ROLE))
                w.select_rules([first])
                selected = self.get_output(w.Outputs.selected_data, widget=w)
                covered = model.covering(shown)[:, first] if len(shown) else np.zeros(0, bool)
                self.assertEqual(0 if selected is None else len(selected), int(covered.sum()))


class TestSaveRules(owtest.WidgetTest):
    def test_save_rules_writes_sql_and_json_the_model_reads_back(self):
        import sqlite3
        import tempfile
        from orangecontrib.rules import load_json
        w = self.create_widget(OWRulesViewer)
        heart = Table("heart_disease")
        model = fitted("evc")
        self.send_signal(w.Inputs.model, model)
        self.assertTrue(w.save_button.isEnabled())
        with tempfile.TemporaryDirectory() as tmp:
            w.save_rules(f"{tmp}/rules.json")
            with open(f"{tmp}/rules.json", encoding="utf-8") as f:
                back = load_json(f.read())
            np.testing.assert_array_equal(back(heart, back.Probs), model(heart, model.Probs))
            w.save_rules(f"{tmp}/rules.sql")
            with open(f"{tmp}/rules.sql", encoding="utf-8") as f:
                query = f.read()
            self.assertEqual(query.strip(), model.to_sql("data") + ";")
            self.assertIsNotNone(sqlite3.complete_statement(query))
            w.save_rules(f"{tmp}/rules.txt")
            self.assertTrue(w.Error.save_failed.is_shown())
        self.send_signal(w.Inputs.model, fitted("cn2"))  # Orange's own: not exported
        self.assertFalse(w.save_button.isEnabled())
