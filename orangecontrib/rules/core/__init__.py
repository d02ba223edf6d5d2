"""The compiled Cython core shared by every learner of the add-on.

There is deliberately no pure-Python fallback: if the extensions were not
built, importing this package fails with an explanation instead of running
silently slow code.
"""

try:
    from . import _coverage, _evc, _evc_quality, _hull, _itemsets, _slipper, _sls  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "The compiled core of Orange3-Rules (orangecontrib.rules.core._coverage, _evc, "
        "_evc_quality, _hull, _itemsets, _slipper, _sls) "
        "is missing or was built for another Python/numpy. Install the add-on "
        "with pip so that its Cython extensions are compiled, e.g. "
        "'pip install .' (or 'pip install -e .') in the source directory; "
        "after editing a .pyx file, run that command again. "
        f"(Original error: {exc})"
    ) from exc

if not _coverage.cpu_has_baseline():  # pragma: no cover - no such CPU here
    raise ImportError(
        "This CPU lacks the POPCNT instruction, which the compiled core of "
        "Orange3-Rules is built for on x86-64 (every x86-64 CPU since 2008-2011 "
        "has it). To run it here, build it from source for this CPU: "
        "ORANGE_RULES_PORTABLE=1 pip install --no-binary Orange3-Rules Orange3-Rules "
        "(or ORANGE_RULES_PORTABLE=1 pip install . in the source directory).")

from ._evc import SearchCache, SearchData, beam_search, permutation_maxima  # noqa: E402
from ._evc_quality import (Quality, chi2_isf, chi2_sf, corrected_positives,  # noqa: E402
                           evc_quality, lrs, reach_table)
from ._sls import SLSData, empty_rules, rule_set_cover, sls_move, sls_search  # noqa: E402
from ._hull import (HullSelection, coverage_counts, equal_weights, first_concavity,  # noqa: E402
                    first_insertion)
from ._itemsets import mine_class_rules  # noqa: E402
from ._slipper import (WEIGHT_UNIT, best_sqrt_thresholds,  # noqa: E402
                       best_sqrt_thresholds_sparse, class_sums, compact_sorted, fixed_point,
                       grow_dense, prune_table, reweight, signed_fixed_point, split_grow,
                       MAX_BINS, SortedBins, tie_groups)
from ._coverage import (  # noqa: E402
    Kind,
    Op,
    bits_check,
    class_weights,
    column_mask,
    cover_columns,
    cover_matrix,
    IndicatorMatrix,
    discrete_refinements,
    best_gradient_split,
    gradient_histograms,
    n_words,
    pack_bits,
    unpack_bits,
    violation_matrix,
)

# the condition codes every kernel shares (one enum, ``core/_coverage.pxd``)
OP_EQ, OP_LE, OP_GE, OP_LT = (int(Op.OP_EQ), int(Op.OP_LE), int(Op.OP_GE),
                              int(Op.OP_LT))
KIND_DISCRETE, KIND_CONTINUOUS = int(Kind.KIND_DISCRETE), int(Kind.KIND_CONTINUOUS)

__all__ = [
    "KIND_CONTINUOUS", "KIND_DISCRETE", "OP_EQ", "OP_GE", "OP_LE", "OP_LT",
    "WEIGHT_UNIT", "best_sqrt_thresholds", "best_sqrt_thresholds_sparse", "bits_check",
    "class_weights", "compact_sorted", "fixed_point", "grow_dense", "tie_groups",
    "MAX_BINS", "SortedBins",
    "class_sums", "prune_table", "reweight", "signed_fixed_point", "split_grow",
    "corrected_positives", "lrs",
    "Kind", "Op", "Quality", "SearchCache", "SearchData", "beam_search", "chi2_isf", "chi2_sf",
    "evc_quality", "permutation_maxima", "reach_table",
    "column_mask", "cover_columns",
    "cover_matrix", "violation_matrix", "IndicatorMatrix", "discrete_refinements",
    "best_gradient_split", "gradient_histograms", "n_words",
    "pack_bits",
    "HullSelection", "coverage_counts", "equal_weights", "first_concavity", "first_insertion",
    "mine_class_rules", "SLSData", "empty_rules",
    "rule_set_cover", "sls_move", "sls_search", "unpack_bits",
]
