"""Rule Viewer: the rules of any model of this add-on (and Orange's CN2),
with each model's own numbers, the rows they cover, why each row got its
prediction, and a plot per model type (ROCCER's ROC convex hull, SLS's
abstention curve and bound, EVC's corrected vs raw probability).

The table is :mod:`.ruletable`'s (every condition shown whole), the plot
:mod:`.ruleplots`'s (drawn once per model and data); what they show comes
from :mod:`orangecontrib.rules.viewer`."""
from html import escape

import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import QEvent, QItemSelection, QItemSelectionModel, QSize, Qt, QTimer
from AnyQt.QtGui import QKeySequence
from AnyQt.QtWidgets import (QAction, QApplication, QComboBox, QLineEdit, QSpinBox,
                             QSplitter)

from Orange.data import DiscreteVariable, Domain, StringVariable, Table
from Orange.data.util import get_unique_names
from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.annotated_data import (ANNOTATED_DATA_FEATURE_NAME,
                                                 ANNOTATED_DATA_SIGNAL_NAME)
from Orange.widgets.utils.concurrent import ConcurrentWidgetMixin
from Orange.widgets.widget import Input, Msg, Output, OWWidget

from orangecontrib.rules import viewer
from orangecontrib.rules.base import RuleModel
from orangecontrib.rules.rules import head_text
from orangecontrib.rules.widgets.ruleplots import RulePlot
from orangecontrib.rules.widgets.ruletable import (FIXED_HEADERS, RuleTableModel,  # noqa: F401
                                                   RuleTableView)

try:  # Orange's rule models (CN2) and all of this add-on's share this base
    from Orange.classification.rules import _RuleClassifier as RuleModelBase
except ImportError:  # pragma: no cover
    RuleModelBase = RuleModel

#: the widest the left panel's texts get (pixels)
INFO_WIDTH = 250
#: rows x rules, or rows, above which the coverage, the statistics, the
#: explanations and the plot's data are computed in a thread (the canvas
#: stays responsive); smaller inputs are shown at once
THREAD_CELLS = 2_000_000
THREAD_ROWS = 1_000
#: the most rows the annotated output explains (a "Why" column): explaining
#: 20,000 rows with thousands of rules takes seconds more
EXPLAIN_ROWS = 5_000


class Prepared:
    """What the viewer shows for a model and data, computed away from the
    GUI thread for big inputs (:func:`prepare`)."""

    def __init__(self, model):
        self.model = model
        self.shown_data = None     # the table coverage is on (input, else training data)
        self.cover = None          # (rows of shown_data, rules) bool
        self.errors = []           # why a candidate table could not be used
        self.table = None          # viewer.RuleTable
        self.dists = None          # (rules, classes) counts on shown_data
        self.rules_table = None    # the Rules output
        self.firing = None         # per shown row: the rules firing, as text
        self.why = None            # per shown row: why its prediction, as text
        self.plot = None           # viewer.PlotData


def candidate_tables(model, data):
    """Coverage is on the input data, else on the model's training data."""
    out = [] if data is None else [data]
    instances = getattr(model, "instances", None)
    if instances is not None:
        out.append(instances)
    return out


def prepare(model, candidates, state=None):
    """The coverage of the first table of ``candidates`` the model can
    read, the class counts of its rules there, the rule table, the Rules
    output, the text of the rules firing on each row, why each row got its
    prediction and the plot's data. ``state``: the thread's
    :class:`TaskState` (interruptible between the steps)."""
    out = Prepared(model)

    def step(share):
        if state is not None:
            state.set_progress_value(100 * share)
            if state.is_interruption_requested():
                raise InterruptedError
    for data in candidates:
        try:
            cover = viewer.coverage(model, data)
        except Exception as ex:  # domains that do not transform
            out.errors.append(str(ex))
            continue
        out.shown_data, out.cover = data, cover
        break
    step(0.3)
    out.table = viewer.rule_table(model)
    out.dists = viewer.class_distributions(model, out.shown_data, out.cover)
    step(0.5)
    out.rules_table = viewer.rules_as_table(model, out.shown_data, out.cover,
                                            table=out.table, dists=out.dists)
    step(0.6)
    out.plot = viewer.plot_data(model, out.shown_data)
    step(0.7)
    if out.cover is not None:
        out.firing = viewer.firing_text(out.cover, viewer.listed_mask(model))
        if len(out.shown_data) <= EXPLAIN_ROWS:
            step(0.85)
            out.why = viewer.explanation_text(model, out.shown_data)
    return out


class OWRulesViewer(OWWidget, ConcurrentWidgetMixin):
    name = "Rule Viewer"
    description = "Shows the rules of any rule model with the model's own " \
                  "numbers (confidence, corrected quality, weight, " \
                  "ensemble weight, ROC point), outputs the rows the selected " \
                  "rules cover, says why each row got its prediction, and plots " \
                  "ROC hulls, abstention curves and EVC corrections."
    icon = "icons/RuleViewer.svg"
    priority = 100
    keywords = "rule viewer, rules, roc hull, abstention, evc, explain"

    class Inputs:
        data = Input("Data", Table)
        model = Input("Model", RuleModelBase)

    class Outputs:
        selected_data = Output("Selected Data", Table, default=True)
        annotated_data = Output(ANNOTATED_DATA_SIGNAL_NAME, Table)
        rules = Output("Rules", Table)

    class Error(OWWidget.Error):
        not_rules = Msg("The model has no rules this viewer can show.")
        save_failed = Msg("The rules could not be saved: {}")
        incompatible_data = Msg("The data does not fit the model ({}); "
                                "showing the training data.")

    class Warning(OWWidget.Warning):
        model_warning = Msg("{}")

    class Information(OWWidget.Information):
        training_data = Msg("No data on the input: coverage is on the "
                            "model's training data.")
        empty_data = Msg("The data on the input has no rows.")
        # short enough for the status bar of a 1024-pixel-wide viewer with a
        # large font (the help page says that model.explain has no limit)
        not_explained = Msg("Annotated data: 'Why' column only up to {} rows.")

    compact_view = Setting(False)  # one condition per line, as Orange's CN2 viewer
    all_numbers = Setting(False)   # the model's principal number only
    show_unused = Setting(False)
    group_sets = Setting(False)
    why_rules_only = Setting(False, schema_only=True)  # a workflow keeps it; new viewers list all
    plot_class = Setting(0)
    auto_commit = Setting(True)

    want_main_area = True

    def __init__(self):
        super().__init__()
        ConcurrentWidgetMixin.__init__(self)
        self.data = None
        self.model = None
        self._model = None      # the input model, if the viewer can show it
        self.shown_data = None  # the table coverage is computed on
        self.cover = None       # (n rows of shown_data, n rules)
        self.table = None       # viewer.RuleTable
        self._firing = None     # per shown row: the rules firing, as text
        self._prepared = None   # Prepared: what the table and outputs show
        self._build_controls()
        self._build_main()

    def _build_controls(self):
        self.info_label = gui.widgetLabel(gui.vBox(self.controlArea, "Model"),
                                          "No model on input.")
        self.info_label.setWordWrap(True)
        # a long summary wraps instead of widening the panel over the table
        self.info_label.setMaximumWidth(INFO_WIDTH)
        box = gui.vBox(self.controlArea, "Display")
        self.compact_check = gui.checkBox(
            box, self, "compact_view", "Conditions run on",
            tooltip="Write each rule's conditions one after another (wrapped), "
                    "or one condition per line.", callback=self._show_conditions)
        self.numbers_check = gui.checkBox(
            box, self, "all_numbers", "All columns",
            tooltip="Show the rows each rule covers and every number the model "
                    "has for its rules, not only its principal one (e.g. an SLS "
                    "rule's rule sets, ROCCER's ROC point, EVC's raw frequency).",
            callback=self._show_numbers)
        self.unused_check = gui.checkBox(
            box, self, "show_unused", "Rules of weight 0",
            tooltip="LR with rules: also list the rules the fit gave no weight "
                    "(they do not change any prediction).",
            callback=self._listing_changed)
        self.group_check = gui.checkBox(
            box, self, "group_sets", "Rules by rule set",
            tooltip="SLS ensembles: list the rules rule set by rule set, the "
                    "heaviest first, with each set's weight (a rule in several "
                    "sets is listed in each).", callback=self._listing_changed)
        self.why_box = gui.vBox(self.controlArea, "Why this prediction")
        self.why_row = 1
        self.why_spin = gui.spin(
            self.why_box, self, "why_row", 1, 1, label="Row:",
            orientation=Qt.Horizontal, callback=self._explain_row,
            tooltip="A row of the data on the input (or of the training data): "
                    "its prediction, the rules that support it and those "
                    "against it.")
        self.why_only_check = gui.checkBox(
            self.why_box, self, "why_rules_only", "List only its rules",
            tooltip="Show in the table only the rules the model used for this "
                    "row's prediction.", callback=self._explain_row)
        self.why_label = gui.widgetLabel(self.why_box, "")
        self.why_label.setWordWrap(True)
        self.why_label.setMaximumWidth(INFO_WIDTH)
        self.why_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.why_box.setVisible(False)
        self.plot_box = gui.vBox(self.controlArea, "Plot")
        self.class_box = gui.hBox(self.plot_box)
        self.class_combo = gui.comboBox(
            self.class_box, self, "plot_class", label="Class:",
            orientation=Qt.Horizontal, callback=self._draw_plot,
            tooltip="The class whose ROC convex hull is drawn.")
        self.plot_note = gui.widgetLabel(self.plot_box, "")
        self.plot_note.setWordWrap(True)
        self.plot_note.setMaximumWidth(INFO_WIDTH)
        gui.rubber(self.controlArea)
        self.save_button = gui.button(
            self.controlArea, self, "Save rules…", callback=self.save_rules,
            tooltip="Save the model to a file: an SQL query that gives each "
                    "class's probability and the predicted class for the rows of "
                    "a table with the model's columns (SQLite, PostgreSQL), or "
                    "the model as JSON that Python reads back "
                    "(orangecontrib.rules.load_json).", autoDefault=False)
        self.save_button.setEnabled(False)
        gui.auto_send(self.buttonsArea, self, "auto_commit")
        self.controlArea.installEventFilter(self)

    def eventFilter(self, obj, event):
        # Orange's left panel (a scroll area) takes its width from the
        # panel's contents only when it is laid out: a model that arrives
        # while the viewer is open widens the texts (the summary, "Why this
        # prediction"), and the scroll area kept its old width, cutting the
        # texts off at the right. Each time the panel's layout changes, the
        # scroll area (and the splitter beside the table) is told to look again.
        if obj is self.controlArea and event.type() == QEvent.LayoutRequest:
            scroll_area = self.controlArea.parentWidget()
            while scroll_area is not None and scroll_area is not self:
                scroll_area.updateGeometry()
                scroll_area = scroll_area.parentWidget()
        return super().eventFilter(obj, event)

    def _build_main(self):
        self.rule_model = RuleTableModel(self)
        self.view = RuleTableView()
        self.view.setModel(self.rule_model)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        copy = QAction("Copy rules", self.view, shortcut=QKeySequence.Copy,
                       shortcutContext=Qt.WidgetWithChildrenShortcut)
        copy.triggered.connect(self.copy_selected)
        self.view.addAction(copy)

        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(160)
        self.plot.setMenuEnabled(False)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setPen("#444444")
            self.plot.getAxis(axis).setTextPen("#222222")
        self.rule_plot = RulePlot(self.plot, self.plot_note)
        self.filter_edit = QLineEdit(
            placeholderText="Filter: words of the conditions or class",
            clearButtonEnabled=True, toolTip="Show the rules whose conditions or class "
                                             "contain every word (e.g. \"age female\").")
        self.filter_edit.textChanged.connect(
            lambda text: self.rule_model.set_filter(text=text))
        self.class_filter = QComboBox(
            toolTip="Show the rules of one class only.", minimumContentsLength=6,
            sizeAdjustPolicy=QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.class_filter.activated.connect(
            lambda i: self.rule_model.set_filter(class_index=i - 1))
        self.min_covered_spin = QSpinBox(
            minimum=0, maximum=10 ** 6, prefix="≥ ", suffix=" rows",
            toolTip="Show the rules that cover at least this many rows of the "
                    "shown data.")
        self.min_covered_spin.valueChanged.connect(
            lambda v: self.rule_model.set_filter(min_covered=v))
        self.top_spin = QSpinBox(
            minimum=0, maximum=10 ** 6, specialValueText="all rules", prefix="top ",
            toolTip="Show only the first rules in the table's order (sort by a "
                    "column, e.g. the model's own number, for the best ones); "
                    "0: all.")
        self.top_spin.valueChanged.connect(lambda v: self.rule_model.set_filter(top=v))
        filter_row = gui.hBox(None, spacing=6)
        filter_row.layout().addWidget(self.filter_edit, 1)
        filter_row.layout().addWidget(self.class_filter)
        filter_row.layout().addWidget(self.min_covered_spin)
        filter_row.layout().addWidget(self.top_spin)
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(self.plot)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([420, 200])
        self.mainArea.layout().addWidget(filter_row)
        self.mainArea.layout().addWidget(self.splitter)
        self._set_plot_visible(False)

    def sizeHint(self):
        return super().sizeHint().expandedTo(QSize(1150, 700))

    # ------------------------------------------------------------ inputs
    @Inputs.data
    def set_data(self, data):
        self.data = data

    @Inputs.model
    def set_model(self, model):
        self.model = model

    def handleNewSignals(self):
        self.cancel()
        self.Error.clear()
        self.Warning.clear()
        self.Information.clear()
        model = self.model
        if model is not None and not viewer.is_supported(model):
            self.Error.not_rules()
            model = None
        if model is None:
            self._show(None)
            return
        candidates = candidate_tables(model, self.data)
        rows = max((len(d) for d in candidates), default=0)
        if rows * len(model.rule_list) <= THREAD_CELLS and rows <= THREAD_ROWS:
            self._show(prepare(model, candidates))
            return
        # big: the table waits for the thread; the canvas does not
        self._show(None)
        self.info_label.setText(f"Computing the coverage of {len(model.rule_list):,} "
                                f"rules on {rows:,} rows…")
        self.start(prepare, model, candidates)

    def on_done(self, prepared):
        self._show(prepared)

    def on_exception(self, ex):
        self._show(None)
        raise ex

    def on_partial_result(self, _):
        pass

    def onDeleteWidget(self):
        self.shutdown()
        super().onDeleteWidget()

    def _show(self, prepared):
        """The table, plot and outputs of ``prepared`` (``None``: nothing)."""
        self._prepared = prepared
        self._model = None if prepared is None else prepared.model
        self.shown_data = self.cover = self._firing = None
        if prepared is not None:
            self.shown_data, self.cover = prepared.shown_data, prepared.cover
            self._firing = prepared.firing
            for error in prepared.errors:
                self.Error.incompatible_data(error)
            if self.data is None and self.shown_data is not None:
                self.Information.training_data()
            if self.data is not None and not len(self.data):
                self.Information.empty_data()
            if (self.shown_data is not None and len(self.shown_data) > EXPLAIN_ROWS
                    and isinstance(prepared.model, RuleModel)):
                self.Information.not_explained(f"{EXPLAIN_ROWS:,}")
            warnings = (prepared.model.warnings() if isinstance(prepared.model, RuleModel)
                        else [])
            if warnings:
                self.Warning.model_warning(" ".join(warnings))
        self._fill_table()
        self.save_button.setEnabled(isinstance(self._model, RuleModel))
        self._fill_class_combo()
        self._prepare_why()
        self._draw_plot()
        # the rules as data change with the inputs only, not with the selection
        self.Outputs.rules.send(None if prepared is None else prepared.rules_table)
        self.commit.now()

    # ------------------------------------------------------------ table
    def _fill_table(self):
        self.table = None
        self.info_label.setText("No model on input." if self.model is None
                                else "")
        self.class_filter.clear()
        if self._prepared is None:
            self.rule_model.clear()
            return
        model = self._prepared.model
        used = viewer.used_mask(model)
        listed = viewer.listed_mask(model, self.show_unused)
        summary = viewer.model_summary(model)
        self.unused_check.setEnabled(not used.all())
        if not used.all():
            summary.append(f"{len(used) - used.sum()} of {len(used)} rules have weight 0"
                           + (" (listed)." if self.show_unused else " (not listed)."))
        self.info_label.setText("\n".join(summary))
        self.table = table = self._prepared.table
        class_var = model.domain.class_var
        dists = self._prepared.dists
        rules, columns, row_columns = np.flatnonzero(listed), table.columns, []
        by_set = viewer.rule_set_rows(model)
        self.group_check.setEnabled(by_set is not None)
        if by_set is not None and self.group_sets:  # its own columns, over the rows
            (rules, row_columns), columns = by_set, []
        self.view.principal_count = len(row_columns) or 1
        heads = table.head_texts(class_var)
        self.class_filter.addItems(["All classes"] + list(class_var.values))
        self.rule_model.words, self.rule_model.class_filter = (), -1
        self.rule_model.min_covered = self.min_covered_spin.value()
        self.rule_model.top = self.top_spin.value()
        self.rule_model.set_rules(
            rules, [table.conditions[i] for i in rules], table.heads[rules], class_var,
            dists[rules], columns,
            None if table.prefixes is None else [table.prefixes[i] for i in rules],
            row_columns, head_names=[heads[i] for i in rules],
            notes=None if table.notes is None else [table.notes[i] for i in rules])
        self.rule_model.set_filter(text=self.filter_edit.text())
        self._show_conditions()

    def _listing_changed(self):
        self._fill_table()
        self.rule_plot.highlight(self.selected_rules())
        self.commit.deferred()

    def _show_conditions(self):
        """One condition per line, or the conditions run on; the rows as
        high as their wrapped text."""
        self.rule_model.set_compact(self.compact_view)
        self.view.show_numbers(self.all_numbers)

    def _show_numbers(self):
        self.view.show_numbers(self.all_numbers)

    def _selected_view_rows(self):
        rows = [np.arange(r.top(), r.bottom() + 1)
                for r in self.view.selectionModel().selection()]
        return np.unique(np.concatenate(rows)) if rows else np.zeros(0, dtype=int)

    def selected_rules(self):
        """Indices into ``rule_list`` of the selected rows."""
        model = self.rule_model
        return sorted({int(k) for k in model.rules[model.order[self._selected_view_rows()]]})

    def listed_rules(self):
        """Indices into ``rule_list`` of the rules the table lists (whether
        the filter shows them or not), in the model's order."""
        return sorted({int(k) for k in self.rule_model.rules})

    def selected_rules_text(self) -> str:
        """The selected rules as text, one ``IF ... THEN ...`` per line in
        the table's order, each head the class the rule favours (what
        Ctrl+C copies)."""
        if self.table is None:
            return ""
        model = self.rule_model
        rows = model.rules[model.order[self._selected_view_rows()]]
        return "\n".join(viewer.rule_line(self._model, k, self.table)
                         for k in dict.fromkeys(int(k) for k in rows))  # a rule once

    def copy_selected(self):
        text = self.selected_rules_text()
        if text:
            QApplication.clipboard().setText(text)

    def select_rules(self, rules):
        """Select rules by their index in ``rule_list`` (for scripts, tests)."""
        model = self.rule_model
        rows = model.view_rows(rules)
        selection = QItemSelection()
        last = model.columnCount() - 1
        # one range per run of consecutive rows
        for run in np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1) if len(rows) else []:
            selection.select(model.index(int(run[0]), 0), model.index(int(run[-1]), last))
        self.view.selectionModel().select(selection, QItemSelectionModel.ClearAndSelect)

    def _selection_changed(self):
        self.rule_plot.highlight(self.selected_rules())
        self.commit.deferred()

    # ------------------------------------------------------------ why this prediction
    def explainable(self) -> bool:
        """Whether the box "Why this prediction" applies: a model of the
        add-on (:meth:`RuleModel.explain`) and rows to explain."""
        return (isinstance(self._model, RuleModel) and self.shown_data is not None
                and len(self.shown_data) > 0)

    def _prepare_why(self):
        shown = self.explainable()
        self.why_box.setVisible(shown)
        if not shown:
            self.rule_model.set_only(None)
            return
        self.why_spin.setMaximum(len(self.shown_data))
        self.why_row = min(max(self.why_row, 1), len(self.shown_data))
        # in a later turn of the event loop: the canvas may redraw between
        # the table's update and the explanation (a model of 10,000 rules)
        QTimer.singleShot(0, self._explain_row)

    def explanation(self):
        """:class:`Explanation` of the row chosen in "Why this prediction"
        (``None`` when the box does not apply)."""
        if not self.explainable():
            return None
        i = int(self.why_row) - 1
        try:
            return self._model.explain(self.shown_data[i:i + 1])[0]
        except NotImplementedError:  # a RuleModel from outside the add-on
            return None

    def _explain_row(self):
        """The chosen row's explanation in words and, with "List only its
        rules", the table limited to its rules."""
        exp = self.explanation()
        if exp is None:
            self.why_label.setText("")
            self.rule_model.set_only(None)
            return
        self.why_label.setText(self.explanation_html(exp))
        self.rule_model.set_only(exp.rules if self.why_rules_only else None)

    def explanation_html(self, exp, top=5) -> str:
        """The box's text, from the same reasons as the annotated data's
        Why column (:meth:`Explanation.reasons`): the predicted class and its
        probability, the actual class (when known), the ``top`` rules for
        the prediction (with their move toward it) and against it, and what
        decided when no rule supports it."""
        model = self._model
        cv = model.domain.class_var
        why = exp.reasons(model)
        lines = [f"<b>{escape(cv.name)} = {escape(cv.values[why.predicted])}</b> "
                 f"(probability {why.probability:.3f})"]
        row = int(self.why_row) - 1
        shown_cv = self.shown_data.domain.class_var
        if shown_cv is not None and np.isfinite(self.shown_data.Y[row]):
            lines.append(f"actual: {escape(shown_cv.values[int(self.shown_data.Y[row])])}")
        favours, against = (self.table.heads, self.table.against) if self.table is not None \
            else model.rule_directions()

        def items(reasons, side):
            out = []
            for k, move in reasons[:top]:
                conds = self.table.conditions[k] if self.table is not None else []
                text = " AND ".join(conds) if conds else "TRUE"
                head = head_text(model.domain, int(favours[k]), bool(against[k]))
                out.append(f"<li><b>{move:+.3f}</b> rule {k + 1}: {escape(text)} "
                           f"→ {escape(head)}</li>")
            more = len(reasons) - top
            if more > 0:
                out.append(f"<li>… and {more} more {side}</li>")
            return "<ul style='margin-left: -20px; margin-top: 0px'>" + "".join(out) + "</ul>"
        html = "<br/>".join(lines)
        if why.supporting:
            html += f"<br/>For it ({escape(why.unit)}):" + items(why.supporting, "for it")
        if why.opposing:
            html += ("" if why.supporting else "<br/>") + "Against it:" \
                + items(why.opposing, "against it")
        tail = ""
        if why.decided_by is not None:
            tail = f"No firing rule supports it; {escape(why.decided_by)}."
        elif why.without is not None and np.isfinite(why.without):
            tail = f"{escape(why.base_label[:1].upper() + why.base_label[1:])}: " \
                   f"{why.without:+.3f}."
        if tail:
            html += ("<br/>" if not (why.supporting or why.opposing) else "") + tail
        return html

    # ------------------------------------------------------------ save
    def save_rules(self, path=None):
        """Save the model as SQL or JSON (:func:`export.save_model`, by the
        extension); ``path``: the file (default: asked in a dialog)."""
        from AnyQt.QtWidgets import QFileDialog
        from orangecontrib.rules.export import FORMATS, save_model
        self.Error.save_failed.clear()
        if not isinstance(self._model, RuleModel):
            return
        if path is None:
            filters = [f"{what} (*{ext})" for ext, what in FORMATS.items()]
            path, chosen = QFileDialog.getSaveFileName(
                self, "Save rules", "rules.sql", ";;".join(filters))
            if not path:
                return
            if not path.lower().endswith(tuple(FORMATS)):  # the filter's extension
                path += next(ext for ext, what in FORMATS.items() if chosen.startswith(what))
        try:
            save_model(self._model, path)
        except (OSError, ValueError) as exc:
            self.Error.save_failed(str(exc))

    # ------------------------------------------------------------ outputs
    @gui.deferred
    def commit(self):
        data, cover = self.shown_data, self.cover
        if data is None or cover is None:
            self.Outputs.selected_data.send(None)
            self.Outputs.annotated_data.send(None)
            return
        rules = self.selected_rules()
        rows = viewer.rows_covered(cover, rules)
        self.Outputs.selected_data.send(data[rows] if len(rows) else None)
        names = [v.name for v in data.domain.variables + data.domain.metas]
        # Orange's "Selected" column and the viewer's, in one transformation
        selected = np.zeros(len(data))
        selected[rows] = 1
        selected_var = DiscreteVariable(get_unique_names(names, ANNOTATED_DATA_FEATURE_NAME),
                                        values=("No", "Yes"))
        names.append(selected_var.name)
        if self._firing is None:  # once per inputs, not per selection
            self._firing = viewer.firing_text(cover, viewer.listed_mask(self._prepared.model)
                                              if self._prepared is not None else None)
        firing = self._firing
        fire_var = StringVariable(get_unique_names(names, "Rules firing"))
        extra = [(selected_var, selected), (fire_var, firing)]
        why = None if self._prepared is None else self._prepared.why
        if why is not None:  # the rules that decide each row's prediction
            why_var = StringVariable(get_unique_names(names + [fire_var.name], "Why"))
            extra.append((why_var, why))
        for k in rules[:20]:  # one yes/no column per selected rule
            var = DiscreteVariable(get_unique_names(names, f"Rule {k + 1}"),
                                   values=("no", "yes"))
            extra.append((var, cover[:, k].astype(float)))
        annotated = with_metas(data, extra)
        annotated.name = data.name
        self.Outputs.annotated_data.send(annotated)

    # ------------------------------------------------------------ plots
    def _fill_class_combo(self):
        self.class_combo.clear()
        if self._model is not None and viewer.plot_kind(self._model) == "hull":
            values = self._model.domain.class_var.values
            self.class_combo.addItems(values)
            self.plot_class = min(self.plot_class, len(values) - 1)
            self.class_combo.setCurrentIndex(self.plot_class)

    def _set_plot_visible(self, visible):
        self.plot.setVisible(visible)
        self.plot_box.setVisible(visible)

    def _draw_plot(self):
        """The plot of the model and data (their data computed once, in
        :func:`prepare`), the selected rules ringed."""
        data = None if self._prepared is None else self._prepared.plot
        kind = None if data is None else data.kind
        self._set_plot_visible(kind is not None)
        self.class_box.setVisible(kind == "hull")
        source = "input data" if self.shown_data is self.data else "training data"
        self.rule_plot.draw(self._model, data, self.plot_class, source,
                            0 if self.shown_data is None else len(self.shown_data))
        self.rule_plot.highlight(self.selected_rules())

    # ------------------------------------------------------------ report
    def send_report(self):
        if self._model is None:
            return
        ours = isinstance(self._model, RuleModel)
        rules, conditions = (self._model.size if ours
                             else (len(self._model.rule_list), None))
        terms = self._model.attribute_terms if ours else 0
        self.report_items("Model", [("Rules", rules), ("Conditions", conditions)]
                          + ([("Attribute weights", terms)] if terms else [])
                          + [("Type", type(self._model).__name__)])
        self.report_table("Rules", self.view)
        if self.plot.isVisible():
            self.report_plot("Plot", self.plot)


def with_metas(table, columns):
    """``table`` with the ``(variable, values)`` of ``columns`` added as
    metas, in one transformation (``Table.add_column`` for each would copy
    the table once per column: a tenth of a second on 19,000 rows)."""
    domain = Domain(table.domain.attributes, table.domain.class_vars,
                    table.domain.metas + tuple(var for var, _ in columns))
    out = table.transform(domain)
    with out.unlocked(out.metas):
        for var, values in columns:
            out.set_column(var, values)
    return out


if __name__ == "__main__":  # pragma: no cover
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    from orangecontrib.rules import ROCCERLearner
    heart = Table("heart_disease")
    WidgetPreview(OWRulesViewer).run(set_model=ROCCERLearner()(heart), set_data=heart)
