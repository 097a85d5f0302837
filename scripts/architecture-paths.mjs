// Writes a tsconfig whose "paths" send each workspace package's entry points (package.json
// "exports"/"main", which name dist/) back to its TypeScript source, so that the architecture
// check reads imports between packages as edges between source files, built or not.
// Usage: node scripts/architecture-paths.mjs <out.json>; prints the workspace package folders.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The workspace's package folders, from pnpm-workspace.yaml's `packages` list. */
export function workspaceFolders() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const list = yaml.slice(yaml.indexOf('packages:')).split('\n').slice(1);
  const globs = [];
  for (const line of list) {
    const match = /^\s+-\s+['"]?([^'"#\s]+)/.exec(line);
    if (!match) break;
    globs.push(match[1]);
  }
  const folders = [];
  for (const glob of globs) {
    const bases = glob.endsWith('/*')
      ? readdirSync(join(root, glob.slice(0, -2)))
          .sort()
          .map((name) => `${glob.slice(0, -2)}/${name}`)
      : [glob];
    for (const folder of bases) {
      if (existsSync(join(root, folder, 'package.json'))) folders.push(folder);
    }
  }
  return folders;
}

function sourceOf(folder, target) {
  let file = target;
  if (file && typeof file === 'object')
    file = file.types ?? file.import ?? file.default ?? file.require;
  if (typeof file !== 'string') return undefined;
  const relative = file.replace(/^\.\//, '');
  if (!relative.startsWith('dist/')) {
    return existsSync(join(root, folder, relative)) ? `${folder}/${relative}` : undefined;
  }
  const base = relative
    .slice('dist/'.length)
    .replace(/\.d\.ts$/, '.ts')
    .replace(/\.(m?)js$/, '.$1ts');
  for (const candidate of [`src/${base}`, base, `src/${base.replace(/^src\//, '')}`]) {
    if (existsSync(join(root, folder, candidate))) return `${folder}/${candidate}`;
  }
  return undefined;
}

export function writeArchitecturePaths(out) {
  const paths = {};
  for (const folder of workspaceFolders()) {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
    const exported = manifest.exports ?? (manifest.main ? { '.': `./${manifest.main}` } : {});
    const entries = typeof exported === 'string' ? { '.': exported } : exported;
    for (const [subpath, target] of Object.entries(entries)) {
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      const source = sourceOf(folder, target);
      if (source) paths[specifier] = [source];
    }
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ compilerOptions: { baseUrl: root, paths, allowJs: true }, files: [fileURLToPath(import.meta.url)] }, null, 2)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeArchitecturePaths(resolve(process.argv[2] ?? 'tsconfig.architecture.json'));
  console.log(workspaceFolders().join(' '));
}
