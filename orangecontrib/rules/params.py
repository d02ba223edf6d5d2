"""The learners' parameters: each declared once, in its learner's table.

A learner's :class:`ParameterTable` (its class attribute ``parameters``)
holds one :class:`Parameter` per ``__init__`` argument but
``preprocessors``: its name, type, range and one-line meaning; the default
is the ``__init__`` signature's. From the table the learner checks its
arguments at construction and its attributes again when it is fitted (an
attribute set after construction is checked too), the widgets take their
spin boxes' bounds, and ``tests/contract/test_parameters.py`` checks that the
learner's numpydoc Parameters section names every parameter with its
default and range.

A value out of range is a ``ValueError`` that names the parameter and the
values it accepts, raised where the learner is made or fitted, not an
exception from deep inside a fit or a silently degenerate model. Each
check returns the value in the type the learner keeps (``int``,
``float``, ``bool``).
"""
from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass

import numpy as np


#: the largest seed: numpy's legacy generators and scikit-learn take 32 bits
MAX_SEED = 2 ** 32 - 1


def _bound(x) -> str:
    """A range's end as the messages and docstrings write it: whole
    numbers in full (``1000000``), others shortest (``0.5``)."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _describe(low, high, low_open, high_open) -> str:
    if low is not None and high is not None:
        return (f"in {'(' if low_open else '['}{_bound(low)}, {_bound(high)}"
                f"{')' if high_open else ']'}")
    if low is not None:
        return f"{'>' if low_open else '>='} {_bound(low)}"
    if high is not None:
        return f"{'<' if high_open else '<='} {_bound(high)}"
    return "finite"


def _in_range(x, low, high, low_open, high_open) -> bool:
    if low is not None and (x <= low if low_open else x < low):
        return False
    return not (high is not None and (x >= high if high_open else x > high))


def check_number(name: str, value, low=None, high=None, *, low_open=False,
                 high_open=False, none=False) -> float | None:
    """``value`` as a finite ``float`` in the range (``None`` passes if
    ``none``)."""
    if value is None and none:
        return None
    rng = _describe(low, high, low_open, high_open)
    also = " or None" if none else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number {rng}{also}, not {value!r}")
    x = float(value)
    if not math.isfinite(x) or not _in_range(x, low, high, low_open, high_open):
        raise ValueError(f"{name} must be a number {rng}{also}; got {value!r}")
    return x


def check_int(name: str, value, low=None, high=None, *, none=False) -> int | None:
    """``value`` as an ``int`` in ``[low, high]`` (any exact integer, however
    large, and a float with an integer value pass; ``None`` passes if
    ``none``)."""
    if value is None and none:
        return None
    rng = _describe(low, high, False, False)
    also = " or None" if none else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be an integer {rng}{also}, not {value!r}")
    if isinstance(value, numbers.Integral):
        x = int(value)  # exact: 10**30 is not rounded through a float
    elif math.isfinite(float(value)) and float(value).is_integer():
        x = int(float(value))
    else:
        raise ValueError(f"{name} must be an integer {rng}{also}, not {value!r}")
    if not _in_range(x, low, high, False, False):
        raise ValueError(f"{name} must be an integer {rng}{also}; got {value!r}")
    return x


def check_bool(name: str, value) -> bool:
    """``value`` as a ``bool`` (``True``, ``False``, 0 or 1)."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)
                                              and value in (0, 1)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, not {value!r}")


def check_choice(name: str, value, choices) -> str:
    """``value`` (a string, any case) if it is one of ``choices``."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; "
                     f"got {value!r}")


def check_n_jobs(n_jobs) -> int | None:
    """joblib's ``n_jobs``: ``None`` (one job, or an active
    ``joblib.parallel_config``'s), a positive number of jobs, or a negative
    one (``-1``: all cores); not 0."""
    if n_jobs is None:
        return None
    n = check_int("n_jobs", n_jobs)
    if n == 0:
        raise ValueError("n_jobs must be None, a positive number of jobs or a negative "
                         "one (-1: all cores); got 0")
    return n


def check_random_state(random_state) -> int | None:
    """A seed: a non-negative integer, or ``None`` (a fresh seed each fit,
    so fits are not repeatable)."""
    return check_int("random_state", random_state, 0, MAX_SEED, none=True)


def check_instance(name: str, value, kinds, what: str, *, none=False):
    """``value`` if it is an instance of ``kinds`` (or ``None`` if ``none``)."""
    if (value is None and none) or isinstance(value, kinds):
        return value
    raise ValueError(f"{name} must be {what}{' or None' if none else ''}, "
                     f"not {type(value).__name__}")


def check_numbers(name: str, values, low=None) -> tuple:
    """``values``, a non-empty sequence of finite numbers ``>= low``, as a
    tuple of floats."""
    if isinstance(values, (str, bytes)) or not np.iterable(values) or not len(values):
        raise ValueError(f"{name} must be a non-empty sequence of numbers "
                         f"{_describe(low, None, False, False)}, not {values!r}")
    return tuple(float(check_number(f"each of {name}", x, low)) for x in values)


# ------------------------------------------------------------ the tables
@dataclass(frozen=True)
class Parameter:
    """One parameter of a learner: its ``name``, ``kind`` (``"int"``,
    ``"float"``, ``"bool"``, ``"choice"``, ``"instance"``, ``"floats"``: a
    sequence of numbers, ``"n_jobs"``), the range of a number (``low``,
    ``high``, open ends), whether ``None`` is accepted, the ``choices`` of a
    choice, the types (``kinds``) and their description (``what``) of an
    instance, and a one-line ``meaning``. ``spin``: the bounds a widget's
    spin box offers, in the parameter's units (default: the range; needed
    where the range is open or unbounded)."""

    name: str
    kind: str
    meaning: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    none: bool = False
    choices: tuple = ()
    kinds: type | tuple = object
    what: str = ""
    spin: tuple | None = None
    #: words a number may also be (any case): SLS's ``max_rules="auto"``
    words: tuple = ()

    def check(self, value):
        """``value`` in the type the learner keeps; a ``ValueError`` that
        names the parameter if it is not one of the values accepted."""
        if self.words and isinstance(value, str):
            if value.lower() in self.words:
                return value.lower()
            raise ValueError(f"{self.name} must be an integer {self.range}, "
                             f"{', '.join(map(repr, self.words))}"
                             f"{' or None' if self.none else ''}; got {value!r}")
        if self.kind == "int":
            return check_int(self.name, value, self.low, self.high, none=self.none)
        if self.kind == "float":
            return check_number(self.name, value, self.low, self.high, low_open=self.low_open,
                                high_open=self.high_open, none=self.none)
        if self.kind == "bool":
            return None if value is None and self.none else check_bool(self.name, value)
        if self.kind == "choice":
            return check_choice(self.name, value, self.choices)
        if self.kind == "instance":
            return check_instance(self.name, value, self.kinds, self.what, none=self.none)
        if self.kind == "floats":
            return check_numbers(self.name, value, self.low)
        if self.kind == "n_jobs":
            return check_n_jobs(value)
        raise AssertionError(f"unknown kind of parameter {self.kind!r}")

    @property
    def range(self) -> str | None:
        """The range of a number as the error messages and the docstrings
        state it (``">= 1"``, ``"in (0, 1]"``), or ``None``."""
        if self.kind not in ("int", "float", "floats") or (self.low is None
                                                           and self.high is None):
            return None
        return _describe(self.low, self.high, self.low_open, self.high_open)

    @property
    def spin_bounds(self) -> tuple:
        """``(least, most)`` of a widget's spin box for this parameter."""
        if self.spin is not None:
            return self.spin
        if self.low is None or self.high is None or self.low_open or self.high_open:
            raise ValueError(f"{self.name} has no closed range: its table gives no spin box")
        return self.low, self.high


def integer(name, meaning, low=None, high=None, *, none=False, spin=None) -> Parameter:
    return Parameter(name, "int", meaning, low, high, none=none, spin=spin)


def number(name, meaning, low=None, high=None, *, low_open=False, high_open=False,
           none=False, spin=None) -> Parameter:
    return Parameter(name, "float", meaning, low, high, low_open, high_open, none=none,
                     spin=spin)


def boolean(name, meaning, *, none=False) -> Parameter:
    return Parameter(name, "bool", meaning, none=none)


def choice(name, meaning, choices) -> Parameter:
    return Parameter(name, "choice", meaning, choices=tuple(choices))


def instance(name, meaning, kinds, what, *, none=False) -> Parameter:
    return Parameter(name, "instance", meaning, none=none, kinds=kinds, what=what)


def floats(name, meaning, low=None) -> Parameter:
    return Parameter(name, "floats", meaning, low)


def n_jobs(meaning="Parallel jobs (threads, or a configured joblib backend); "
                   "the model does not depend on it.") -> Parameter:
    return Parameter("n_jobs", "n_jobs", meaning, none=True)


def random_state(meaning) -> Parameter:
    """A seed: an integer in [0, 2^32 - 1], or ``None`` (a fresh seed each
    fit)."""
    return integer("random_state", meaning, 0, MAX_SEED, none=True, spin=(0, 2 ** 31 - 1))


def max_rules(meaning, words=()) -> Parameter:
    """The rule budget every learner has (the widgets' "Model size");
    ``words``: the budget's other values (SLS: ``"auto"``)."""
    return Parameter("max_rules", "int", meaning, 1, none=True, spin=(1, 100_000),
                     words=tuple(words))


def search_rows(meaning) -> Parameter:
    return integer("search_rows", meaning, 1, none=True)


class ParameterTable:
    """A learner's parameters (:class:`Parameter`), in the order of its
    ``__init__`` arguments; set as the learner class's ``parameters``.
    ``table["name"]`` is a parameter, ``table.defaults`` the signature's
    defaults."""

    def __init__(self, *parameters: Parameter):
        self._by_name = {p.name: p for p in parameters}
        self.owner = None

    def __set_name__(self, owner, name):
        self.owner = owner

    def __getitem__(self, name) -> Parameter:
        return self._by_name[name]

    def __iter__(self):
        return iter(self._by_name.values())

    def __len__(self):
        return len(self._by_name)

    @property
    def defaults(self) -> dict:
        """Each parameter's default, as the owner's ``__init__`` declares it."""
        signature = inspect.signature(self.owner.__init__).parameters
        return {name: signature[name].default for name in self._by_name}

    def spin(self, name) -> tuple:
        """The spin-box bounds of parameter ``name``."""
        return self[name].spin_bounds

    def set(self, learner, values: dict) -> None:
        """Check ``values`` (every parameter's, by name) and set each as the
        learner's attribute of the same name, in the type it keeps."""
        for p in self:
            setattr(learner, p.name, p.check(values[p.name]))

    def check(self, learner) -> None:
        """Check the learner's attributes again (a fit does, so an attribute
        set after construction is checked as an argument is); an attribute
        of another type than the check gives is replaced by that value
        (``T_max=20.0`` becomes ``20``)."""
        for p in self:
            old = getattr(learner, p.name)
            new = p.check(old)
            if new is not old and (type(new) is not type(old) or new != old):
                setattr(learner, p.name, new)
