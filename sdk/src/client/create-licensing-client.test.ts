// The client as a whole: what close() ends. Each operation is tested beside its own file.

import { describe, expect, it } from 'vitest';
import { makeClient } from '../../test/helpers/licensing-test-setup.js';
import { rejection } from '../../test/helpers/rejection.js';

describe('close', () => {
  it('refuses every call after close() with CLIENT_CLOSED, sending nothing', async () => {
    const { client } = makeClient();
    await client.close();
    expect(await rejection(client.checkout(['A']))).toMatchObject({ code: 'CLIENT_CLOSED' });
    expect(await rejection(client.restore())).toMatchObject({ code: 'CLIENT_CLOSED' });
    expect(client.has('A')).toBe(false);
  });
});
