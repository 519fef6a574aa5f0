import * as diagnostics from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { findDiagnosticsChannels } from './diagnostics-channel.js';

describe('findDiagnosticsChannels (the platform fence)', () => {
  it("is Node's module itself, synchronously, where process.getBuiltinModule exists", () => {
    const found = findDiagnosticsChannels({
      process: { versions: { node: '22.12.0' }, getBuiltinModule: () => diagnostics },
    });
    expect(found).toBe(diagnostics);
    // This Node (20.16+ has getBuiltinModule): the default scope finds it too.
    expect(findDiagnosticsChannels()).toMatchObject({ channel: diagnostics.channel });
  });

  it('is a promise of the module on Node 20.11-20.15 (no getBuiltinModule)', async () => {
    const found = findDiagnosticsChannels({ process: { versions: { node: '20.11.0' } } });
    expect(found).toBeInstanceOf(Promise);
    const loaded = await found;
    expect(loaded?.channel).toBe(diagnostics.channel);
    expect(loaded?.tracingChannel).toBe(diagnostics.tracingChannel);
  });

  it.each([
    ['a browser or a worker (no process)', {}],
    ["a bundler's process shim (no Node version)", { process: { versions: {} } }],
    ['a shim without versions', { process: {} }],
  ])('is undefined in %s', (_name, scope) => {
    expect(findDiagnosticsChannels(scope)).toBeUndefined();
  });
});
