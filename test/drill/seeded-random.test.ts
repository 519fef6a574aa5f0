import { describe, expect, it } from 'vitest';
import { createSeededRandom } from './seeded-random.js';

describe('createSeededRandom', () => {
  it('repeats a stream for the same seed and stream, and differs across streams and seeds', () => {
    const draw = (seed: number, stream: number) => {
      const random = createSeededRandom(seed, stream);
      return Array.from({ length: 5 }, () => random());
    };
    expect(draw(1, 7)).toEqual(draw(1, 7));
    expect(draw(1, 7)).not.toEqual(draw(1, 8));
    expect(draw(1, 7)).not.toEqual(draw(2, 7));
  });

  it('draws from [0, 1) with a roughly uniform spread', () => {
    const random = createSeededRandom(3, 0);
    const buckets = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) {
      const x = random();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      buckets[Math.floor(x * 4)]! += 1;
    }
    for (const count of buckets) expect(count).toBeGreaterThan(850);
  });
});
