// Import rules of the repo (`npm run lint`): no cycles; in the SDK data flows one way,
// client → failover → transport → (auth) → lease/internal, every layer importing only below it
// (docs/decisions/0015-sdk-layers-and-transport.md); in the mock server, route → auth hook →
// service → store, each service its own plugin.
/** @type {import('dependency-cruiser').IConfiguration} */
const SDK = '^sdk/src/';
const layer = (name) => `${SDK}${name}`;
const MOCK = '^mock-server/src/';
const SERVICES = 'standby|main|events|idp|admin';

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
      name: 'mock-shares-only-the-wire-names',
      severity: 'error',
      comment:
        'The mock server imports exactly one SDK file: the wire names (one source of truth, bundled).',
      from: { path: MOCK },
      to: { path: SDK, pathNot: `${SDK}internal/wire-names\\.ts$` },
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
      to: { path: MOCK, pathNot: `${MOCK}(store/|errors\\.ts$|json-depth\\.ts$|limits\\.ts$)` },
    },
    {
      name: 'mock-shared-parts-below-services',
      severity: 'error',
      comment:
        'Shared parts (auth, crypto, licensing, http, validation) never reach up into a service.',
      from: { path: `${MOCK}(auth|crypto|licensing|http|validation)/`, pathNot: '\\.test\\.ts$' },
      to: { path: `${MOCK}(${SERVICES})/|${MOCK}(app|server|cli)\\.ts$` },
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
