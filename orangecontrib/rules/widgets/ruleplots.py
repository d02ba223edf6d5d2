"""The Rule Viewer's plot: a ROC convex hull (ROCCER), an abstention curve
and its bound (SLS) or the EVC correction of each rule (EVC rules, LR with
rules), drawn from :class:`orangecontrib.rules.viewer.PlotData` computed
once per model and table. A selection of rules only moves the rings that
mark them (:meth:`RulePlot.highlight`): nothing is computed again. Not a
widget module."""
import numpy as np
import pyqtgraph as pg
from AnyQt.QtCore import Qt
from AnyQt.QtGui import QColor
from AnyQt.QtWidgets import QSizePolicy

#: the least distance (in rates) between numbered points of a ROC hull
LABEL_GAP = 0.04
#: the most entries a column of a plot's legend takes (it is beside the
#: plot, whose height at 1024 x 640 fits about five)
LEGEND_ROWS = 5


class RulePlot:
    """Draws a model's plot on ``plot`` (a ``pg.PlotWidget``) and writes
    what it shows into ``note`` (a label)."""

    def __init__(self, plot: pg.PlotWidget, note):
        self.plot = plot
        self.note = note
        self.data = None        # viewer.PlotData
        self.model = None
        self.cls = 0
        self._rings = None      # the items marking the selected rules
        self._entries = []      # hull: per drawn entry, its rules and point

    def clear(self):
        self.plot.clear()
        item = self.plot.plotItem
        if item.legend is not None:
            item.layout.removeItem(item.legend)
            item.legend.scene().removeItem(item.legend)
            item.legend = None
        self._rings, self._entries = None, []
        self.note.setText("")

    def draw(self, model, data, cls=0, source="", n_rows=0):
        """The plot of ``data`` (:class:`viewer.PlotData`) for ``model``;
        ``cls``: the class of the hull drawn; ``source``, ``n_rows``: what
        the abstention curve was measured on."""
        self.clear()
        self.model, self.data, self.cls = model, data, cls
        if data is None or data.kind is None:
            return
        if data.kind == "hull":
            self._hull()
        elif data.kind == "abstention":
            self._abstention(source, n_rows)
        elif data.kind == "evc":
            self._evc()

    def highlight(self, selected):
        """Ring the selected rules (``rule_list`` indices): only the rings
        are redrawn."""
        if self._rings is not None:
            self.plot.removeItem(self._rings)
            self._rings = None
        if self.data is None or not len(selected):
            return
        selected = set(int(k) for k in selected)
        if self.data.kind == "hull":
            points = [p for rules, p in self._entries if selected & set(rules)]
            if points:
                x, y = np.array(points).T
                self._rings = pg.ScatterPlotItem(x=x, y=y, size=15, brush=pg.mkBrush(None),
                                                 pen=pg.mkPen("k", width=2))
        elif self.data.kind == "evc":
            raw, q, _ = self.data.evc
            mark = np.zeros(len(raw), bool)
            mark[[k for k in selected if k < len(raw)]] = True
            mark &= ~np.isnan(raw)
            if mark.any():
                self._rings = pg.ScatterPlotItem(x=raw[mark], y=q[mark], size=14,
                                                 brush=pg.mkBrush(None),
                                                 pen=pg.mkPen("k", width=2))
        if self._rings is not None:
            self.plot.addItem(self._rings)

    # ------------------------------------------------------------ the plots
    def _legend(self, entries=0):
        """A legend to the right of the plot, beside the data, never over
        them: inside the plot, it covered curves and points wherever it was
        put on some model, and at 1024 x 640 its last entry fell on the
        axis. ``entries``: how many there will be (more than
        :data:`LEGEND_ROWS` go into columns). The named items plotted
        afterwards are listed in it (``PlotItem.legend``)."""
        columns = max(1, -(-entries // LEGEND_ROWS))
        legend = pg.LegendItem(labelTextColor="#222222", colCount=columns,
                               pen=pg.mkPen("#bbbbbb"))  # framed: a key, not data
        legend.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Fixed)  # as high as its entries
        item = self.plot.plotItem
        item.layout.addItem(legend, 2, 3, Qt.AlignTop)  # the row of the view, after the right axis
        item.layout.setColumnSpacing(2, 12)
        item.legend = legend

    def _axes(self, bottom, left, title):
        self.plot.setLabel("bottom", bottom)
        self.plot.setLabel("left", left)
        self.plot.setTitle(title, color="#222222")

    def _hull(self):
        model, cls = self.model, self.cls
        points, entries = self.data.hulls.get(cls, (np.array([[0.0, 0.0], [1.0, 1.0]]), []))
        class_var = model.domain.class_var
        color = QColor(*class_var.colors[cls])
        self._axes("False positive rate", "True positive rate",
                   f"ROC convex hull of the rules for {class_var.name} = "
                   f"{class_var.values[cls]}")
        plot = self.plot
        plot.plot([0, 1], [0, 1], pen=pg.mkPen("#999999", width=1, style=Qt.DashLine))
        plot.plot(points[:, 0], points[:, 1], pen=pg.mkPen(color, width=2),
                  symbol="o", symbolSize=8, symbolBrush=color, symbolPen=color)
        last = None  # the last labelled point: close points are not labelled
        for e, rules in enumerate(entries):
            x, y = points[e + 1]
            self._entries.append((rules, (x, y)))
            if last is None or np.hypot(x - last[0], y - last[1]) > LABEL_GAP:
                # below and right of its point: inside the concave hull, where
                # no other point lies (above-left the labels fell off the axis
                # at FPR 0 and read as the next point's)
                label = pg.TextItem(str(e + 1), color="k", anchor=(-0.1, -0.05))
                label.setPos(x, y)
                plot.addItem(label)
                last = (x, y)
        plot.setXRange(0, 1)
        plot.setYRange(0, 1)
        self.note.setText(f"{len(entries)} points on the hull; numbers are positions in "
                          "the class's rule list (points too close to the last numbered "
                          "one are not numbered).")

    def _abstention(self, source, n_rows):
        model, plot = self.model, self.plot
        self._axes("Abstention threshold θ (margin)", "Rate",
                   "Abstention curve" + (" and bound" if model.voting_bound is not None
                                         else ""))
        self._legend(3)
        if self.data.abstention is None:
            self.note.setText("Needs rows with a known class to draw the curve.")
            return
        theta, error, abstain, bound = self.data.abstention
        ok = ~np.isnan(error)
        plot.plot(theta[ok], error[ok], pen=pg.mkPen("#d62728", width=2),
                  name="error on classified")
        plot.plot(theta, abstain, pen=pg.mkPen("#7f7f7f", width=2), name="abstention rate")
        if bound is not None:
            plot.plot(theta, bound, pen=pg.mkPen("#1f77b4", width=2, style=Qt.DashLine),
                      name="bound (Thm. 3)")
        plot.setXRange(0, 2)
        plot.setYRange(0, 1)
        self.note.setText(f"Curve on the {source} ({n_rows:,} rows). The model abstains "
                          "on rows whose two highest class scores differ by less than θ.")

    def _evc(self):
        model, plot = self.model, self.plot
        raw, q, heads = self.data.evc
        colors = model.domain.class_var.colors
        self._axes("Raw relative frequency", "Corrected probability",
                   "Extreme-value correction of each rule")
        plot.plot([0, 1], [0, 1], pen=pg.mkPen("#999999", width=1, style=Qt.DashLine))
        ok = ~np.isnan(raw)
        self._legend(int(np.unique(heads[ok]).size))
        for c, value in enumerate(model.domain.class_var.values):
            mask = ok & (heads == c)
            if mask.any():  # one item per class, drawn once however many rules
                plot.addItem(pg.ScatterPlotItem(
                    x=raw[mask], y=q[mask], brush=pg.mkBrush(*colors[c], 200),
                    pen=pg.mkPen(None), size=9, name=value))
        lo = np.nanmin(np.concatenate([raw[ok], q[ok], [1.0]]))
        lo = max(0.0, lo - 0.05)
        plot.setXRange(lo, 1.0)
        plot.setYRange(lo, 1.0)
        self.note.setText("Points below the diagonal: rules whose apparent accuracy the "
                          "search overestimated.")
