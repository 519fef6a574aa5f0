// machineId: every branch on injected OS readers (Linux files, macOS ioreg, Windows reg with the
// 64-bit view fallback, other platforms), the override variable, the HMAC and its keying, that the
// raw OS id never leaves it, and once for real on this machine.
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../errors.js';
import { machineId } from '../node.js';
import { HARDWARE_ID_VARIABLE, type MachineIdSources, readMachineId } from './machine-id.js';

const RAW = '4c4c4544003457108052b4c04f384d32';
const APP = 'com.example.app';
const hmac = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

/** Sources where only `files` exist and `commands` print what they map to. */
function sources(
  platform: NodeJS.Platform,
  files: Record<string, string> = {},
  commands: Record<string, string> = {},
  env: Record<string, string | undefined> = {},
) {
  const ran: string[] = [];
  const read: string[] = [];
  const given: MachineIdSources = {
    platform,
    env,
    async readFile(path) {
      read.push(path);
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
      return text;
    },
    async run(command, args) {
      const line = [command, ...args].join(' ');
      ran.push(line);
      const out = commands[line];
      if (out === undefined) throw new Error(`${line}: exit 1`);
      return out;
    },
  };
  return { given, ran, read };
}

const IOREG = `+-o J316sAP  <class IOPlatformExpertDevice, id 0x100000202, registered, matched, active, busy 0 (1 ms), retain 30>
  {
    "IOPlatformSerialNumber" = "C02XXXXXXX"
    "IOPlatformUUID" = "${RAW.toUpperCase()}"
    "model" = <"MacBookPro18,3">
  }
`;
const REG = `
HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography
    MachineGuid    REG_SZ    6c3b2f1e-8a4d-4c2b-9e7f-0123456789ab

`;
const REG_QUERY = 'reg query HKLM\\SOFTWARE\\Microsoft\\Cryptography /v MachineGuid';

describe('machineId', () => {
  it('Linux: HMAC-SHA256 of /etc/machine-id keyed by appId, lower-case hex', async () => {
    const { given, read } = sources('linux', { '/etc/machine-id': `${RAW}\n` });
    const id = await readMachineId(given, { appId: APP });
    expect(id).toBe(hmac(APP, RAW));
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(read).toEqual(['/etc/machine-id']);
  });

  it('Linux: falls back to /var/lib/dbus/machine-id when /etc/machine-id is absent, empty or uninitialized', async () => {
    for (const etc of [undefined, '', '\n', 'uninitialized\n']) {
      const files: Record<string, string> = { '/var/lib/dbus/machine-id': RAW };
      if (etc !== undefined) files['/etc/machine-id'] = etc;
      const { given, read } = sources('linux', files);
      expect(await readMachineId(given, { appId: APP })).toBe(hmac(APP, RAW));
      expect(read).toEqual(['/etc/machine-id', '/var/lib/dbus/machine-id']);
    }
  });

  it('macOS: IOPlatformUUID from ioreg -rd1 -c IOPlatformExpertDevice', async () => {
    const { given, ran } = sources('darwin', {}, { 'ioreg -rd1 -c IOPlatformExpertDevice': IOREG });
    expect(await readMachineId(given, { appId: APP })).toBe(hmac(APP, RAW.toUpperCase()));
    expect(ran).toEqual(['ioreg -rd1 -c IOPlatformExpertDevice']);
  });

  it('macOS: ioreg output without IOPlatformUUID, or ioreg failing, is no id', async () => {
    for (const commands of [
      { 'ioreg -rd1 -c IOPlatformExpertDevice': '"IOPlatformSerialNumber" = "X"' },
      {},
    ]) {
      const { given } = sources('darwin', {}, commands);
      await expect(readMachineId(given, { appId: APP })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    }
  });

  it('Windows: MachineGuid from reg query, then from the 64-bit view (32-bit Node on 64-bit Windows)', async () => {
    const guid = '6c3b2f1e-8a4d-4c2b-9e7f-0123456789ab';
    const direct = sources('win32', {}, { [REG_QUERY]: REG });
    expect(await readMachineId(direct.given, { appId: APP })).toBe(hmac(APP, guid));
    expect(direct.ran).toEqual([REG_QUERY]);

    const wow64 = sources('win32', {}, { [`${REG_QUERY} /reg:64`]: REG });
    expect(await readMachineId(wow64.given, { appId: APP })).toBe(hmac(APP, guid));
    expect(wow64.ran).toEqual([REG_QUERY, `${REG_QUERY} /reg:64`]);
  });

  it(`${HARDWARE_ID_VARIABLE}, when set and not empty, is returned as it is, without reading the OS`, async () => {
    const { given, read, ran } = sources(
      'linux',
      { '/etc/machine-id': RAW },
      {},
      { [HARDWARE_ID_VARIABLE]: 'container-7 / image B' },
    );
    expect(await readMachineId(given, { appId: APP })).toBe('container-7 / image B');
    expect([...read, ...ran]).toEqual([]);

    const empty = sources('linux', { '/etc/machine-id': RAW }, {}, { [HARDWARE_ID_VARIABLE]: '' });
    expect(await readMachineId(empty.given, { appId: APP })).toBe(hmac(APP, RAW));
  });

  it('no OS id and no variable: INVALID_ARGUMENT naming the variable, on every platform', async () => {
    for (const platform of ['linux', 'darwin', 'win32', 'freebsd', 'aix'] as const) {
      const { given } = sources(platform);
      const error = await readMachineId(given, { appId: APP }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
      // It ends with what to do (sdk/src/error-advice.test.ts checks the other messages).
      expect((error as Error).message).toMatch(
        new RegExp(`\\. Set ${HARDWARE_ID_VARIABLE} to a stable id of this machine\\.$`),
      );
    }
  });

  it('the raw OS id never leaves it: another app gets another id, and neither contains it', async () => {
    const { given } = sources('linux', { '/etc/machine-id': RAW });
    const a = await readMachineId(given, { appId: 'com.example.a' });
    const b = await readMachineId(given, { appId: 'com.example.b' });
    expect(a).not.toBe(b);
    for (const id of [a, b]) {
      expect(id).not.toContain(RAW);
      expect(id).not.toBe(createHmac('sha256', '').update(RAW).digest('hex'));
    }
  });

  it('refuses a missing or empty appId', async () => {
    const { given } = sources('linux', { '/etc/machine-id': RAW });
    for (const options of [{}, { appId: '' }, { appId: 7 }, { appId: 'a', extra: 1 }]) {
      await expect(readMachineId(given, options as never)).rejects.toBeInstanceOf(
        InvalidOptionError,
      );
    }
  });

  it('on this machine: the HMAC of what the OS really holds', async () => {
    const etc = await readFile('/etc/machine-id', 'utf8').catch(() => '');
    const dbus = await readFile('/var/lib/dbus/machine-id', 'utf8').catch(() => '');
    const raw = [etc, dbus].map((text) => text.trim()).find((text) => text !== '');
    const saved = process.env[HARDWARE_ID_VARIABLE];
    delete process.env[HARDWARE_ID_VARIABLE];
    try {
      if (process.platform !== 'linux' || raw === undefined) {
        // Not a Linux with a machine id: the real function must say what to set.
        if (process.platform === 'linux') {
          await expect(machineId({ appId: APP })).rejects.toMatchObject({
            code: 'INVALID_ARGUMENT',
          });
        }
        return;
      }
      expect(await machineId({ appId: APP })).toBe(hmac(APP, raw));
      process.env[HARDWARE_ID_VARIABLE] = 'set-by-test';
      expect(await machineId({ appId: APP })).toBe('set-by-test');
    } finally {
      if (saved === undefined) delete process.env[HARDWARE_ID_VARIABLE];
      else process.env[HARDWARE_ID_VARIABLE] = saved;
    }
  });
});
