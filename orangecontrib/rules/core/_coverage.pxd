# cython: language_level=3
"""What every kernel shares about conditions (``cimport``-ed).

The condition codes are one enum for every kernel and for Python
(``core.OP_EQ`` etc. are read from ``Op``/``Kind``). A missing value
satisfies no condition: that rule lives in :func:`value_satisfies` and
:func:`code_satisfies` and nowhere else.
"""
from libc.stdint cimport int8_t, int32_t, uint64_t
from libc.math cimport isnan

cpdef enum Kind:
    KIND_DISCRETE = 0     # a column of ``Xd`` (int32 codes, -1 missing)
    KIND_CONTINUOUS = 1   # a column of ``Xc`` (float64, NaN missing)

cpdef enum Op:
    OP_EQ = 0   # A = v
    OP_LE = 1   # A <= t
    OP_GE = 2   # A >= t
    OP_LT = 3   # A < t

#: the code of a missing value in integer-coded columns
cdef enum:
    MISSING = -1


cdef inline bint value_satisfies(double x, int8_t op, double t) noexcept nogil:
    """``x op t`` for a float value; NaN (missing) satisfies nothing."""
    if isnan(x):
        return False
    if op == OP_LE:
        return x <= t
    if op == OP_GE:
        return x >= t
    if op == OP_LT:
        return x < t
    return x == t


cdef inline bint code_satisfies(int32_t code, int8_t op, int32_t v) noexcept nogil:
    """``code op v`` for an integer code (a discrete value or an ordinal
    bin); a negative code (missing) satisfies nothing."""
    if code < 0:
        return False
    if op == OP_LE:
        return code <= v
    if op == OP_GE:
        return code >= v
    if op == OP_LT:
        return code < v
    return code == v


cdef void coded_class_counts(const int32_t *slots, Py_ssize_t n_feat,
                             const int32_t *rows, Py_ssize_t n_rows,
                             const int8_t *cls, const double *w, double *out,
                             uint64_t *present) noexcept nogil
