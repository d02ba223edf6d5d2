"""Checks of the learners' parameters, at construction.

Every public parameter of every learner goes through one of these, so a
value out of range is a ``ValueError`` that names the parameter and the
values it accepts, raised where the learner is made, not an exception from
deep inside a fit or a silently degenerate model. Each function returns
the value in the type the learner keeps (``int``, ``float``, ``bool``).
"""
from __future__ import annotations

import math
import numbers

import numpy as np


def _describe(low, high, low_open, high_open) -> str:
    if low is not None and high is not None:
        return (f"in {'(' if low_open else '['}{low:g}, {high:g}"
                f"{')' if high_open else ']'}")
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high:g}"
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
    """``value`` as an ``int`` in ``[low, high]`` (a float with an integer
    value passes; ``None`` passes if ``none``)."""
    if value is None and none:
        return None
    rng = _describe(low, high, False, False)
    also = " or None" if none else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
            or not math.isfinite(float(value)) or float(value) != int(value):
        raise ValueError(f"{name} must be an integer {rng}{also}, not {value!r}")
    x = int(value)
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
    return check_int("random_state", random_state, 0, none=True)


def check_instance(name: str, value, kinds, what: str, *, none=False):
    """``value`` if it is an instance of ``kinds`` (or ``None`` if ``none``)."""
    if (value is None and none) or isinstance(value, kinds):
        return value
    raise ValueError(f"{name} must be {what}{' or None' if none else ''}, "
                     f"not {type(value).__name__}")
