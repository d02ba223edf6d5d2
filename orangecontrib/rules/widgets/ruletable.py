"""The Rule Viewer's table: the rules served from arrays
(:class:`RuleTableModel`) and a view whose first duty is the rule text
(:class:`RuleTableView`): every condition of every rule is shown whole,
wrapped, never elided; each row is as high as its wrapped lines, measured
with the font the conditions are painted in; the numeric columns are as
narrow as their contents and the conditions take the rest. Not a widget
module."""
import numpy as np
from AnyQt.QtCore import QAbstractTableModel, QModelIndex, QRect, Qt, QTimer, Signal
from AnyQt.QtGui import QColor, QFontMetrics
from AnyQt.QtWidgets import QHeaderView, QStyle, QStyledItemDelegate, QTableView

SORT_ROLE = Qt.UserRole + 1
RULE_ROLE = Qt.UserRole + 2
FIXED_HEADERS = ("#", "Conditions", "Class", "Distribution", "Covered")
CONDITIONS = 1
COVERED = 4
#: the model's own numbers start at this column (its principal one first)
FIRST_NUMBER = len(FIXED_HEADERS)
#: text margins of a condition cell, in pixels (left/right, top/bottom)
H_MARGIN, V_MARGIN = 4, 3
#: the flags the conditions are laid out with, in painting and measuring alike
WRAP_FLAGS = int(Qt.AlignLeft | Qt.AlignTop | Qt.TextWordWrap)
#: rows whose contents set the narrow columns' widths (the first ones)
WIDTH_SAMPLE = 200
#: at most this many classes' counts are listed in the Distribution column;
#: more: the rule's class's count of the covered rows
LISTED_CLASSES = 3


class RuleTableModel(QAbstractTableModel):
    """The Rule Viewer's table, served from arrays: a cell's text is made
    only when the view shows it, so a model of 10,000 rules is listed at
    once; sorting and filtering reorder an array of rows (the selection
    follows its rules).

    Columns: ``#`` (the rule's number in ``rule_list``), *Conditions*,
    *Class* (the class the rule favours in its model, ``not c`` for a rule
    that lowers ``c``), *Distribution* and *Covered* on the shown data,
    then the model's own numbers (:meth:`RuleModel.viewer_columns`, the
    principal one first)."""

    #: emitted before the rows are reordered or filtered, before Qt's
    #: layoutAboutToBeChanged
    rows_about_to_move = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._set_empty()

    def _set_empty(self):
        self.headers, self.tooltips = list(FIXED_HEADERS), [""] * len(FIXED_HEADERS)
        self.rules = np.zeros(0, dtype=int)   # rule index (rule_list) of each listed rule
        self.order = np.zeros(0, dtype=int)   # the listed rules shown, in view order
        self.conditions, self.class_names, self.colors = [], [], None
        self.head_names = []
        self.notes = []
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
        self._texts = {}                      # (rule, compact) -> the conditions' text

    def clear(self):
        self.beginResetModel()
        self._set_empty()
        self.endResetModel()

    def set_rules(self, rules, conditions, heads, class_var, dist, columns, prefixes=None,
                  row_columns=(), head_names=None, notes=None):
        """``rules``: indices into ``rule_list`` of the rules to list (a
        rule may be listed more than once: SLS by rule set);
        ``conditions``, ``heads``, ``dist``: theirs (condition strings,
        the class each favours, class counts on the shown data);
        ``head_names``: the Class column's text of each (default: the
        class value); ``columns``: the model's :class:`viewer.Column` s
        over all rules; ``prefixes``: a decision list's IF / ELSE IF /
        ELSE of the listed rules; ``row_columns``: columns over the listed
        rows, shown first; ``notes``: per listed rule, where it comes from
        (the tooltip of its number)."""
        self.beginResetModel()
        self._texts = {}
        self.prefixes = prefixes
        rules = np.asarray(rules, dtype=int)
        self.rules, self.order = rules, np.arange(len(rules))
        self.conditions = list(conditions)
        self.notes = [""] * len(rules) if notes is None else list(notes)
        self.heads = np.asarray(heads, dtype=int)
        self.class_names = list(class_var.values)
        self.head_names = (list(head_names) if head_names is not None
                           else [self.class_names[h] for h in self.heads])
        colors = getattr(class_var, "colors", None)
        self.colors = None if colors is None else [QColor(*c) for c in colors]
        self.dist = np.asarray(dist, dtype=float).reshape(len(rules), len(self.class_names))
        columns = list(row_columns) + list(columns)
        self.headers = list(FIXED_HEADERS) + [c.name for c in columns]
        self.tooltips = ["The rule's number in the model", "The rule's conditions: it "
                         "fires on a row that meets all of them (a missing value meets "
                         "none)", "The class the rule favours in the model ('not': the "
                         "class it makes less likely)", "The shown rows the rule covers, "
                         "per class", "The shown rows the rule covers (weighted)"]
        self.tooltips += [c.tooltip for c in columns]
        self.columns = [(np.asarray(c.values, dtype=float), c.decimals) for c in row_columns]
        self.columns += [(np.asarray(c.values, dtype=float)[rules], c.decimals)
                         for c in columns[len(row_columns):]]
        covered = self.dist.sum(axis=1)
        self.covered_decimals = 0 if _is_int(covered) else 1
        head_share = np.divide(self.dist[np.arange(len(rules)), self.heads], covered,
                               out=np.zeros(len(rules)), where=covered > 0)
        text = np.array([self._conditions_text(r, " AND ") for r in range(len(rules))],
                        dtype=object)
        self.keys = [rules, text, np.array(self.head_names, dtype=object), head_share, covered]
        self.keys += [np.where(np.isnan(v), -np.inf, v) for v, _ in self.columns]
        self._search = [f"{t} {h}".lower() for t, h in zip(text, self.head_names)]
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
            if col == 0 and self.notes[r]:
                return f"Rule {self.rules[r] + 1}: {self.notes[r]}"
            if col == CONDITIONS:
                return self._conditions_text(r, "\nAND ")
            if col == 3:
                return "\n".join(f"{v}: {_count(x)}"
                                 for v, x in zip(self.class_names, self.dist[r]))
            return None
        if role == Qt.DecorationRole and col == 2 and self.colors is not None:
            return self.colors[self.heads[r]]
        if role == Qt.TextAlignmentRole and (col in (0, 4) or col >= FIRST_NUMBER):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def _text(self, r, col):
        if col == 0:
            return str(self.rules[r] + 1)
        if col == CONDITIONS:
            return self.condition_cell(r)
        if col == 2:
            return self.head_names[r]
        if col == 3:
            d = self.dist[r]
            if len(d) <= LISTED_CLASSES:
                return " : ".join(_count(x) for x in d)
            return f"{_count(d[self.heads[r]])} of {_count(d.sum())}"
        if col == 4:
            return _number(self.keys[4][r], self.covered_decimals)
        values, decimals = self.columns[col - FIRST_NUMBER]
        return _number(values[r], decimals)

    def condition_cell(self, r) -> str:
        """The Conditions cell of listed rule ``r``: one condition per line,
        or a rule per paragraph when compact (wrapped either way)."""
        key = (r, self.compact)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = self._conditions_text(
                r, " AND " if self.compact else "\nAND ")
        return text

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
            self.dataChanged.emit(self.index(0, CONDITIONS),
                                  self.index(len(self.order) - 1, CONDITIONS))

    def shown_cells(self) -> list[str]:
        """The Conditions cells of the shown rows, in view order."""
        return [self.condition_cell(int(r)) for r in self.order]

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


class ConditionsDelegate(QStyledItemDelegate):
    """Paints a Conditions cell as wrapped text, never elided, laid out as
    :func:`text_height` measures it (the same font, margins and flags)."""

    def paint(self, painter, option, index):
        self.initStyleOption(option, index)
        text = option.text
        option.text = ""
        style = option.widget.style() if option.widget is not None else None
        if style is not None:  # background, selection, focus: the style's
            style.drawControl(QStyle.CE_ItemViewItem, option, painter, option.widget)
        painter.save()
        selected = option.state & QStyle.State_Selected
        painter.setPen(option.palette.color(
            option.palette.HighlightedText if selected else option.palette.Text))
        painter.setFont(option.font)
        painter.drawText(text_rect(option.rect), WRAP_FLAGS, text)
        painter.restore()

    def sizeHint(self, option, index):
        self.initStyleOption(option, index)
        metrics = QFontMetrics(option.font)
        width = widest_word(metrics, option.text) + 2 * H_MARGIN
        return QRect(0, 0, width, text_height(metrics, option.text, width)).size()


def text_rect(rect: QRect) -> QRect:
    """Where a Conditions cell's text goes inside the cell ``rect``."""
    return rect.adjusted(H_MARGIN, V_MARGIN, -H_MARGIN, -V_MARGIN)


def text_height(metrics: QFontMetrics, text: str, cell_width: int) -> int:
    """The height of a Conditions cell that shows all of ``text`` wrapped
    at ``cell_width`` (margins included)."""
    inner = max(1, cell_width - 2 * H_MARGIN)
    box = metrics.boundingRect(QRect(0, 0, inner, 1 << 20), WRAP_FLAGS, text)
    return box.height() + 2 * V_MARGIN


def widest_word(metrics: QFontMetrics, text: str, widths: dict | None = None) -> int:
    """The width of the widest word of ``text`` (a line never breaks
    inside a word, so the Conditions column is at least this wide);
    ``widths``: a cache of the words' widths, filled as it goes."""
    widths = {} if widths is None else widths
    best = 0
    for word in set(text.split()):
        w = widths.get(word)
        if w is None:
            w = widths[word] = metrics.horizontalAdvance(word)
        best = max(best, w)
    return best


class RuleTableView(QTableView):
    """The rule table's view: the Conditions column wraps its text and
    takes the width the other (narrow) columns leave, never less than its
    widest word; each row is as high as its wrapped conditions
    (:meth:`fit_rows`), again whenever the Conditions column's width
    changes. Columns of the model's numbers other than the principal one
    can be hidden (:meth:`show_numbers`)."""

    def __init__(self, parent=None):
        super().__init__(parent, wordWrap=True, sortingEnabled=True,
                         selectionBehavior=QTableView.SelectRows,
                         selectionMode=QTableView.ExtendedSelection)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.setItemDelegateForColumn(CONDITIONS, ConditionsDelegate(self))
        self.setTextElideMode(Qt.ElideNone)
        self.setHorizontalScrollMode(QTableView.ScrollPerPixel)
        self.setVerticalScrollMode(QTableView.ScrollPerPixel)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.Interactive)
        header.setSortIndicator(-1, Qt.AscendingOrder)
        header.setStretchLastSection(False)
        header.sectionResized.connect(self._section_resized)
        self._all_numbers = False
        self._laying_out = False
        self._tall = False
        self._line_cache = {}
        self._word_cache = {}
        self._min_conditions = 0
        self._refit = QTimer(self, singleShot=True, interval=0)
        self._refit.timeout.connect(self.fit_rows)

    def setModel(self, model):
        super().setModel(model)
        model.rows_about_to_move.connect(self._forget_row_heights)
        model.layoutChanged.connect(self._refit.start)
        model.modelReset.connect(self.fit_columns)

    # ------------------------------------------------------------ columns
    def show_numbers(self, every: bool):
        """Show all of the model's numbers, or only its principal one (and
        a grouping's own columns)."""
        self._all_numbers = every
        self.fit_columns()

    #: how many of the number columns are always shown: the model's
    #: principal number (a grouping by rule set: its two and the principal)
    principal_count = 1

    def number_columns_shown(self) -> list[int]:
        """The number columns shown: the principal ones, or all (Covered
        among them: the Distribution column sums to it)."""
        n = self.model().columnCount()
        last = n if self._all_numbers else min(n, FIRST_NUMBER + self.principal_count)
        return ([COVERED] if self._all_numbers else []) + list(range(FIRST_NUMBER, last))

    def fit_columns(self):
        """The narrow columns as wide as their header and first rows, the
        model's other numbers hidden unless asked for, and the Conditions
        column the rest of the width (at least its widest word)."""
        model = self.model()
        if model is None:
            return
        shown = set(self.number_columns_shown())
        for col in [COVERED] + list(range(FIRST_NUMBER, model.columnCount())):
            self.setColumnHidden(col, col not in shown)
        self._laying_out = True
        try:
            metrics = QFontMetrics(self.font())
            header = self.horizontalHeader()
            header_metrics = QFontMetrics(header.font())
            # the class colour's square: the view's icon size, or (unset, as
            # here) the style's small icon, with the style's margins
            style, size = self.style(), self.iconSize()
            icon = (size.width() if size.isValid()
                    else style.pixelMetric(QStyle.PM_SmallIconSize, None, self)) \
                + 2 * (style.pixelMetric(QStyle.PM_FocusFrameHMargin, None, self) + 1)
            rows = model.order[:WIDTH_SAMPLE]
            for col in range(model.columnCount()):
                if col == CONDITIONS or self.isColumnHidden(col):
                    continue
                texts = [model._text(int(r), col) for r in rows]
                width = max([metrics.horizontalAdvance(t) for t in texts] + [0])
                width += 2 * H_MARGIN + 8 + (icon if col == 2 else 0)
                head = header_metrics.horizontalAdvance(model.headers[col]) + 22
                self.setColumnWidth(col, max(width, head))
            widths = self._word_cache.setdefault(self.font().key(), {})
            words = [widest_word(metrics, model._conditions_text(int(r), " "), widths)
                     for r in model.order]
            self._min_conditions = max(words + [header_metrics.horizontalAdvance("Conditions")]
                                       ) + 2 * H_MARGIN + 2
        finally:
            self._laying_out = False
        self._fit_conditions_width()

    def _fit_conditions_width(self):
        """The Conditions column: the width the others leave."""
        model = self.model()
        if model is None or model.columnCount() <= CONDITIONS:
            return
        others = sum(self.columnWidth(c) for c in range(model.columnCount())
                     if c != CONDITIONS and not self.isColumnHidden(c))
        width = max(self._min_conditions, self.viewport().width() - others - 1)
        if width != self.columnWidth(CONDITIONS):
            self.setColumnWidth(CONDITIONS, width)  # fit_rows follows (sectionResized)
        else:
            self._refit.start()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit_conditions_width()

    def _section_resized(self, column, _old, _new):
        if column == CONDITIONS:
            self._refit.start()
        elif not self._laying_out:  # the user widened another column
            self._fit_conditions_width()

    # ------------------------------------------------------------ rows
    def _forget_row_heights(self):
        """Every row back to the default height before a sort or filter:
        otherwise Qt keeps each row's height through the move (a
        persistent index per row, 0.4 s for 10,000 rules), only for
        :meth:`fit_rows` to set them anew."""
        if self._tall:
            vh = self.verticalHeader()
            vh.setDefaultSectionSize(vh.defaultSectionSize())  # every row, at once
            self._tall = False

    def row_heights(self) -> np.ndarray:
        """The height each shown row needs for its wrapped conditions at
        the Conditions column's present width: the heights of its lines
        (a condition each, or the run-on paragraph), each distinct line
        measured once per width (the sum is a pixel per line above the
        whole text's, never below)."""
        model = self.model()
        width = self.columnWidth(CONDITIONS)
        metrics = QFontMetrics(self.font())
        cache = self._line_cache.setdefault((width, self.font().key()), {})
        out = np.empty(len(model.order), dtype=int)
        for i, text in enumerate(model.shown_cells()):
            total = 2 * V_MARGIN
            for line in text.split("\n"):
                h = cache.get(line)
                if h is None:
                    h = cache[line] = text_height(metrics, line, width) - 2 * V_MARGIN
                total += h
            out[i] = total
        return out

    def fit_rows(self):
        """Every row as high as its wrapped conditions: the most common
        height for every row at once, then the others one by one, with the
        view's repaints held till the end."""
        model = self.model()
        if model is None or not len(model.order):
            return
        if len(self._line_cache) > 8:
            self._line_cache.clear()
        heights = self.row_heights()
        vh = self.verticalHeader()
        common = int(np.bincount(heights).argmax())
        vh.setDefaultSectionSize(common)
        # whether a new default reaches rows resized before differs between
        # Qt 5 and Qt 6: every row that is not as high as it needs is set
        now = np.fromiter((vh.sectionSize(i) for i in range(len(heights))), int,
                          len(heights))
        other = np.flatnonzero(now != heights)
        self._tall = bool(np.any(heights != common))
        if not len(other):
            return
        self.setUpdatesEnabled(False)
        try:
            for row in other:
                vh.resizeSection(int(row), int(heights[row]))
        finally:
            self.setUpdatesEnabled(True)


def _is_int(x):
    return bool(np.all(np.asarray(x) == np.round(x)))


def _number(value, decimals):
    value = float(value)
    if np.isnan(value):
        return ""
    if decimals:
        text = f"{value:.{decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    return str(int(round(value)))


def _count(x):
    return str(int(round(x))) if float(x).is_integer() else f"{x:.1f}"
