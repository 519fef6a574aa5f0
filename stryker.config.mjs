// Mutation testing of the lease-trust code (`npm run mutation`; docs/mutation-testing.md): every
// file that decides whether a token is a lease, which keys and which time to trust, and what the
// lease store holds. Not part of `npm test`: a run takes minutes.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'sdk/src/lease/verify-lease.ts',
    'sdk/src/lease/lease-token.ts',
    'sdk/src/lease/service-keys.ts',
    'sdk/src/lease/signing-key-check.ts',
    'sdk/src/lease/certificate-chain.ts',
    'sdk/src/lease/trusted-clock.ts',
    'sdk/src/lease/store-document.ts',
    'sdk/src/lease/lease-state.ts',
    'sdk/src/lease/trusted-roots.ts',
    'sdk/src/lease/lease-verifier.ts',
    'sdk/src/lease/lease.ts',
    'sdk/src/internal/certificate.ts',
    'sdk/src/internal/sealed-text.ts',
    'sdk/src/internal/platform/base64url.ts',
    'sdk/src/internal/platform/rs256-verifier.ts',
    'sdk/src/internal/format-time.ts',
    'sdk/src/client/accept-token.ts',
    'sdk/src/client/trusted-keys.ts',
  ],
  // The sandbox needs the SDK's sources and the test helpers only.
  ignorePatterns: [
    '/*',
    '!/sdk',
    '/sdk/dist',
    '!/test',
    '/test/*',
    '!/test/helpers',
    '!/package.json',
    '!/tsconfig*.json',
    '!/vitest.config.ts',
    '!/vitest.mutation.config.ts',
  ],
  coverageAnalysis: 'perTest',
  // The machine is shared: at most two test workers.
  concurrency: 2,
  timeoutMS: 10_000,
  tempDirName: '.mutation',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: '.mutation/report.html' },
  jsonReporter: { fileName: '.mutation/report.json' },
  clearTextReporter: { allowColor: false, logTests: false, allowEmojis: false },
  thresholds: { high: 90, low: 90, break: null },
};
