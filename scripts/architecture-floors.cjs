// The floors of the workspace, lowest first (docs/architecture.md draws them): a package imports
// only packages of lower floors. Apps (apps/*) and the benches stand above every floor.
const FLOORS = [
  ['packages/verifier', 'packages/registry-abi', 'packages/openapi'],
  ['packages/domain', 'packages/sdk', 'packages/web-verifier', 'contracts'],
  ['packages/db'],
  ['packages/http', 'packages/chain'],
  ['packages/identity', 'packages/observability', 'packages/webhooks'],
  ['packages/admin', 'packages/track-api'],
  ['packages/cert-api'],
  ['packages/launcher'],
];
/** Private packages for tests only: never imported by the source of a package or app. */
const TEST_ONLY = ['packages/test-kit', 'packages/test-doubles', 'packages/test-database'];

module.exports = { FLOORS, TEST_ONLY };
