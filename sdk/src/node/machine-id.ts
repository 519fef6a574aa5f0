// Node-only: imported solely from sdk/src/node.ts (the `@standby-licensing/sdk/node` entry).
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LicensingError } from '../errors.js';
import { type MachineIdOptions, resolveMachineIdOptions } from '../options/app-integration.js';
import { hardwareTextProblem } from '../options/hardware-id.js';

/** The variable whose value, when set and not empty, is the hardware id as it is. */
export const HARDWARE_ID_VARIABLE = 'STANDBY_LICENSING_HARDWARE_ID';

/** Where {@link readMachineId} reads the OS machine id from (Node's, or fakes in tests). */
export interface MachineIdSources {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** Reads a text file; rejects when it cannot. */
  readFile(path: string): Promise<string>;
  /** Runs a command without a shell and resolves its standard output; rejects when it fails. */
  run(command: string, args: readonly string[]): Promise<string>;
}

const LINUX_FILES = ['/etc/machine-id', '/var/lib/dbus/machine-id'];
const IOREG_UUID = /"IOPlatformUUID"\s*=\s*"([^"]+)"/;
const MACHINE_GUID = /MachineGuid\s+REG_SZ\s+(\S+)/;
const REGISTRY_KEY = 'HKLM\\SOFTWARE\\Microsoft\\Cryptography';

async function firstOf<T>(attempts: readonly (() => Promise<T | undefined>)[]) {
  for (const attempt of attempts) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A Linux machine id file's content, unless empty or systemd's first-boot placeholder. */
function machineIdText(text: string): string | undefined {
  const id = text.trim();
  return id === '' || id === 'uninitialized' ? undefined : id;
}

/** Where the OS keeps its machine id, for the error message. */
const LOOKED_AT: Partial<Record<NodeJS.Platform, string>> = {
  linux: LINUX_FILES.join(' and '),
  darwin: 'IOPlatformUUID (ioreg)',
  win32: `MachineGuid (${REGISTRY_KEY})`,
};

/** The raw OS machine id, or undefined. Never leaves this module. */
function readOsId(sources: MachineIdSources): Promise<string | undefined> {
  switch (sources.platform) {
    case 'linux':
      return firstOf(
        LINUX_FILES.map((path) => async () => machineIdText(await sources.readFile(path))),
      );
    case 'darwin':
      return firstOf([
        async () =>
          IOREG_UUID.exec(
            await sources.run('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']),
          )?.[1],
      ]);
    case 'win32': {
      const query = ['query', REGISTRY_KEY, '/v', 'MachineGuid'];
      // A 32-bit Node on 64-bit Windows reads the 32-bit registry view, which lacks the value.
      return firstOf(
        [query, [...query, '/reg:64']].map(
          (args) => async () => MACHINE_GUID.exec(await sources.run('reg', args))?.[1],
        ),
      );
    }
    default:
      return Promise.resolve(undefined);
  }
}

/**
 * {@link machineId} on given sources: `STANDBY_LICENSING_HARDWARE_ID` when set and not empty,
 * else HMAC-SHA256 keyed by `appId` over the OS machine id, lower-case hex.
 */
export async function readMachineId(
  sources: MachineIdSources,
  options: MachineIdOptions,
): Promise<string> {
  const { appId } = resolveMachineIdOptions(options);
  const override = sources.env[HARDWARE_ID_VARIABLE];
  if (override !== undefined && override !== '') {
    const problem = hardwareTextProblem(override);
    if (problem !== undefined) {
      throw new LicensingError(
        'INVALID_ARGUMENT',
        `${HARDWARE_ID_VARIABLE} ${problem}: it cannot be a hardware id. Set ${HARDWARE_ID_VARIABLE} to an id of at most 256 characters without ';' or control characters, or unset it to use the OS machine id.`,
      );
    }
    return override;
  }
  const osId = await readOsId(sources);
  if (osId === undefined) {
    const where = LOOKED_AT[sources.platform] ?? 'no known place on this platform';
    throw new LicensingError(
      'INVALID_ARGUMENT',
      `No OS machine id could be read on ${sources.platform} (looked at ${where}). Set ${HARDWARE_ID_VARIABLE} to a stable id of this machine.`,
    );
  }
  return createHmac('sha256', appId).update(osId).digest('hex');
}

function runCommand(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { encoding: 'utf8', timeout: 5_000, windowsHide: true },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

/**
 * A stable hardware id for `hardwareId`: HMAC-SHA256 keyed by `appId` over the OS machine id
 * (Linux `/etc/machine-id`, else `/var/lib/dbus/machine-id`; macOS `IOPlatformUUID`; Windows
 * `MachineGuid`), as lower-case hex. The raw OS id never leaves the function: apps and the
 * licensing service see only the HMAC, different for every `appId`. In a container or a cloned
 * image, where machines share an OS id, set `STANDBY_LICENSING_HARDWARE_ID`: when set and not
 * empty, it is returned as it is.
 *
 * @param options `appId`: the app's own identifier, e.g. `com.example.app`.
 * @returns 64 lower-case hex characters, or the variable's value.
 * @throws LicensingError `INVALID_ARGUMENT` naming `STANDBY_LICENSING_HARDWARE_ID` when neither
 *   the OS id nor the variable is there, or when the variable holds what cannot be a hardware id
 *   (a `;`, a control character, more than 256 characters); `InvalidOptionError` for a missing
 *   `appId`.
 * @example
 * import { machineId } from '@standby-licensing/sdk/node';
 * const client = createLicensingClient({ ...options, hardwareId: await machineId({ appId: 'com.example.app' }) });
 */
export function machineId(options: MachineIdOptions): Promise<string> {
  return readMachineId(
    {
      platform: process.platform,
      env: process.env,
      readFile: (path) => readFile(path, 'utf8'),
      run: runCommand,
    },
    options,
  );
}
