# cython: language_level=3
# The rule-quality statistics of EVC rule learning (Možina et al. 2019;
# doc/evc.md): Dunning's likelihood ratio statistic of a rule's 2x2 table
# (eq. 14), the chi-square tails with one degree of freedom, the Gumbel
# tail and the extreme value correction (steps 1-5 of Section 4.1: the
# corrected LRS and the s_bar whose LRS it is, by Brent's method), and how
# the beam search scores and bounds a candidate (Scorer). Inline, so the
# search (_evc.pyx) and the statistics' Python functions (_evc_quality.pyx)
# each compile them into their own loops without the GIL.
from libc.math cimport INFINITY, exp, expm1, fabs, isnan, log, sqrt
from scipy.special.cython_special cimport erfc, ndtri

# a Gumbel scale below this means the permuted searches found no optimism
# (evc.TINY_BETA is the same value)
cdef extern from *:
    """
    #define RULES_EVC_TINY_BETA 1e-6
    """
    const double TINY_BETA "RULES_EVC_TINY_BETA"


cpdef enum Quality:
    QUALITY_LRS = 0    # the LRS itself (the Gumbel fit's searches)
    QUALITY_EVC = 1    # the extreme-value-corrected relative frequency
    QUALITY_M = 2      # the m-estimate (eq. 13)


# ------------------------------------------------------------ eq. 14
cdef struct XLogX:
    # k log k for the integers 0..top: with integer weights every count is
    # an integer, so the LRS needs no log at all. A table entry is computed
    # by the same expression as the direct value, so both give the same bits.
    const double *table
    double top
    bint exact      # every count of the search is an integer <= top
    const double *logk   # log k for the same integers (bounds only)


cdef inline double _xlogx(double x, const XLogX *t) noexcept nogil:
    cdef long k
    if x <= 0.0:
        return 0.0
    if x <= t.top:
        k = <long>x
        if <double>k == x:
            return t.table[k]
    return x * log(x)


cdef inline XLogX no_table() noexcept nogil:
    """No table: every ``k log k`` computed (weights that are not all integers)."""
    return XLogX(NULL, -1.0, False, NULL)


cdef inline void _fill_log(double *table, long top) noexcept nogil:
    cdef long k
    table[0] = -INFINITY
    for k in range(1, top + 1):
        table[k] = log(<double>k)


cdef inline double _log(double x, const XLogX *t) noexcept nogil:
    """``log x``, looked up for the integers of an exact table."""
    return t.logk[<long>x] if t.exact else log(x)


cdef inline void _fill_xlogx(double *table, long top) noexcept nogil:
    cdef long k
    table[0] = 0.0
    for k in range(1, top + 1):
        table[k] = (<double>k) * log(<double>k)


cdef inline double _lrs_t(double s, double n, double S, double N,
                          const XLogX *t) noexcept nogil:
    """Eq. 14, ``2 sum O log(O / E)`` over the four cells, written as
    ``2 [sum f(O) - f(row sums) - f(column sums) + f(N)]`` with
    ``f(x) = x log x``; 0 when the rule is no better than the prior
    (``s N <= n S``)."""
    cdef double v
    cdef const double *x
    if n <= 0.0 or N <= 0.0 or n >= N or s * N <= n * S:
        return 0.0
    if t.exact:  # the same terms, looked up without checks
        x = t.table
        v = (x[<long>s] + x[<long>(n - s)] + x[<long>(S - s)] + x[<long>(N - n - S + s)]
             - x[<long>n] - x[<long>(N - n)] - x[<long>S] - x[<long>(N - S)] + x[<long>N])
        return 2.0 * v if v > 0.0 else 0.0
    v = (_xlogx(s, t) + _xlogx(n - s, t) + _xlogx(S - s, t) + _xlogx(N - n - S + s, t)
         - _xlogx(n, t) - _xlogx(N - n, t) - _xlogx(S, t) - _xlogx(N - S, t)
         + _xlogx(N, t))
    return 2.0 * v if v > 0.0 else 0.0


# ------------------------------------------------------------ the correction
cdef inline double _chi2_sf(double x) noexcept nogil:
    """Chi-square survival function, 1 degree of freedom."""
    return erfc(sqrt((x if x > 0.0 else 0.0) / 2.0))


cdef inline double _chi2_isf(double p) noexcept nogil:
    """Inverse of :func:`_chi2_sf` (``p >= 1`` gives 0)."""
    cdef double z
    if p >= 1.0:
        return 0.0
    if p < 0.0:
        p = 0.0
    z = ndtri(p / 2.0)
    return z * z


cdef inline double _gumbel_sf(double x, double mu, double beta) noexcept nogil:
    """``1 - G(x)``, ``G(x) = exp(-exp(-(x - mu) / beta))`` (step 2)."""
    return -expm1(-exp(-(x - mu) / beta))


cdef inline double _brent(double lo, double hi, double n, double S, double N,
                          double target, double xtol, int maxiter,
                          const XLogX *t) noexcept nogil:
    """Root of ``f(x) = lrs(x, n) - target`` on ``[lo, hi]``, ``f(lo) < 0 <=
    f(hi)``: Brent's method (inverse quadratic interpolation, secant and
    bisection steps, Brent 1973)."""
    cdef double a = lo, b = hi, c, d, e, fa, fb, fc, p, q, r, s, tol, m
    cdef int it
    fa = _lrs_t(a, n, S, N, t) - target
    fb = _lrs_t(b, n, S, N, t) - target
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
        fb = _lrs_t(b, n, S, N, t) - target
    return b


cdef inline double _corrected(double s, double n, double S, double N, double lrs_bar,
                              double xtol, int maxiter, const XLogX *t) noexcept nogil:
    """Step 5: ``s_bar`` in ``[n S / N, s]`` with ``LRS(s_bar, n) = LRS_bar``."""
    cdef double lo, full
    cdef XLogX checked = XLogX(t.table, t.top, False, t.logk)  # Brent's x is not an integer
    if n <= 0.0 or N <= 0.0:
        return s
    lo = n * S / N
    if s <= lo:
        return s
    if lrs_bar <= 0.0:
        return lo
    full = _lrs_t(s, n, S, N, t)
    if lrs_bar >= full:
        return s
    return _brent(lo, s, n, S, N, lrs_bar, xtol, maxiter, &checked)


cdef struct Scorer:
    # how candidates of one search are scored
    int kind                 # Quality
    double S, N, prior, m
    const double *mu         # Gumbel mu for rule lengths 1..max_len (index L - 1)
    const double *beta
    XLogX table
    double *pure             # EVC: q(min(n, S), n) of integer n, per length; NaN = unknown
    long pure_top            # the largest n in ``pure`` (-1: no cache)
    const double *reach      # EVC: max over k <= s of q(k, k), per length (see _reach)
    long reach_top           # the largest s in ``reach`` (-1: none)


cdef inline double _corrected_lrs(const Scorer *sc, double l, int L, double *p) noexcept nogil:
    """Steps 2-4: ``P_a`` (into ``p``) and the corrected ``LRS_bar``."""
    cdef double beta = sc.beta[L - 1]
    if beta > TINY_BETA:
        p[0] = _gumbel_sf(l, sc.mu[L - 1], beta)
        return _chi2_isf(2.0 * p[0] if 2.0 * p[0] < 1.0 else 1.0)  # steps 3-4
    p[0] = _chi2_sf(l)  # no optimism measured: plain chi-square
    return l


cdef inline void _score(const Scorer *sc, double s, double n, int L, double *q,
                        double *p, double *l) noexcept nogil:
    """Steps 1-5 for a rule of length ``L`` with counts ``s`` of ``n``:
    quality ``q``, ``P_a`` (``p``) and LRS (``l``)."""
    cdef double lrs_bar
    l[0] = _lrs_t(s, n, sc.S, sc.N, &sc.table)
    if sc.kind == QUALITY_LRS:
        q[0] = l[0]
        p[0] = 1.0
    elif sc.kind == QUALITY_M:
        q[0] = (s + sc.m * sc.prior) / (n + sc.m if n + sc.m > 1e-300 else 1e-300)
        p[0] = _chi2_sf(l[0])
    else:
        lrs_bar = _corrected_lrs(sc, l[0], L, p)
        if n > 0.0:
            q[0] = _corrected(s, n, sc.S, sc.N, lrs_bar, 1e-9, 100, &sc.table) / n
        else:
            q[0] = sc.prior


cdef inline bint _score_above(const Scorer *sc, double s, double n, int L,
                              double bar, double *q, double *p,
                              double *l) noexcept nogil:
    """:func:`_score`, unless the EVC quality is provably below ``bar``
    (then False, without the root-find). For fixed ``n`` the LRS is convex
    in ``s``, so its tangent at ``s`` lies below it and reaches ``LRS_bar``
    no earlier than the LRS does: one Newton step from ``s`` bounds
    ``s_bar`` from above."""
    cdef double lrs_bar, lo, slope, root, N = sc.N, S = sc.S
    if sc.kind != QUALITY_EVC or n <= 0.0 or N <= 0.0:
        _score(sc, s, n, L, q, p, l)
        return True
    l[0] = _lrs_t(s, n, S, N, &sc.table)
    lrs_bar = _corrected_lrs(sc, l[0], L, p)
    lo = n * S / N
    if s > lo and 0.0 < lrs_bar < l[0] and s < n and s < S and N - n - S + s > 0:
        slope = 2.0 * (_log(s, &sc.table) - _log(n - s, &sc.table)
                       - _log(S - s, &sc.table) + _log(N - n - S + s, &sc.table))
        if slope > 0.0:
            root = s - (l[0] - lrs_bar) / slope
            if root < lo:
                root = lo
            if root / n * (1.0 + 1e-9) + 1e-12 < bar:
                return False
    q[0] = _corrected(s, n, S, N, lrs_bar, 1e-9, 100, &sc.table) / n
    return True


cdef inline double _upper_bound(Scorer *sc, double s, double n, int L) noexcept nogil:
    """A quality the candidate counted ``(s, n)`` cannot exceed, without a
    root-find: the corrected quality never exceeds the relative frequency
    (``s_bar <= s``), nor that of the purest rule of the same coverage (it is
    non-decreasing in ``s`` for fixed ``n``: every step of the correction is
    monotone), which is computed once per integer ``n`` and length; the
    m-estimate never exceeds ``max(s / n, prior)``."""
    cdef double f = s / n, q, p, l, top
    cdef double *slot
    cdef long k
    if sc.kind == QUALITY_M:
        return sc.prior if sc.prior > f else f
    if sc.kind != QUALITY_EVC or n > sc.pure_top:
        return f
    k = <long>n
    if <double>k != n:
        return f
    slot = &sc.pure[(L - 1) * (sc.pure_top + 1) + k]
    if isnan(slot[0]):
        top = sc.S if sc.S < n else n
        _score(sc, top, n, L, &q, &p, &l)
        slot[0] = q + 1e-9  # Brent's tolerance
    return slot[0] if slot[0] < f else f
