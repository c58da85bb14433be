// Seeded randomness for the evaluation: the same seed gives the same series on every machine.

/** mulberry32: a 32-bit generator, good enough for simulation and tiny. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Sampler {
  uniform(low: number, high: number): number;
  logUniform(low: number, high: number): number;
  int(low: number, highInclusive: number): number;
  normal(): number;
  /** Student t with `df` degrees of freedom, scaled so its robust sd (1.4826 × MAD) is 1. */
  studentT(df: 3 | 4 | 5): number;
  poisson(mean: number): number;
  pick<T>(items: readonly T[]): T;
}

/** 1.4826 × the MAD of Student t (MAD = the 75th percentile): 3 df 0.7649, 4 df 0.7407, 5 df 0.7267. */
const T_ROBUST_SD = { 3: 1.4826 * 0.7649, 4: 1.4826 * 0.7407, 5: 1.4826 * 0.7267 } as const;

export function sampler(seed: number): Sampler {
  const next = seededRandom(seed);
  const normal = () => {
    const u = next() || 1e-12;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return {
    uniform: (low, high) => low + (high - low) * next(),
    logUniform: (low, high) => Math.exp(Math.log(low) + (Math.log(high) - Math.log(low)) * next()),
    int: (low, high) => low + Math.floor(next() * (high - low + 1)),
    normal,
    studentT(df) {
      let chi = 0;
      for (let i = 0; i < df; i++) chi += normal() ** 2;
      return normal() / Math.sqrt(chi / df) / T_ROBUST_SD[df];
    },
    poisson(mean) {
      if (mean <= 0) return 0;
      if (mean > 40) return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
      // Knuth's product of uniforms.
      const limit = Math.exp(-mean);
      let k = 0;
      let product = next();
      while (product > limit) {
        k++;
        product *= next();
      }
      return k;
    },
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}
