"""Rule Viewer: the rules of any model of this add-on (and Orange's CN2),
with each model's own numbers, the rows they cover, and a plot per model
type (ROCCER's ROC convex hull, SLS's abstention curve and bound, EVC's
corrected vs raw probability)."""
import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import QItemSelection, QItemSelectionModel, QSortFilterProxyModel, Qt
from AnyQt.QtGui import QColor, QKeySequence, QStandardItem, QStandardItemModel
from AnyQt.QtWidgets import (QAbstractItemView, QAction, QApplication, QHeaderView,
                             QLineEdit, QSplitter, QTableView)

from Orange.data import DiscreteVariable, StringVariable, Table
from Orange.data.util import get_unique_names
from Orange.widgets import gui
from Orange.widgets.settings import Setting
from Orange.widgets.utils.annotated_data import (ANNOTATED_DATA_SIGNAL_NAME,
                                                 create_annotated_table)
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
MAX_CONDITIONS_WIDTH = 440


class RuleFilter(QSortFilterProxyModel):
    """Rows whose conditions or class contain every word of ``words``
    (case ignored)."""

    words = ()

    def set_text(self, text):
        self.words = tuple(text.lower().split())
        self.invalidateFilter()

    def filterAcceptsRow(self, row, parent):
        if not self.words:
            return True
        source = self.sourceModel()
        text = " ".join(source.index(row, col, parent).data() or "" for col in (1, 2))
        text = text.lower()
        return all(word in text for word in self.words)


class OWRulesViewer(OWWidget):
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

    compact_view = Setting(True)
    show_unused = Setting(False)
    plot_class = Setting(0)
    auto_commit = Setting(True)

    want_main_area = True

    def __init__(self):
        super().__init__()
        self.data = None
        self.model = None
        self._model = None      # the input model, if the viewer can show it
        self.shown_data = None  # the table coverage is computed on
        self.cover = None       # (n rows of shown_data, n rules)
        self.table = None       # viewer.RuleTable

        self.info_label = gui.widgetLabel(gui.vBox(self.controlArea, "Model"),
                                          "No model on input.")
        self.info_label.setWordWrap(True)
        box = gui.vBox(self.controlArea, "Display")
        self.compact_check = gui.checkBox(
            box, self, "compact_view", "Compact conditions",
            tooltip="Show each rule's conditions on one line, or one "
                    "condition per line.", callback=self._show_conditions)
        self.unused_check = gui.checkBox(
            box, self, "show_unused", "Show rules of weight 0",
            tooltip="LR with rules: also list the rules the fit gave no weight "
                    "(they do not change any prediction).",
            callback=self._unused_changed)
        self.plot_box = gui.vBox(self.controlArea, "Plot")
        self.class_box = gui.hBox(self.plot_box)
        self.class_combo = gui.comboBox(
            self.class_box, self, "plot_class", label="Class:",
            orientation=Qt.Horizontal, callback=self._update_plot,
            tooltip="The class whose ROC convex hull is drawn.")
        self.plot_note = gui.widgetLabel(self.plot_box, "")
        self.plot_note.setWordWrap(True)
        gui.rubber(self.controlArea)
        gui.auto_send(self.buttonsArea, self, "auto_commit")

        self.item_model = QStandardItemModel(self)
        self.proxy = RuleFilter(self)
        self.proxy.setSourceModel(self.item_model)
        self.proxy.setSortRole(SORT_ROLE)
        self.view = QTableView(
            selectionBehavior=QAbstractItemView.SelectRows,
            selectionMode=QAbstractItemView.ExtendedSelection,
            sortingEnabled=True, wordWrap=True)
        self.view.setModel(self.proxy)
        self.view.verticalHeader().hide()
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.view.setTextElideMode(Qt.ElideRight)
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
        self.filter_edit.textChanged.connect(self.proxy.set_text)
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.addWidget(self.view)
        self.splitter.addWidget(self.plot)
        self.splitter.setSizes([400, 260])
        self.mainArea.layout().addWidget(self.filter_edit)
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
        self.Error.clear()
        self.Information.clear()
        model = self.model
        if model is not None and not viewer.is_supported(model):
            self.Error.not_rules()
            model = None
        self._model = model
        self._set_shown_data()
        self._fill_table()
        self._fill_class_combo()
        self._update_plot()
        # the rules as data change with the inputs only, not with the selection
        self.Outputs.rules.send(None if self._model is None else
                                viewer.rules_as_table(self._model, self.shown_data))
        self.commit.now()

    def _set_shown_data(self):
        """Coverage is on the input data, else on the model's training data."""
        self.shown_data, self.cover = None, None
        if self._model is None:
            return
        candidates = []
        if self.data is not None:
            candidates.append(self.data)
        instances = getattr(self._model, "instances", None)
        if instances is not None:
            candidates.append(instances)
        for data in candidates:
            try:
                cover = viewer.coverage(self._model, data)
            except Exception as ex:  # domains that do not transform
                self.Error.incompatible_data(str(ex))
                continue
            self.shown_data, self.cover = data, cover
            break
        if self.data is None and self.shown_data is not None:
            self.Information.training_data()

    # ------------------------------------------------------------ table
    def _fill_table(self):
        self.item_model.clear()
        self.table = None
        self.info_label.setText("No model on input." if self.model is None
                                else "")
        if self._model is None:
            return
        model = self._model
        used = viewer.used_mask(model)
        listed = viewer.listed_mask(model, self.show_unused)
        summary = viewer.model_summary(model)
        self.unused_check.setEnabled(not used.all())
        if not used.all():
            summary.append(f"{used.sum()} of {len(used)} rules have a non-zero weight"
                           + ("." if self.show_unused else "; the others are hidden."))
        self.info_label.setText("\n".join(summary))
        self.table = table = viewer.rule_table(model)
        class_var = model.domain.class_var
        dists = viewer.class_distributions(model, self.shown_data)
        headers = list(FIXED_HEADERS) + [c.name for c in table.columns]
        self.item_model.setHorizontalHeaderLabels(headers)
        for col, c in enumerate(table.columns, start=len(FIXED_HEADERS)):
            self.item_model.horizontalHeaderItem(col).setToolTip(c.tooltip)
        colors = getattr(class_var, "colors", None)
        for i, (conds, head, dist) in enumerate(zip(table.conditions, table.heads, dists)):
            if not listed[i]:
                continue
            items = [self._number_item(i + 1, 0),
                     self._text_item(""),
                     self._text_item(class_var.values[head]),
                     self._text_item(" : ".join(_count(x) for x in dist)),
                     self._number_item(dist.sum(), 0 if _is_int(dist) else 1)]
            items[2].setData(QColor(*colors[head]) if colors is not None else None,
                             Qt.DecorationRole)
            items[3].setData(float(dist[head] / dist.sum()) if dist.sum() else 0.0,
                             SORT_ROLE)
            items[3].setToolTip("\n".join(f"{v}: {_count(x)}" for v, x
                                          in zip(class_var.values, dist)))
            items += [self._number_item(c.values[i], c.decimals) for c in table.columns]
            for it in items:
                it.setData(i, RULE_ROLE)
                it.setEditable(False)
            self.item_model.appendRow(items)
        self._show_conditions()

    @staticmethod
    def _text_item(text):
        item = QStandardItem(text)
        item.setData(text, SORT_ROLE)
        return item

    @staticmethod
    def _number_item(value, decimals):
        value = float(value)
        text = "" if np.isnan(value) else (f"{value:.{decimals}f}" if decimals
                                           else str(int(round(value))))
        item = QStandardItem(text)
        item.setData(-np.inf if np.isnan(value) else value, SORT_ROLE)
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
        return item

    def _unused_changed(self):
        self._fill_table()
        self._update_plot()
        self.commit.deferred()

    def _show_conditions(self):
        if self.table is None:
            return
        sep = " AND " if self.compact_view else " AND\n"
        for row in range(self.item_model.rowCount()):
            conds = self.table.conditions[int(self.item_model.item(row, 0).data(RULE_ROLE))]
            text = sep.join(conds) if conds else "TRUE"
            item = self.item_model.item(row, 1)
            item.setText(text)
            item.setData(text, SORT_ROLE)
            item.setToolTip(" AND\n".join(conds) if conds else "TRUE")
        self.view.setWordWrap(not self.compact_view)
        self.view.resizeColumnsToContents()
        self.view.setColumnWidth(1, min(self.view.columnWidth(1), MAX_CONDITIONS_WIDTH))
        self.view.resizeRowsToContents()

    def selected_rules(self):
        """Indices into ``rule_list`` of the selected rows."""
        rows = self.view.selectionModel().selectedRows()
        return sorted({int(self.proxy.data(r, RULE_ROLE)) for r in rows})

    def listed_rules(self):
        """Indices into ``rule_list`` of the rules the table lists, in the
        model's order."""
        return sorted(int(self.item_model.item(row, 0).data(RULE_ROLE))
                      for row in range(self.item_model.rowCount()))

    def selected_rules_text(self) -> str:
        """The selected rules as text, one ``IF ... THEN ...`` per line in
        the table's order (what Ctrl+C copies)."""
        if self.table is None:
            return ""
        rows = sorted(self.view.selectionModel().selectedRows(), key=lambda i: i.row())
        cv = self._model.domain.class_var
        lines = []
        for index in rows:
            k = int(self.proxy.data(index, RULE_ROLE))
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
        selection = QItemSelection()
        rules = set(rules)
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if int(self.proxy.data(index, RULE_ROLE)) in rules:
                selection.select(index, self.proxy.index(row, self.proxy.columnCount() - 1))
        self.view.selectionModel().select(selection, QItemSelectionModel.ClearAndSelect)

    def _selection_changed(self):
        self._update_plot()
        self.commit.deferred()

    # ------------------------------------------------------------ outputs
    @gui.deferred
    def commit(self):
        data, cover = self.shown_data, self.cover
        if data is None or cover is None:
            self.Outputs.selected_data.send(None)
            self.Outputs.annotated_data.send(None)
            return
        rules = self.selected_rules()
        rows = np.flatnonzero(cover[:, rules].any(axis=1)) if rules else np.array([], int)
        self.Outputs.selected_data.send(data[rows] if len(rows) else None)
        annotated = create_annotated_table(data, rows)
        names = [v.name for v in annotated.domain.variables + annotated.domain.metas]
        firing = np.array([", ".join(str(k + 1) for k in np.flatnonzero(row))
                           for row in cover], dtype=object)
        fire_var = StringVariable(get_unique_names(names, "Rules firing"))
        annotated = annotated.add_column(fire_var, firing, to_metas=True)
        for k in rules[:20]:  # one yes/no column per selected rule
            var = DiscreteVariable(get_unique_names(names, f"Rule {k + 1}"),
                                   values=("no", "yes"))
            annotated = annotated.add_column(var, cover[:, k].astype(float),
                                             to_metas=True)
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
        for e, rules in enumerate(entries):
            x, y = points[e + 1]
            label = pg.TextItem(str(e + 1), color="k", anchor=(1.1, -0.1))
            label.setPos(x, y)
            plot.addItem(label)
            if selected & set(rules):
                plot.plot([x], [y], pen=None, symbol="o", symbolSize=15,
                          symbolBrush=None, symbolPen=pg.mkPen("k", width=2))
        plot.setXRange(0, 1)
        plot.setYRange(0, 1)
        self.plot_note.setText(f"{len(entries)} rules on the hull; numbers are "
                               "positions in the class's rule list.")

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
        brushes = [pg.mkBrush(*colors[h], 200) for h in heads]
        pens = [pg.mkPen("k", width=2) if s else pg.mkPen(None) for s in selected]
        sizes = [14 if s else 9 for s in selected]
        ok = ~np.isnan(raw)
        scatter = pg.ScatterPlotItem(
            x=raw[ok], y=q[ok], brush=[b for b, o in zip(brushes, ok) if o],
            pen=[p for p, o in zip(pens, ok) if o], size=[s for s, o in zip(sizes, ok) if o])
        plot.addItem(scatter)
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


def _is_int(x):
    return bool(np.all(np.asarray(x) == np.round(x)))


def _count(x):
    return str(int(round(x))) if float(x).is_integer() else f"{x:.1f}"


if __name__ == "__main__":  # pragma: no cover
    from Orange.widgets.utils.widgetpreview import WidgetPreview
    from orangecontrib.rules import ROCCERLearner
    heart = Table("heart_disease")
    WidgetPreview(OWRulesViewer).run(set_model=ROCCERLearner()(heart), set_data=heart)
