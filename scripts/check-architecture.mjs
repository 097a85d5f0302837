// The layout's rules, checked by `npm test` before the suites (docs/architecture.md):
// 1. dependency-cruiser with .dependency-cruiser.cjs: nothing imports an app or the benches, each
//    package imports only lower floors, no circle of modules, no test package in production code;
// 2. every workspace package stands on a floor (or is an app, the benches, or a test package);
// 3. no SQL outside packages/db: no table named in a query, no raw statement, no schema change in
//    the source of any other package. Exits 1, listing each breach, when a rule is broken.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaceFolders, writeArchitecturePaths } from './architecture-paths.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { FLOORS, TEST_ONLY } = require('./architecture-floors.cjs');
const breaches = [];

// 1. Imports.
writeArchitecturePaths(join(root, 'node_modules/.cache/trustpoint/tsconfig.architecture.json'));
const folders = workspaceFolders();
const cruise = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
    '--config',
    '.dependency-cruiser.cjs',
    '--output-type',
    'err-long',
    ...folders,
  ],
  { cwd: root, encoding: 'utf8' },
);
if (cruise.status !== 0) {
  breaches.push(`imports (dependency-cruiser):\n${cruise.stdout}${cruise.stderr}`);
}

// 2. Floors.
const placed = new Set([...FLOORS.flat(), ...TEST_ONLY]);
for (const folder of folders) {
  if (!placed.has(folder) && !folder.startsWith('apps/') && folder !== 'bench') {
    breaches.push(`${folder} stands on no floor: give it one in scripts/architecture-floors.cjs`);
  }
}

// 3. SQL only in packages/db.
const migrations = join(root, 'packages/db/src/migrations');
const tables = new Set();
for (const file of readdirSync(migrations)) {
  const text = readFileSync(join(migrations, file), 'utf8');
  for (const match of text.matchAll(/createTable\(\s*['"]([a-z_]+)['"]/g)) tables.add(match[1]);
  for (const match of text.matchAll(/create table (?:if not exists )?([a-z_]+)/gi)) {
    tables.add(match[1].toLowerCase());
  }
}
const tableNames = [...tables].join('|');
const SQL = [
  // knex('users'), trx('users'), db('users'), .from('users'), .into('users'), .join('users')
  new RegExp(
    `(?:\\b\\w*(?:knex|Knex|trx|db|Db|tx)\\s*|\\.(?:from|into|join|leftJoin|innerJoin|table|with)\\s*)\\(\\s*['"\`](?:${tableNames})\\b`,
  ),
  /\.raw\s*\(/,
  /\.schema\s*\./,
  /\b(?:select|insert into|update|delete from)\s+[\s\S]{0,80}?\b(?:from|set|values)\b/i,
];
function* sources(folder) {
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.[cm]?ts$/.test(entry) && !/\.(test|d)\.[cm]?ts$/.test(entry)) yield path;
  }
}
for (const folder of folders) {
  if (folder === 'packages/db' || TEST_ONLY.includes(folder) || folder === 'bench') continue;
  let src;
  try {
    src = statSync(join(root, folder, 'src')).isDirectory() ? join(root, folder, 'src') : undefined;
  } catch {
    src = undefined;
  }
  if (src === undefined) continue;
  for (const file of sources(src)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      if (SQL.some((pattern) => pattern.test(line))) {
        breaches.push(
          `${relative(root, file)}:${String(index + 1)}: SQL outside packages/db: ${line.trim()}`,
        );
      }
    });
  }
}

if (breaches.length > 0) {
  console.error(`The layout's rules are broken (docs/architecture.md):\n${breaches.join('\n')}`);
  process.exit(1);
}
console.log(
  `layout: ${String(folders.length)} workspace packages on their floors; imports downward, no circle, no SQL outside packages/db`,
);
