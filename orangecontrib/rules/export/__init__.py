"""Models that leave Python: SQL and JSON export (``doc/export.md``).

* :func:`to_sql` (``model.to_sql()``): the model as one SQL ``SELECT``
  over a table of the training data's columns, giving each class's
  probability and the predicted class (SQLite and PostgreSQL);
* :func:`to_json` (``model.to_json()``) and :func:`load_json`: the model
  as JSON text of a documented, versioned schema, and back;
* :func:`save_model`: either, by the file's extension (the Rule Viewer's
  "Save rules").

The exporters read the models' public data, as the Rule Viewer does
(:mod:`orangecontrib.rules.viewer`); what a learner's preprocessing made of
the training data's columns is read in :mod:`.variables`.
"""
from __future__ import annotations

import os

from ..base import EXPORTERS
from .json import FORMAT, VERSION, load_json, to_json
from .sql import to_sql
from .variables import ExportError

EXPORTERS.update(sql=to_sql, json=to_json)  # RuleModel.to_sql, RuleModel.to_json

#: the file formats :func:`save_model` writes, by extension
FORMATS = {".sql": "SQL query", ".json": "JSON model"}


def save_model(model, path, table="data") -> None:
    """Write ``model`` to ``path``: an SQL query (``.sql``, over ``table``;
    :func:`to_sql`) or JSON (``.json``; :func:`to_json`), by the
    extension.

    Parameters
    ----------
    model : RuleModel
        A model of this add-on.
    path : str or os.PathLike
        The file; its extension chooses the format.
    table : str
        The table the SQL query reads.
    """
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext == ".sql":
        content = to_sql(model, table) + ";\n"
    elif ext == ".json":
        content = to_json(model, indent=1) + "\n"
    else:
        raise ExportError(f"cannot save a model as {ext or 'a file without extension'!r}; "
                          f"choose one of {', '.join(FORMATS)}")
    with open(path, "w", encoding="utf-8") as f:
        f.write(content)


def load_model(path):
    """The model a ``.json`` file of :func:`save_model` holds."""
    with open(path, encoding="utf-8") as f:
        return load_json(f.read())


__all__ = ["ExportError", "FORMAT", "FORMATS", "VERSION", "load_json", "load_model",
           "save_model", "to_json", "to_sql"]
