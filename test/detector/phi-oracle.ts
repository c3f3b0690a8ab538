/**
 * Independent oracles for phi, written from the papers rather than from `src/detector/phi.ts`:
 * - Akka's logistic approximation of the normal CDF (Bowling, Khasawneh, Kaewkuekool and Cho, "A
 *   logistic approximation to the cumulative normal distribution", 2009), as Akka's
 *   PhiAccrualFailureDetector uses it: Φ(y) ≈ 1 / (1 + e^(−y(1.5976 + 0.070566 y²))), phi = −log10(1 − Φ);
 * - the exact normal tail through erfc, by the continued-fraction-free Chebyshev fit of Numerical
 *   Recipes (`erfcc`, fractional error below 1.2e-7 everywhere), so that the approximation itself is
 *   checked against the normal distribution it stands for;
 * - the exponential detector of Cassandra: phi = (t / mean) / ln 10 = −log10(e^(−t/mean)).
 */

/** 1 − Φ(y) by the logistic approximation, computed on the side that does not cancel. */
function logisticTail(y: number): number {
  const z = y * (1.5976 + 0.070566 * y * y);
  // 1 − 1/(1 + e^−z) = e^−z / (1 + e^−z) = 1 / (1 + e^z)
  return z > 0 ? Math.exp(-z) / (1 + Math.exp(-z)) : 1 / (1 + Math.exp(z));
}

/** Akka's phi for a silence of `t` ms with heartbeats every `mean` ± `sd` ms. */
export function logisticPhi(t: number, mean: number, sd: number): number {
  return -Math.log10(logisticTail((t - mean) / sd));
}

/** erfc(x), Numerical Recipes' erfcc: fractional error < 1.2e-7. */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** The exact phi of a normal distribution: −log10(1 − Φ(y)) = −log10(erfc(y / √2) / 2). */
export function exactNormalPhi(t: number, mean: number, sd: number): number {
  return -Math.log10(erfc((t - mean) / sd / Math.SQRT2) / 2);
}

/** Cassandra's exponential phi; 0 for no silence. */
export function exponentialPhi(t: number, mean: number): number {
  return t > 0 ? t / mean / Math.LN10 : 0;
}

/** |a − b| within `relative` of the larger magnitude, or within `absolute`. */
export function near(a: number, b: number, relative: number, absolute = 0): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= Math.max(absolute, relative * Math.max(Math.abs(a), Math.abs(b)));
}
