"""Rule Viewer: the rules of any model of this add-on (and Orange's CN2),
with each model's own numbers, the rows they cover, and a plot per model
type (ROCCER's ROC convex hull, SLS's abstention curve and bound, EVC's
corrected vs raw probability)."""
import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import (QAbstractTableModel, QItemSelection, QItemSelectionModel,
                          QModelIndex, Qt, QTimer, Signal)
from AnyQt.QtGui import QColor, QKeySequence
from AnyQt.QtWidgets import (QAbstractItemView, QAction, QApplication, QComboBox,
                             QHeaderView, QLineEdit, QSpinBox, QSplitter, QTableView)

from Orange.data import DiscreteVariable, Domain, StringVariable, Table
from Orange.data.util import get_unique_names
from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.annotated_data import (ANNOTATED_DATA_SIGNAL_NAME,
                                                 create_annotated_table)
from Orange.widgets.utils.concurrent import ConcurrentWidgetMixin
from Orange.widgets.widget import Input, Msg, Output, OWWidget

from orangecontrib.rules import viewer
from orangecontrib.rules.base import RuleModel

try:  # Orange's rule models (CN2) and all of this add-on's share this base
    from Orange.classification.rules import _RuleClassifier as RuleModelBase
except ImportError:  # pragma: no cover
    RuleModelBase = RuleModel

SORT_ROLE = Qt.UserRole + 1
RULE_ROLE = Qt.UserRole + 2
FIXED_HEADERS = ("#", "Conditions", "Class", "Distribution", "Covered")
#: rows whose contents set the columns' widths (the first ones in view order)
WIDTH_SAMPLE = 200
#: the least distance (in rates) between numbered points of a ROC hull
LABEL_GAP = 0.04
#: the widest the left panel's texts get (pixels)
INFO_WIDTH = 300
#: rows x rules, or rows, above which the coverage, the statistics and the
#: explanations are computed in a thread (the canvas stays responsive);
#: smaller inputs are shown at once
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
    output and the text of the rules firing on each row. ``state``: the
    thread's :class:`TaskState` (interruptible between the steps)."""
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
    step(0.4)
    out.table = viewer.rule_table(model)
    out.dists = viewer.class_distributions(model, out.shown_data, out.cover)
    step(0.6)
    out.rules_table = viewer.rules_as_table(model, out.shown_data, out.cover,
                                            table=out.table, dists=out.dists)
    step(0.7)
    if out.cover is not None:
        out.firing = viewer.firing_text(out.cover)
        if len(out.shown_data) <= EXPLAIN_ROWS:
            step(0.85)
            out.why = viewer.explanation_text(model, out.shown_data)
    return out


class RuleTableModel(QAbstractTableModel):
    """The Rule Viewer's table, served from arrays: a cell's text is made
    only when the view shows it, so a model of 10,000 rules is listed at
    once; sorting and filtering reorder an array of rows (the selection
    follows its rules).

    Columns: ``#`` (the rule's number in ``rule_list``), *Conditions*,
    *Class*, *Distribution* and *Covered* on the shown data, then the
    model's own numbers (:meth:`RuleModel.viewer_columns`)."""

    #: emitted before the rows are reordered or filtered, before Qt's
    #: layoutAboutToBeChanged (the view sets the row heights again after)
    rows_about_to_move = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._set_empty()

    def _set_empty(self):
        self.headers, self.tooltips = list(FIXED_HEADERS), [""] * len(FIXED_HEADERS)
        self.rules = np.zeros(0, dtype=int)   # rule index (rule_list) of each listed rule
        self.order = np.zeros(0, dtype=int)   # the listed rules shown, in view order
        self.conditions, self.class_names, self.colors = [], [], None
        self.prefixes = None
        self.heads = np.zeros(0, dtype=int)
        self.dist = np.zeros((0, 0))
        self.columns = []                     # (values, decimals) of the model's numbers
        self.keys = []                        # per column: the sort key of each listed rule
        self.compact = False
        self.words, self.class_filter = (), -1
        self.min_covered, self.top = 0, 0
        self.only = None                      # rule_list indices to show (None: all)
        self.sort_column, self.sort_order = -1, Qt.AscendingOrder
        self._search = []                     # per listed rule: its text for the filter

    def clear(self):
        self.beginResetModel()
        self._set_empty()
        self.endResetModel()

    def set_rules(self, rules, conditions, heads, class_var, dist, columns, prefixes=None,
                  row_columns=()):
        """``rules``: indices into ``rule_list`` of the rules to list (a
        rule may be listed more than once: SLS by rule set);
        ``conditions``, ``heads``, ``dist``: theirs (condition strings,
        class index, class counts on the shown data); ``columns``: the
        model's :class:`viewer.Column` s over all rules; ``prefixes``: a
        decision list's IF / ELSE IF / ELSE of the listed rules;
        ``row_columns``: columns over the listed rows, shown first."""
        self.beginResetModel()
        self.prefixes = prefixes
        rules = np.asarray(rules, dtype=int)
        self.rules, self.order = rules, np.arange(len(rules))
        self.conditions = list(conditions)
        self.heads = np.asarray(heads, dtype=int)
        self.class_names = list(class_var.values)
        colors = getattr(class_var, "colors", None)
        self.colors = None if colors is None else [QColor(*c) for c in colors]
        self.dist = np.asarray(dist, dtype=float).reshape(len(rules), len(self.class_names))
        columns = list(row_columns) + list(columns)
        self.headers = list(FIXED_HEADERS) + [c.name for c in columns]
        self.tooltips = [""] * len(FIXED_HEADERS) + [c.tooltip for c in columns]
        self.columns = [(np.asarray(c.values, dtype=float), c.decimals) for c in row_columns]
        self.columns += [(np.asarray(c.values, dtype=float)[rules], c.decimals)
                         for c in columns[len(row_columns):]]
        covered = self.dist.sum(axis=1)
        self.covered_decimals = 0 if _is_int(covered) else 1
        head_share = np.divide(self.dist[np.arange(len(rules)), self.heads], covered,
                               out=np.zeros(len(rules)), where=covered > 0)
        text = np.array([self._conditions_text(r, " AND ") for r in range(len(rules))],
                        dtype=object)
        self.keys = [rules, text, np.array([self.class_names[h] for h in self.heads],
                                           dtype=object), head_share, covered]
        self.keys += [np.where(np.isnan(v), -np.inf, v) for v, _ in self.columns]
        self._search = [f"{t} {self.class_names[h]}".lower()
                        for t, h in zip(text, self.heads)]
        self._arrange()
        self.endResetModel()

    # ------------------------------------------------------------ Qt's model
    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.order)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation != Qt.Horizontal or not 0 <= section < len(self.headers):
            return None
        if role == Qt.DisplayRole:
            return self.headers[section]
        if role == Qt.ToolTipRole:
            return self.tooltips[section] or None
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        r, col = int(self.order[index.row()]), index.column()
        if role == Qt.DisplayRole:
            return self._text(r, col)
        if role == SORT_ROLE:
            key = self.keys[col][r]
            return key if isinstance(key, str) else float(key)
        if role == RULE_ROLE:
            return int(self.rules[r])
        if role == Qt.ToolTipRole:
            if col == 1:
                return self._conditions_text(r, " AND\n")
            if col == 3:
                return "\n".join(f"{v}: {_count(x)}"
                                 for v, x in zip(self.class_names, self.dist[r]))
            return None
        if role == Qt.DecorationRole and col == 2 and self.colors is not None:
            return self.colors[self.heads[r]]
        if role == Qt.TextAlignmentRole and (col in (0, 4) or col >= len(FIXED_HEADERS)):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def _text(self, r, col):
        if col == 0:
            return str(self.rules[r] + 1)
        if col == 1:
            return self._conditions_text(r, " AND " if self.compact else " AND\n")
        if col == 2:
            return self.class_names[self.heads[r]]
        if col == 3:
            return " : ".join(_count(x) for x in self.dist[r])
        if col == 4:
            return _number(self.keys[4][r], self.covered_decimals)
        values, decimals = self.columns[col - len(FIXED_HEADERS)]
        return _number(values[r], decimals)

    def _conditions_text(self, r, sep):
        conds = self.conditions[r]
        text = sep.join(conds) if conds else ""
        if self.prefixes is not None:  # a decision list: IF / ELSE IF / ELSE
            return f"{self.prefixes[r]} {text}".strip()
        return text or "TRUE"

    def sort(self, column, order=Qt.AscendingOrder):
        self.sort_column, self.sort_order = column, order
        self._relayout()

    # ------------------------------------------------------------ the rows shown
    def set_filter(self, text=None, class_index=None, min_covered=None, top=None):
        """Keep the rules whose conditions or class contain every word of
        ``text`` (case ignored), whose class is ``class_index`` (if ``>=
        0``), that cover at least ``min_covered`` rows, and of those the
        first ``top`` in the current order (``0``: all); ``None`` keeps
        that part as it is."""
        if text is not None:
            self.words = tuple(text.lower().split())
        if class_index is not None:
            self.class_filter = class_index
        if min_covered is not None:
            self.min_covered = min_covered
        if top is not None:
            self.top = top
        self._relayout()

    def set_only(self, rules):
        """Show only the rules ``rules`` (``rule_list`` indices; ``None``:
        no such limit), with the other filters."""
        only = None if rules is None else np.asarray(rules, dtype=int)
        if only is None and self.only is None:
            return  # nothing to do: relaying out 10,000 rules is not free
        self.only = only
        self._relayout()

    def set_compact(self, compact):
        self.compact = compact
        if len(self.order):
            self.dataChanged.emit(self.index(0, 1), self.index(len(self.order) - 1, 1))

    def line_counts(self):
        """Lines of each shown row's conditions, in view order."""
        if self.compact:
            return np.ones(len(self.order), dtype=int)
        return np.array([max(1, len(self.conditions[r])) for r in self.order], dtype=int)

    def view_rows(self, rules):
        """The view rows (ascending) of the rules ``rules`` (``rule_list``
        indices) that are shown."""
        return np.flatnonzero(np.isin(self.rules[self.order], list(rules)))

    def _arrange(self):
        n = len(self.rules)
        keep = np.ones(n, dtype=bool)
        if self.class_filter >= 0:
            keep &= self.heads == self.class_filter
        if self.words:
            keep &= np.array([all(w in t for w in self.words) for t in self._search], dtype=bool)
        if self.min_covered > 0 and n:
            keep &= self.keys[4] >= self.min_covered
        if self.only is not None:
            keep &= np.isin(self.rules, self.only)
        if 0 <= self.sort_column < len(self.keys):
            key = self.keys[self.sort_column]
            order = np.argsort(key, kind="stable")
            if self.sort_order == Qt.DescendingOrder:
                order = order[::-1]
        else:
            order = np.arange(n)
        self.order = order[keep[order]]
        if self.top > 0:
            self.order = self.order[:self.top]

    def _relayout(self):
        self.rows_about_to_move.emit()
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        rules_of = [int(self.order[i.row()]) for i in old]
        self._arrange()
        row_of = np.full(len(self.rules), -1)
        row_of[self.order] = np.arange(len(self.order))
        new = [self.index(int(row_of[r]), i.column()) if row_of[r] >= 0 else QModelIndex()
               for r, i in zip(rules_of, old)]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()


class OWRulesViewer(OWWidget, ConcurrentWidgetMixin):
    name = "Rule Viewer"
    description = "Shows the rules of any rule model with the model's own " \
                  "numbers (confidence, corrected quality, coefficient, " \
                  "ensemble weight, ROC point), outputs the rows the selected " \
                  "rules cover, and plots ROC hulls, abstention curves and " \
                  "EVC corrections."
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
        incompatible_data = Msg("The data does not fit the model ({}); "
                                "showing the training data.")

    class Information(OWWidget.Information):
        training_data = Msg("No data on the input: coverage is on the "
                            "model's training data.")
        not_explained = Msg("The annotated data has no 'Why' column above {} rows "
                            "(model.explain(data) in Python explains any number).")

    compact_view = Setting(False)  # full conditions, one per line, as Orange's CN2 viewer
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
        self._tall_rows = False  # rows sized for one condition per line
        self._firing = None     # per shown row: the rules firing, as text
        self._prepared = None   # Prepared: what the table and outputs show

        self.info_label = gui.widgetLabel(gui.vBox(self.controlArea, "Model"),
                                          "No model on input.")
        self.info_label.setWordWrap(True)
        # a long summary wraps instead of widening the panel over the table
        self.info_label.setMaximumWidth(INFO_WIDTH)
        box = gui.vBox(self.controlArea, "Display")
        self.compact_check = gui.checkBox(
            box, self, "compact_view", "Compact conditions",
            tooltip="Show each rule's conditions on one line, or one "
                    "condition per line.", callback=self._show_conditions)
        self.unused_check = gui.checkBox(
            box, self, "show_unused", "Show rules of weight 0",
            tooltip="LR with rules: also list the rules the fit gave no weight "
                    "(they do not change any prediction).",
            callback=self._listing_changed)
        self.group_check = gui.checkBox(
            box, self, "group_sets", "Group rules by rule set",
            tooltip="SLS ensembles: list the rules rule set by rule set, the "
                    "heaviest first, with each set's weight (a rule in several "
                    "sets is listed in each).", callback=self._listing_changed)
        self.why_box = gui.vBox(self.controlArea, "Why this prediction")
        row = gui.hBox(self.why_box)
        self.why_row = 1
        self.why_spin = gui.spin(
            row, self, "why_row", 1, 1, label="Row:", callback=self._explain_row,
            tooltip="A row of the data on the input (or of the training data): "
                    "its prediction, and the rules that move it most.")
        self.why_only_check = gui.checkBox(
            row, self, "why_rules_only", "List its rules only",
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
            orientation=Qt.Horizontal, callback=self._update_plot,
            tooltip="The class whose ROC convex hull is drawn.")
        self.plot_note = gui.widgetLabel(self.plot_box, "")
        self.plot_note.setWordWrap(True)
        self.plot_note.setMaximumWidth(INFO_WIDTH)
        gui.rubber(self.controlArea)
        gui.auto_send(self.buttonsArea, self, "auto_commit")

        self.rule_model = RuleTableModel(self)
        self.view = QTableView(
            selectionBehavior=QAbstractItemView.SelectRows,
            selectionMode=QAbstractItemView.ExtendedSelection,
            sortingEnabled=True, wordWrap=True)
        self.view.setModel(self.rule_model)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.Interactive)
        header.setResizeContentsPrecision(WIDTH_SAMPLE)
        header.setSortIndicator(-1, Qt.AscendingOrder)
        self.view.setTextElideMode(Qt.ElideRight)
        self.rule_model.rows_about_to_move.connect(self._forget_row_heights)
        self.rule_model.layoutChanged.connect(self._set_row_heights)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        copy = QAction("Copy rules", self.view, shortcut=QKeySequence.Copy,
                       shortcutContext=Qt.WidgetWithChildrenShortcut)
        copy.triggered.connect(self.copy_selected)
        self.view.addAction(copy)

        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(220)
        self.plot.setMenuEnabled(False)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setPen("#444444")
            self.plot.getAxis(axis).setTextPen("#222222")
        self.filter_edit = QLineEdit(
            placeholderText="Filter rules: words from their conditions or class "
                            "(e.g. \"age female\")", clearButtonEnabled=True)
        self.filter_edit.textChanged.connect(
            lambda text: self.rule_model.set_filter(text=text))
        self.class_filter = QComboBox(
            toolTip="Show the rules of one class only.", minimumContentsLength=8,
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
            minimum=0, maximum=10 ** 6, specialValueText="all", prefix="top ",
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
        self.splitter.setSizes([400, 260])
        self.mainArea.layout().addWidget(filter_row)
        self.mainArea.layout().addWidget(self.splitter)
        self._set_plot_visible(False)

    def sizeHint(self):
        return super().sizeHint().expandedTo(pg.QtCore.QSize(1150, 700))

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
            if (self.shown_data is not None and len(self.shown_data) > EXPLAIN_ROWS
                    and isinstance(prepared.model, RuleModel)):
                self.Information.not_explained(f"{EXPLAIN_ROWS:,}")
        self._fill_table()
        self._fill_class_combo()
        self._prepare_why()
        self._update_plot()
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
            summary.append(f"{used.sum()} of {len(used)} rules have a non-zero weight"
                           + ("." if self.show_unused else "; the others are hidden."))
        self.info_label.setText("\n".join(summary))
        self.table = table = self._prepared.table
        class_var = model.domain.class_var
        dists = self._prepared.dists
        rules, columns, row_columns = np.flatnonzero(listed), table.columns, []
        by_set = viewer.rule_set_rows(model)
        self.group_check.setEnabled(by_set is not None)
        if by_set is not None and self.group_sets:  # its own columns, over the rows
            (rules, row_columns), columns = by_set, []
        self.class_filter.addItems(["All classes"] + list(class_var.values))
        self.rule_model.words, self.rule_model.class_filter = (), -1
        self.rule_model.min_covered = self.min_covered_spin.value()
        self.rule_model.top = self.top_spin.value()
        self.rule_model.set_rules(
            rules, [table.conditions[i] for i in rules], table.heads[rules], class_var,
            dists[rules], columns,
            None if table.prefixes is None else [table.prefixes[i] for i in rules],
            row_columns)
        self.rule_model.set_filter(text=self.filter_edit.text())
        self._show_conditions()

    def _listing_changed(self):
        self._fill_table()
        self._update_plot()
        self.commit.deferred()

    def _show_conditions(self):
        """One line per rule or one condition per line; the columns fit the
        first rows' contents and *Conditions* takes the space left."""
        self.rule_model.set_compact(self.compact_view)
        self.view.setWordWrap(not self.compact_view)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.Interactive)
        self.view.resizeColumnsToContents()
        if self.rule_model.columnCount() > 1:
            header.setSectionResizeMode(1, QHeaderView.Stretch)
        self._set_row_heights()

    def _forget_row_heights(self):
        """Every row back to the default height before a sort or filter:
        otherwise Qt keeps each row's height through the move (a
        persistent index per row, 0.4 s for 10,000 rules), only for
        :meth:`_set_row_heights` to set them anew."""
        if self._tall_rows:
            vh = self.view.verticalHeader()
            vh.setDefaultSectionSize(vh.defaultSectionSize())  # every row, at once
            self._tall_rows = False

    def _set_row_heights(self):
        """Rows as high as their lines (set from the number of conditions,
        not measured row by row, which takes seconds for thousands of
        rules): every row one line high (Qt's default size, which it gives
        every row at once), then the rules of several conditions, with the
        view's repaints held till the end."""
        vh = self.view.verticalHeader()
        line = self.view.fontMetrics().lineSpacing()
        vh.setDefaultSectionSize(line + 8)
        self._tall_rows = False
        counts = self.rule_model.line_counts()  # 1 when compact
        tall = np.flatnonzero(counts > 1)
        if not len(tall):
            return
        self.view.setUpdatesEnabled(False)
        try:
            for row in tall:
                vh.resizeSection(int(row), line * int(counts[row]) + 8)
        finally:
            self.view.setUpdatesEnabled(True)
        self._tall_rows = True

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
        the table's order (what Ctrl+C copies)."""
        if self.table is None:
            return ""
        model = self.rule_model
        cv = self._model.domain.class_var
        lines = []
        rows = model.rules[model.order[self._selected_view_rows()]]
        for k in dict.fromkeys(int(k) for k in rows):  # a rule once (SLS by set)
            conds = self.table.conditions[k]
            lines.append(f"IF {' AND '.join(conds) if conds else 'TRUE'} "
                         f"THEN {cv.name} = {cv.values[self.table.heads[k]]}")
        return "\n".join(lines)

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
        self._update_plot()
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
        """The chosen row's explanation in words and, with "List its rules
        only", the table limited to its rules."""
        exp = self.explanation()
        if exp is None:
            self.why_label.setText("")
            self.rule_model.set_only(None)
            return
        self.why_label.setText(self.explanation_html(exp))
        self.rule_model.set_only(exp.rules if self.why_rules_only else None)

    def explanation_html(self, exp, top=5) -> str:
        """The box's text: the predicted class and its probability, the
        actual class (when known), then the ``top`` rules that move the
        prediction most (:meth:`Explanation.effects`)."""
        from html import escape
        model = self._model
        cv = model.domain.class_var
        c, p, effect, unit = exp.effects(model)
        lines = [f"<b>{escape(cv.name)} = {escape(cv.values[c])}</b> "
                 f"(probability {p[c]:.3f})"]
        row = int(self.why_row) - 1
        shown_cv = self.shown_data.domain.class_var
        if shown_cv is not None and np.isfinite(self.shown_data.Y[row]):
            lines.append(f"actual: {escape(shown_cv.values[int(self.shown_data.Y[row])])}")
        # rules the table shows apart (SLIPPER's default rules) count with
        # the part that does not depend on the row's conditions
        apart = np.asarray(model.set_apart(), dtype=bool)[np.asarray(exp.rules, dtype=int)]
        if exp.combine in ("softmax", "sigmoids") and len(p) > 1:
            # on the same scale: what the model says before any rule fires
            second = int(np.argsort(-p, kind="stable")[1])
            lines.append(f"Without rules (intercepts, attributes, default rules): "
                         f"{exp.base[c] - exp.base[second] + effect[apart].sum():+.3f}")
        shown = np.flatnonzero(~apart)
        if not len(shown):
            lines.append("No rule contributes: the part without rules decides.")
            return "<br/>".join(lines)
        lines.append(f"Rules that move it most ({escape(unit)}):")
        items = []
        for j in shown[np.argsort(-np.abs(effect[shown]), kind="stable")][:top]:
            k = int(exp.rules[j])
            conds = self.table.conditions[k] if self.table is not None else []
            text = " AND ".join(conds) if conds else "TRUE"
            items.append(f"<li><b>{effect[j]:+.3f}</b> rule {k + 1}: {escape(text)}</li>")
        more = len(shown) - top
        tail = f"… and {more} more rules" if more > 0 else ""
        return "<br/>".join(lines) + "<ul style='margin-left: -20px'>" + "".join(items) \
            + "</ul>" + tail

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
        annotated = create_annotated_table(data, rows)
        names = [v.name for v in annotated.domain.variables + annotated.domain.metas]
        if self._firing is None:  # once per inputs, not per selection
            self._firing = viewer.firing_text(cover)
        firing = self._firing
        fire_var = StringVariable(get_unique_names(names, "Rules firing"))
        extra = [(fire_var, firing)]
        why = None if self._prepared is None else self._prepared.why
        if why is not None:  # the rules that decide each row's prediction
            why_var = StringVariable(get_unique_names(names + [fire_var.name], "Why"))
            extra.append((why_var, why))
        for k in rules[:20]:  # one yes/no column per selected rule
            var = DiscreteVariable(get_unique_names(names, f"Rule {k + 1}"),
                                   values=("no", "yes"))
            extra.append((var, cover[:, k].astype(float)))
        self.Outputs.annotated_data.send(with_metas(annotated, extra))

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

    def _update_plot(self):
        self.plot.clear()
        if self.plot.plotItem.legend is not None:
            self.plot.plotItem.legend.scene().removeItem(self.plot.plotItem.legend)
            self.plot.plotItem.legend = None
        kind = None if self._model is None else viewer.plot_kind(self._model)
        self._set_plot_visible(kind is not None)
        self.class_box.setVisible(kind == "hull")
        if kind == "hull":
            self._plot_hull()
        elif kind == "abstention":
            self._plot_abstention()
        elif kind == "evc":
            self._plot_evc()

    def _plot_hull(self):
        model = self._model
        cls = self.plot_class
        points, entries = viewer.hull_points(model, cls)
        color = QColor(*model.domain.class_var.colors[cls])
        selected = set(self.selected_rules())
        plot = self.plot
        plot.setLabel("bottom", "False positive rate")
        plot.setLabel("left", "True positive rate")
        class_var = model.domain.class_var
        plot.setTitle(f"ROC convex hull of the rules for {class_var.name} = "
                      f"{class_var.values[cls]}", color="#222222")
        plot.plot([0, 1], [0, 1], pen=pg.mkPen("#999999", width=1, style=Qt.DashLine))
        plot.plot(points[:, 0], points[:, 1], pen=pg.mkPen(color, width=2),
                  symbol="o", symbolSize=8, symbolBrush=color, symbolPen=color)
        last = None  # the last labelled point: close points are not labelled
        for e, rules in enumerate(entries):
            x, y = points[e + 1]
            if last is None or np.hypot(x - last[0], y - last[1]) > LABEL_GAP:
                label = pg.TextItem(str(e + 1), color="k", anchor=(1.1, -0.1))
                label.setPos(x, y)
                plot.addItem(label)
                last = (x, y)
            if selected & set(rules):
                plot.plot([x], [y], pen=None, symbol="o", symbolSize=15,
                          symbolBrush=None, symbolPen=pg.mkPen("k", width=2))
        plot.setXRange(0, 1)
        plot.setYRange(0, 1)
        self.plot_note.setText(f"{len(entries)} rules on the hull; numbers are "
                               "positions in the class's rule list (points too "
                               "close to the last numbered one are not numbered).")

    def _plot_abstention(self):
        model = self._model
        plot = self.plot
        plot.setLabel("bottom", "Abstention threshold θ (margin)")
        plot.setLabel("left", "Rate")
        plot.setTitle("Abstention curve" + (" and bound" if model.voting_bound
                                            is not None else ""), color="#222222")
        plot.addLegend(offset=(60, 45), labelTextColor="#222222")
        if self.shown_data is None:
            self.plot_note.setText("Needs data to draw the curve.")
            return
        theta, error, abstain, bound = viewer.abstention_curve(model, self.shown_data)
        ok = ~np.isnan(error)
        plot.plot(theta[ok], error[ok], pen=pg.mkPen("#d62728", width=2),
                  name="error on classified")
        plot.plot(theta, abstain, pen=pg.mkPen("#7f7f7f", width=2),
                  name="abstention rate")
        if bound is not None:
            plot.plot(theta, bound, pen=pg.mkPen("#1f77b4", width=2, style=Qt.DashLine),
                      name="bound (Thm. 3)")
        plot.setXRange(0, 2)
        plot.setYRange(0, 1)
        source = "input data" if self.shown_data is self.data else "training data"
        self.plot_note.setText(f"Curve on the {source} ({len(self.shown_data)} rows).")

    def _plot_evc(self):
        model = self._model
        raw, q, heads = viewer.evc_points(model)
        colors = model.domain.class_var.colors
        selected = np.zeros(len(raw), bool)
        selected[self.selected_rules()] = True
        plot = self.plot
        plot.setLabel("bottom", "Raw relative frequency")
        plot.setLabel("left", "EVC-corrected probability")
        plot.setTitle("Extreme-value correction of each rule", color="#222222")
        plot.plot([0, 1], [0, 1], pen=pg.mkPen("#999999", width=1, style=Qt.DashLine))
        ok = ~np.isnan(raw)
        # top left: the points lie below the diagonal
        plot.addLegend(offset=(70, 10), labelTextColor="#222222")
        # one item per class (one symbol each, drawn once however many
        # rules), the selected rules ringed by one more on top
        for c, value in enumerate(model.domain.class_var.values):
            mask = ok & (heads == c)
            if mask.any():
                plot.addItem(pg.ScatterPlotItem(
                    x=raw[mask], y=q[mask], brush=pg.mkBrush(*colors[c], 200),
                    pen=pg.mkPen(None), size=9, name=value))
        ring = ok & selected
        if ring.any():
            plot.addItem(pg.ScatterPlotItem(x=raw[ring], y=q[ring], brush=pg.mkBrush(None),
                                            pen=pg.mkPen("k", width=2), size=14))
        lo = np.nanmin(np.concatenate([raw[ok], q[ok], [1.0]]))
        lo = max(0.0, lo - 0.05)
        plot.setXRange(lo, 1.0)
        plot.setYRange(lo, 1.0)
        self.plot_note.setText("Points below the diagonal: rules whose "
                               "apparent accuracy the search overestimated.")

    # ------------------------------------------------------------ report
    def send_report(self):
        if self._model is None:
            return
        self.report_items("Model", [("Rules", len(self._model.rule_list)),
                                    ("Type", type(self._model).__name__)])
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


def _is_int(x):
    return bool(np.all(np.asarray(x) == np.round(x)))


def _number(value, decimals):
    value = float(value)
    if np.isnan(value):
        return ""
    return f"{value:.{decimals}f}" if decimals else str(int(round(value)))


def _count(x):
    return str(int(round(x))) if float(x).is_integer() else f"{x:.1f}"


if __name__ == "__main__":  # pragma: no cover
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    from orangecontrib.rules import ROCCERLearner
    heart = Table("heart_disease")
    WidgetPreview(OWRulesViewer).run(set_model=ROCCERLearner()(heart), set_data=heart)
