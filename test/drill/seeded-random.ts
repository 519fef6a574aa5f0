// Reproducible random numbers for the drill: one independent stream per purpose and app.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

/** Outputs dropped after seeding: xoroshiro's first outputs from a sparse state are poorly mixed. */
const WARM_UP = 32;

/**
 * A random source in [0, 1) for stream `stream` of seed `seed` (pure-rand's xoroshiro128+).
 * Distinct (seed, stream) pairs start from distinct generator states, so every app draws its own
 * sequence and a run is reproducible from its seed (what happens in real time still varies).
 *
 * @param seed The run's seed (an integer).
 * @param stream Which stream: e.g. the app's index, or a fixed number per purpose.
 * @example
 * const random = createSeededRandom(1, 42);
 * const phaseMs = random() * 30_000;
 */
export function createSeededRandom(seed: number, stream: number): () => number {
  const rng = xoroshiro128plusFromState([seed | 0, stream | 0, 0x9e3779b9, 0x7f4a7c15]);
  for (let i = 0; i < WARM_UP; i++) rng.next();
  return () => uniformFloat64(rng);
}
