"""SLIPPER's round sums as numpy expressions (what ``slipper.boost_rounds``
and ``slipper.prune_rule`` computed before the core did), the reference
of ``tests/test_slipper_kernels.py``: the core's must be the same floats."""
import numpy as np


def class_sums(D, ypos, mask):
    return D[mask & (ypos == 1)].sum(), D[mask & (ypos == 0)].sum()


def split_grow(perm, D):
    cum = np.cumsum(D[perm])
    n_grow = int(np.searchsorted(cum, cum[-1] * 2 / 3, side="left")) + 1
    grow = np.zeros(len(D), bool)
    grow[perm[:n_grow]] = True
    return grow


def prune_table(lengths, grow, ypos, D, L):
    group = np.where(grow, 0, 2) + (ypos != 1)
    w = np.bincount(lengths * 4 + group, weights=D, minlength=4 * L).reshape(L, 4)
    return np.cumsum(w[::-1], axis=0)[::-1], D[~grow].sum()


def reweight(D, covered, ypos, e_pos, e_neg):
    D = np.where(covered, D * np.where(ypos == 1, e_pos, e_neg), D)
    return D / D.sum()
