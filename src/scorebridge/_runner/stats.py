"""The statistics of a benchmark summary: the Wilson score interval and the exact McNemar test.

Standard library only (`math`), so `import scorebridge` stays light.
"""

from __future__ import annotations

import math
from typing import Final

__all__ = ["Z95", "mcnemar_exact", "wilson_interval"]

Z95: Final = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95% interval."""


def wilson_interval(successes: float, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion `successes / trials`.

    Wilson's interval stays inside [0, 1] and keeps close to its nominal
    coverage for small samples and for proportions near 0 or 1, where the
    normal ("Wald") interval collapses to a point (0/10 gives [0, 0] under
    Wald, [0, 0.278] under Wilson). 8 of 10 gives (0.4902, 0.9433).
    `successes` may be a sum of partial credits (7.5 of 10): the mean value
    is read as the proportion.

    Raises ValueError when `trials` < 1 (no data, no interval) or
    `successes` is not between 0 and `trials`.
    """
    if trials < 1:
        raise ValueError(f"a Wilson interval needs at least one trial; got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and {trials}; got {successes}")
    z2 = Z95 * Z95
    p = successes / trials
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    # At 0 or all successes a bound is exactly 0 or 1; the formula leaves a rounding error there.
    low = 0.0 if successes == 0 else centre - half
    high = 1.0 if successes == trials else centre + half
    return low, high


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided p-value of the exact McNemar test on `b` and `c` discordant pairs.

    Under the null hypothesis (both arms equally often right) each discordant
    pair is a fair coin, so the smaller count follows Binomial(b + c, 1/2);
    the p-value is twice its lower tail, at most 1. No discordant pair gives
    1.0. b=1, c=9 gives 2 * (1 + 10) / 1024 = 0.021484375. Raises ValueError
    on a negative count.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must not be negative; got {b} and {c}")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / (1 << n))
