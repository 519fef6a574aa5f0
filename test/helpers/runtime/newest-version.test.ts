import { describe, expect, it } from 'vitest';
import { newestVersion } from './newest-version.js';

describe('newestVersion', () => {
  it('compares each part as a number, not as text', () => {
    expect(newestVersion(['24.8.0', '24.9.0', '24.21.0', '24.10.1'])).toBe('24.21.0');
    expect(newestVersion(['1.4.5', '1.4.10', '1.3.99'])).toBe('1.4.10');
  });

  it('leaves out pre-releases and anything else that is not X.Y.Z', () => {
    expect(newestVersion(['26.12.1', '27.0.0-rc.1', 'latest'])).toBe('26.12.1');
    expect(newestVersion(['2.0.0-beta'])).toBeUndefined();
    expect(newestVersion([])).toBeUndefined();
  });
});
