# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Kernels of EVC rule learning (Možina et al., Section 4.1).

* ``lrs``: Dunning's likelihood ratio statistic of the 2x2 table of a rule
  (eq. 14), for many candidate rules at once;
* ``corrected_positives``: step 5 of the EVC procedure, the ``s_bar`` in
  ``[n S / N, s]`` whose LRS equals the corrected ``LRS_bar``, found by
  Brent's method for each candidate.

All counts are weighted (floats). Orange-free: arrays in, arrays out.
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport fabs, log

cnp.import_array()


cdef inline double _term(double x, double e) noexcept nogil:
    """``x log(x / e)`` with ``0 log 0 = 0``."""
    if x <= 0.0 or e <= 0.0:
        return 0.0
    return x * log(x / e)


cdef double _lrs(double s, double n, double S, double N) noexcept nogil:
    """Eq. 14; 0 when the rule is no better than the prior (``s < n S / N``)."""
    cdef double nc, sc, es, en, esc, enc
    if n <= 0.0 or N <= 0.0 or n >= N or s * N <= n * S:
        return 0.0
    nc = N - n
    sc = S - s
    es = n * S / N
    en = n - es
    esc = nc * S / N
    enc = nc - esc
    return 2.0 * (_term(s, es) + _term(n - s, en) + _term(sc, esc)
                  + _term(nc - sc, enc))


def lrs(const double[::1] s, const double[::1] n, double S, double N):
    """LRS (eq. 14) of rules covering ``n`` examples, ``s`` of the target class,
    in data with ``N`` examples, ``S`` of the target class."""
    cdef Py_ssize_t m = s.shape[0], i
    if n.shape[0] != m:
        raise ValueError("s and n differ in length")
    if not (0 <= S <= N):
        raise ValueError("need 0 <= S <= N")
    out_arr = np.empty(m, dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for i in range(m):
            out[i] = _lrs(s[i], n[i], S, N)
    return out_arr


cdef double _brent(double lo, double hi, double n, double S, double N,
                   double target, double xtol, int maxiter) noexcept nogil:
    """Root of ``f(x) = lrs(x, n) - target`` on ``[lo, hi]``, ``f(lo) < 0 <=
    f(hi)``: Brent's method (inverse quadratic interpolation, secant and
    bisection steps, Brent 1973)."""
    cdef double a = lo, b = hi, c, d, e, fa, fb, fc, p, q, r, s, tol, m
    cdef int it
    fa = _lrs(a, n, S, N) - target
    fb = _lrs(b, n, S, N) - target
    if fb == 0.0:
        return b
    c = a
    fc = fa
    d = b - a
    e = d
    for it in range(maxiter):
        if (fb > 0.0) == (fc > 0.0):
            c = a
            fc = fa
            d = b - a
            e = d
        if fabs(fc) < fabs(fb):
            a = b
            b = c
            c = a
            fa = fb
            fb = fc
            fc = fa
        tol = 2.0 * 2.2e-16 * fabs(b) + 0.5 * xtol
        m = 0.5 * (c - b)
        if fabs(m) <= tol or fb == 0.0:
            return b
        if fabs(e) >= tol and fabs(fa) > fabs(fb):
            s = fb / fa
            if a == c:  # secant
                p = 2.0 * m * s
                q = 1.0 - s
            else:  # inverse quadratic interpolation
                q = fa / fc
                r = fb / fc
                p = s * (2.0 * m * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            else:
                p = -p
            if 2.0 * p < 3.0 * m * q - fabs(tol * q) and p < fabs(0.5 * e * q):
                e = d
                d = p / q
            else:
                d = m
                e = m
        else:
            d = m
            e = m
        a = b
        fa = fb
        if fabs(d) > tol:
            b += d
        elif m > 0.0:
            b += tol
        else:
            b -= tol
        fb = _lrs(b, n, S, N) - target
    return b


def corrected_positives(const double[::1] s, const double[::1] n, double S,
                        double N, const double[::1] lrs_bar,
                        double xtol=1e-9, int maxiter=100):
    """Step 5 of EVC: ``s_bar`` with ``LRS(s_bar, n) = LRS_bar`` in
    ``[n S / N, s]``.

    ``LRS_bar <= 0`` gives the prior count ``n S / N``; a rule no better than
    the prior keeps its ``s``; ``LRS_bar >= LRS(s, n)`` (a correction that
    would *raise* the estimate) keeps ``s``.
    """
    cdef Py_ssize_t m = s.shape[0], i
    if n.shape[0] != m or lrs_bar.shape[0] != m:
        raise ValueError("s, n and lrs_bar differ in length")
    out_arr = np.empty(m, dtype=np.float64)
    cdef double[::1] out = out_arr
    cdef double lo, full
    with nogil:
        for i in range(m):
            if n[i] <= 0.0 or N <= 0.0:
                out[i] = s[i]
                continue
            lo = n[i] * S / N
            if s[i] <= lo:
                out[i] = s[i]
            elif lrs_bar[i] <= 0.0:
                out[i] = lo
            else:
                full = _lrs(s[i], n[i], S, N)
                if lrs_bar[i] >= full:
                    out[i] = s[i]
                else:
                    out[i] = _brent(lo, s[i], n[i], S, N, lrs_bar[i], xtol, maxiter)
    return out_arr
