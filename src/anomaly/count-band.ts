// The lower edge of a count's band from the count's own distribution, where the normal edge fails.

/**
 * Below this expected count the lower edge comes from the exact tail (summing the pmf costs
 * O(expected) terms); above it the normal edge with the Cornish–Fisher term is close enough.
 */
export const COUNT_EDGE_LIMIT = 60;

/** One-sided upper tail of the standard normal, 1 - Φ(k). */
export function normalTail(k: number): number {
  return 0.5 * erfc(k / Math.SQRT2);
}

/** erfc by the Chebyshev fit of Numerical Recipes (relative error < 1.2e-7 everywhere). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(-z * z + poly);
  return x >= 0 ? r : 2 - r;
}

/**
 * Lower edge of a count with mean `mean` and variance `variance` (>= mean) under the negative
 * binomial that variance implies (NB2: r = mean² / (variance - mean); Poisson when they are equal):
 * a - 0.5, where a is the smallest count with P(X <= a) >= tail. So exactly the counts whose
 * lower-tail probability is below `tail` fall under it; 0 when no count does. The band's variance
 * model phi·mean² + mean is the negative binomial's, so this is its own distribution, not a new
 * assumption. With mean 16 and variance 36 (prediction error on top of Poisson noise) a count of
 * 2 or less is flagged at k = 3 (P(X <= 2) = 1.1e-3), where the normal edge, 16 - 3·6, is below 0.
 */
export function countLowerEdge(mean: number, variance: number, tail: number): number {
  if (!(mean > 0) || !(tail > 0)) return 0;
  const excess = variance - mean;
  const poisson = !(excess > mean * 1e-9);
  const r = poisson ? Infinity : (mean * mean) / excess;
  const q = poisson ? 0 : mean / (r + mean);
  let p = poisson ? Math.exp(-mean) : Math.exp(r * Math.log1p(-q));
  let cdf = p;
  let x = 0;
  // The lower tail reaches `tail` before the mean; the bound only guards against non-finite input.
  while (cdf < tail && x < mean) {
    p *= poisson ? mean / (x + 1) : ((x + r) / (x + 1)) * q;
    x++;
    cdf += p;
  }
  return Math.max(0, x - 0.5);
}
