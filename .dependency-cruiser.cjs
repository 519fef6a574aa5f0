// Import rules of the repo (`npm run lint`): no cycles; the packages apart (none imports another's
// files or the repo's test/; what the SDK and the mock server share is wire/); in the SDK data
// flows one way, client → failover → transport → (auth) → lease/internal, every layer importing
// only below it (docs/decisions/0015-sdk-layers-and-transport.md); in the mock server, route →
// auth hook → service → store, each service its own plugin.
/** @type {import('dependency-cruiser').IConfiguration} */
const SDK = '^sdk/src/';
const layer = (name) => `${SDK}${name}`;
const MOCK = '^mock-server/src/';
const SERVICES = 'standby|main|events|idp|admin';
/** The workspaces: the private wire contract and the two published packages. */
const PACKAGES = 'wire|sdk|mock-server';
/** The mock server's entry points, the only files at the root of mock-server/src. */
const ENTRY_POINTS = '(app|server|cli|index)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle (type-only ones included) is a design bug.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-test',
      severity: 'error',
      comment: 'Package sources never import tests or test helpers.',
      from: { path: '^(sdk|mock-server)/src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^test/' },
    },
    {
      name: 'sdk-leaves-import-nothing-above',
      severity: 'error',
      comment: 'types.ts, errors.ts and internal/ are the bottom layer.',
      from: { path: `${SDK}(types|errors)\\.ts$|${layer('internal/')}` },
      to: { path: SDK, pathNot: `${SDK}(types|errors)\\.ts$|${layer('internal/')}` },
    },
    {
      name: 'sdk-options-and-hooks-stay-low',
      severity: 'error',
      comment:
        'options/ (every option resolved once) and client-hooks.ts import only the bottom layer (and each other).',
      from: { path: `${layer('options/')}|${SDK}client-hooks\\.ts$`, pathNot: '\\.test\\.ts$' },
      to: {
        path: SDK,
        pathNot: `${SDK}(types|errors|client-hooks)\\.ts$|${layer('(internal|options)/')}`,
      },
    },
    {
      name: 'no-relative-import-across-packages',
      severity: 'error',
      comment:
        "A package never imports another package's files by relative path: what both share (the wire contract) is the private workspace wire/, imported by its name (@standby-licensing/wire) and bundled into each build.",
      from: { path: `^(${PACKAGES})/` },
      to: { path: `^(${PACKAGES})/`, pathNot: '^$1/', dependencyTypesNot: ['aliased'] },
    },
    {
      name: 'packages-share-only-the-wire',
      severity: 'error',
      comment:
        'The published packages never import each other: the mock server does not depend on the SDK, nor the SDK on the mock server. What both need is in wire/.',
      from: { path: '^(sdk|mock-server)/src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(sdk|mock-server)/', pathNot: '^$1/' },
    },
    {
      name: 'wire-stands-alone',
      severity: 'error',
      comment:
        'wire/ is bundled into both packages: it imports neither of them, nor tests or examples.',
      from: { path: '^wire/' },
      to: { path: '^(sdk|mock-server|test|examples)/' },
    },
    {
      name: 'package-not-repo-tests',
      severity: 'error',
      comment:
        "A package tests on its own (npm test --workspace <name>): its sources, tests and test helpers never import the repo's top-level test/, which holds what crosses packages.",
      from: { path: '^(wire|sdk|mock-server)/' },
      to: { path: '^test/' },
    },
    {
      name: 'mock-server-not-sdk',
      severity: 'error',
      comment:
        "The mock server, its tests and test helpers included, never reaches the SDK's sources, by path or by name: it tests on its own and stands for the real services, not a copy of the SDK. What both need is in wire/.",
      from: { path: '^mock-server/' },
      to: { path: '^sdk/' },
    },
    {
      name: 'sdk-not-mock-server',
      severity: 'error',
      comment:
        "The SDK, its tests and test helpers included, never reaches the mock server's sources, by path or by name: it tests on its own (msw and the fakes stand for the services). Tests of the SDK against a running mock server live in the repo's test/.",
      from: { path: '^sdk/' },
      to: { path: '^mock-server/' },
    },
    {
      name: 'sdk-auth-and-lease-below-transport',
      severity: 'error',
      comment: 'auth/ and lease/ never reach up to transport, failover, client or events.',
      from: { path: `${layer('(auth|lease)/')}`, pathNot: '\\.test\\.ts$' },
      to: { path: `${layer('(transport|failover|client|events|testing|cli)/')}` },
    },
    {
      name: 'sdk-lease-and-auth-independent',
      severity: 'error',
      comment: 'Verification does not depend on credentials, nor credentials on verification.',
      from: { path: `${layer('(auth|lease)/')}`, pathNot: '\\.test\\.ts$' },
      to: { path: `${layer('(auth|lease)/')}`, pathNot: '$1' },
    },
    {
      name: 'sdk-transport-below-failover',
      severity: 'error',
      comment: 'transport/ talks HTTP; it never calls up into strategies, operations or verify.',
      from: { path: layer('transport/'), pathNot: '\\.test\\.ts$' },
      to: { path: `${layer('(failover|client|lease|events|testing|cli)/')}` },
    },
    {
      name: 'sdk-failover-below-client',
      severity: 'error',
      comment: 'Strategies get their operation and dependencies passed down from the client.',
      from: { path: layer('failover/'), pathNot: '\\.test\\.ts$' },
      to: { path: `${layer('(client|lease|events|testing|cli)/')}` },
    },
    {
      name: 'sdk-events-apart',
      severity: 'error',
      comment: 'The event feed client shares only the transport and the bottom layers.',
      from: { path: layer('events/'), pathNot: '\\.test\\.ts$' },
      to: { path: `${layer('(client|failover|lease|auth|testing|cli)/')}` },
    },
    {
      name: 'sdk-testing-kit-self-contained',
      severity: 'error',
      comment:
        'The msw testing kit ships on its own entry: it uses the bottom layer (types, errors, internal/) and nothing of the client, failover, transport, lease or auth code.',
      from: { path: layer('testing/'), pathNot: '\\.test\\.ts$' },
      to: { path: SDK, pathNot: `${layer('(testing|internal)/')}|${SDK}(types|errors)\\.ts$` },
    },
    {
      name: 'sdk-testing-kit-apart',
      severity: 'error',
      comment:
        'Nothing outside the testing kit imports it, so no entry but /testing carries msw or the fakes.',
      from: { path: SDK, pathNot: `${layer('testing/')}|\\.test\\.ts$` },
      to: { path: layer('testing/') },
    },
    {
      name: 'sdk-node-only-behind-its-entry',
      severity: 'error',
      comment: 'Node-only code (node/) is reached only through the /node entry (sdk/src/node.ts).',
      from: { path: SDK, pathNot: `${SDK}node\\.ts$|${layer('node/')}` },
      to: { path: layer('node/') },
    },
    {
      name: 'sdk-core-not-entries',
      severity: 'error',
      comment: 'Nothing inside the SDK imports its public entry points.',
      from: { path: `${layer('[^/]+/')}`, pathNot: '\\.test\\.ts$' },
      to: { path: `${SDK}(index|node)\\.ts$|${layer('testing/index\\.ts$')}` },
    },
    {
      name: 'mock-store-at-the-bottom',
      severity: 'error',
      comment:
        'Mock server: route -> auth hook -> service -> store; the store calls nothing above it.',
      from: { path: `${MOCK}store/`, pathNot: '\\.test\\.ts$' },
      to: {
        path: MOCK,
        pathNot: `${MOCK}(store/|http/api-error\\.ts$|validation/json-depth\\.ts$|config/limits\\.ts$)`,
      },
    },
    {
      name: 'mock-shared-parts-below-services',
      severity: 'error',
      comment:
        'Shared parts (auth, crypto, licensing, http, validation, config) never reach up into a service, the plugins or the entry points.',
      from: {
        path: `${MOCK}(auth|crypto|licensing|http|validation|config)/`,
        pathNot: '\\.test\\.ts$',
      },
      to: { path: `${MOCK}(${SERVICES}|plugins)/|${MOCK}${ENTRY_POINTS}` },
    },
    {
      name: 'mock-plugins-registered-by-the-app',
      severity: 'error',
      comment:
        'plugins/ holds what decorates the root instance; app.ts registers it (index.ts exports the Clock type). Everything else reads the decorations (app.clock, app.eventStore, ...), never imports a plugin.',
      from: { path: MOCK, pathNot: `${MOCK}(app|index)\\.ts$|${MOCK}plugins/|\\.test\\.ts$` },
      to: { path: `${MOCK}plugins/` },
    },
    {
      name: 'mock-plugins-below-the-app',
      severity: 'error',
      comment:
        "A plugin loads shared state (from store/, crypto/, a service's state files); it never imports the entry points or a service's routes.",
      from: { path: `${MOCK}plugins/`, pathNot: '\\.test\\.ts$' },
      to: { path: `${MOCK}${ENTRY_POINTS}|${MOCK}(${SERVICES})/index\\.ts$` },
    },
    {
      name: 'mock-services-apart',
      severity: 'error',
      comment:
        'Each service is its own plugin; only main reaches admin (the faults admin injects into it).',
      from: { path: `${MOCK}(${SERVICES})/`, pathNot: '\\.test\\.ts$' },
      to: {
        path: `${MOCK}(${SERVICES})/`,
        pathNot: [`${MOCK}$1/`, `${MOCK}admin/(fault-hook|fault-registry)\\.ts$`],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
