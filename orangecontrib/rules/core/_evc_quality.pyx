# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rule-quality statistics of EVC rule learning (Možina et al. 2019;
doc/evc.md) for Python, many rules at once; the search (``_evc.pyx``)
compiles the same inline functions of ``_evc_quality.pxd`` into its loops.

* ``lrs``: Dunning's likelihood ratio statistic of the 2x2 table of a rule
  (eq. 14);
* ``chi2_sf`` / ``chi2_isf``: the chi-square tail with one degree of
  freedom and its inverse;
* ``corrected_positives`` / ``evc_quality``: steps 2-5 of the correction,
  the ``s_bar`` in ``[n S / N, s]`` whose LRS equals the corrected
  ``LRS_bar`` (Brent's method), and the quality ``q = s_bar / n``;
* ``reach_table``: the best quality of a pure rule per length and
  positives, the bound the search prunes by.

All counts are weighted (floats). Orange-free: arrays in, arrays out.
"""

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef XLogX NO_TABLE = no_table()


cdef inline double _lrs(double s, double n, double S, double N) noexcept nogil:
    return _lrs_t(s, n, S, N, &NO_TABLE)




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


ctypedef double (*Unary)(double) noexcept nogil


cdef _each(const double[::1] x, Unary f):
    """``f`` of every element of ``x``, a new array."""
    out_arr = np.empty(x.shape[0])
    cdef double[::1] out = out_arr
    cdef Py_ssize_t i
    with nogil:
        for i in range(x.shape[0]):
            out[i] = f(x[i])
    return out_arr


def chi2_sf(const double[::1] x):
    """Survival function of chi-square with 1 degree of freedom."""
    return _each(x, _chi2_sf)


def chi2_isf(const double[::1] p):
    """Inverse survival function of chi-square with 1 degree of freedom."""
    return _each(p, _chi2_isf)


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
    with nogil:
        for i in range(m):
            out[i] = _corrected(s[i], n[i], S, N, lrs_bar[i], xtol, maxiter, &NO_TABLE)
    return out_arr


def evc_quality(const double[::1] s, const double[::1] n, double S, double N,
                double mu, double beta):
    """Steps 1-5 for rules with counts ``s`` of ``n``: ``(q, P_a, LRS)``.

    With ``beta <= 1e-6`` (no optimism measured) ``P_a`` is the plain
    chi-square tail of ``LRS`` and the quality the relative frequency."""
    cdef Py_ssize_t m = s.shape[0], i
    if n.shape[0] != m:
        raise ValueError("s and n differ in length")
    q_arr, p_arr, l_arr = np.empty(m), np.empty(m), np.empty(m)
    cdef double[::1] q = q_arr, p = p_arr, l = l_arr
    cdef double mu1 = mu, beta1 = beta
    cdef Scorer sc = Scorer(QUALITY_EVC, S, N, S / N if N > 0 else 0.0, 0.0,
                            &mu1, &beta1, NO_TABLE, NULL, -1, NULL, -1)
    with nogil:
        for i in range(m):
            _score(&sc, s[i], n[i], 1, &q[i], &p[i], &l[i])
    return q_arr, p_arr, l_arr


def reach_table(double S, double N, const double[::1] mu, const double[::1] beta):
    """``reach[L - 1, k] = max_{j <= k} q(j, j)`` for ``k = 0..floor(S)``:
    the best EVC quality of a pure rule of length ``L`` with at most ``k``
    positives (plus Brent's tolerance), the bound :func:`beam_search` uses.
    Requires integer counts (every weight an integer)."""
    cdef Py_ssize_t L, k, top = <Py_ssize_t>S
    if mu.shape[0] != beta.shape[0]:
        raise ValueError("mu and beta differ in length")
    out_arr = np.zeros((mu.shape[0], top + 1))
    cdef double[:, ::1] out = out_arr
    cdef double q, p, l, best
    cdef Scorer sc = Scorer(QUALITY_EVC, S, N, S / N if N > 0 else 0.0, 0.0,
                            &mu[0], &beta[0], NO_TABLE, NULL, -1, NULL, -1)
    with nogil:
        for L in range(1, mu.shape[0] + 1):
            best = 0.0
            for k in range(1, top + 1):
                _score(&sc, <double>k, <double>k, <int>L, &q, &p, &l)
                if q > best:
                    best = q
                out[L - 1, k] = best + 1e-9  # Brent's tolerance
    return out_arr
