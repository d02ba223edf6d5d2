"""SLIPPER's round sums as numpy expressions (what ``slipper.Booster.rounds``
and ``slipper.prune_rule`` computed before the core did), the reference
of ``tests/kernels/test_slipper_kernels.py``: the core's must be the same floats."""
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


def prune_length(conds, masks, ypos, D, grow, n):
    """PruneRule one prefix at a time (as ``slipper.prune_rule`` did before
    it took every prefix's eq. 4 and eq. 7 at once): the prefix length."""
    from orangecontrib.rules.slipper import prefix_lengths, prune_loss, smoothed_confidence
    L = len(conds) + 1
    cov, d_prune = prune_table(prefix_lengths(masks, len(D)), grow, ypos, D, L)
    if d_prune <= 0:
        return len(conds)
    best_len, best_loss = len(conds), np.inf
    for length in range(1, L):
        c = smoothed_confidence(cov[length, 0], cov[length, 1], n)
        loss = prune_loss(cov[length, 2] / d_prune, cov[length, 3] / d_prune, c)
        if loss < best_loss - 1e-12:
            best_len, best_loss = length, loss
    return best_len
