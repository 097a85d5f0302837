/**
 * The house rules of Trustpoint's layout, checked by `npm test` (scripts/check-architecture.mjs)
 * with dependency-cruiser over the source of every workspace package (tests excluded):
 * - nothing imports an app (apps/*: what is deployed or run) or the benches;
 * - each package stands on a floor and imports only packages of lower floors (docs/architecture.md
 *   draws them), so no import runs up and packages form no circle;
 * - no circle of modules, type-only imports included;
 * - production code never imports the private test packages.
 * A new package gets a floor in scripts/architecture-floors.cjs; the check refuses one that has none.
 */
const { FLOORS, TEST_ONLY } = require('./scripts/architecture-floors.cjs');

const escape = (folder) => folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (folders) => `^(${folders.map(escape).join('|')})/`;

const floorRules = FLOORS.map((floor, index) => ({
  name: `floor-${String(index + 1)}-imports-downward`,
  comment: `Floor ${String(index + 1)} (${floor.join(', ')}) imports only packages of lower floors.`,
  severity: 'error',
  from: { path: anyOf(floor) },
  to: {
    path: anyOf(FLOORS.slice(index).flat()),
    pathNot: '^$1/',
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-import-of-an-app',
      comment: 'An app (apps/*) is deployed or run; nothing outside it imports it.',
      severity: 'error',
      from: { path: '^(apps/[^/]+|packages/[^/]+|contracts|bench)/' },
      to: { path: '^apps/[^/]+/', pathNot: '^$1/' },
    },
    {
      name: 'no-import-of-the-benches',
      severity: 'error',
      from: { pathNot: '^bench/' },
      to: { path: '^bench/' },
    },
    ...floorRules,
    {
      name: 'no-test-packages-in-production',
      comment: 'The private test packages are dev dependencies: production code never loads them.',
      severity: 'error',
      from: { pathNot: anyOf(TEST_ONLY) },
      to: { path: anyOf(TEST_ONLY) },
    },
    {
      name: 'no-circle',
      comment:
        'Modules that import each other, type-only imports included: one of them holds what both need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resolvable',
      comment: 'An import the check cannot resolve would hide an edge.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^(node:|[a-z@])' },
    },
  ],
  options: {
    includeOnly: '^(apps/[^/]+|packages/[^/]+|contracts|bench)/(src|scripts)/',
    exclude: {
      path: '(^|/)(node_modules|dist|test|typechain-types|generated)/|\\.(test|spec)\\.[cm]?[jt]s$|\\.d\\.[cm]?ts$',
    },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'node_modules/.cache/trustpoint/tsconfig.architecture.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
