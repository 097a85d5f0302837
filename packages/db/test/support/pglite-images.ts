import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { migrate } from '../../src/migrate.js';
import { openPglite } from '../../src/open-pglite.js';

/**
 * Images of a fresh PGlite data directory (empty, or with every migration applied), made once and
 * shared by every test database opened after: `initdb` is most of an in-memory PGlite's start-up
 * (several seconds, and many times that on a loaded machine), which every test paid again and a
 * test timing its own set-up could then exceed. Kept in memory for this process and on disk for the
 * others, under a key of the PGlite version and the migrations' own files, so a changed migration
 * or engine makes a new image rather than reusing a stale one.
 */
const images = new Map<boolean, Promise<Blob>>();

const sourceDir = join(__dirname, '..', '..', 'src');
const migrationsDir = join(sourceDir, 'migrations');
const imageDir = join(tmpdir(), 'trustpoint-test-pglite');

export function pgliteImage(migrated: boolean): Promise<Blob> {
  let image = images.get(migrated);
  if (image === undefined) {
    image = cachedImage(migrated);
    // A failure is not kept: the next test database tries again.
    image.catch(() => images.delete(migrated));
    images.set(migrated, image);
  }
  return image;
}

/**
 * Makes both images (an empty cluster, and one with every migration applied) if this machine has
 * not already: a test suite's global set-up, so no test's own time includes an `initdb`.
 */
export async function makePgliteImages(): Promise<void> {
  await pgliteImage(false);
  await pgliteImage(true);
}

async function cachedImage(migrated: boolean): Promise<Blob> {
  const file = join(imageDir, `${await imageKey(migrated)}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    // Not made yet (or unreadable): make it below.
  }
  const image = await makeImage(migrated);
  await mkdir(imageDir, { recursive: true });
  // Written under a name of this process, then renamed: another process never reads half a file.
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, new Uint8Array(await image.arrayBuffer()));
  await rename(partial, file);
  return image;
}

async function makeImage(migrated: boolean): Promise<Blob> {
  const database = await openPglite('memory://', undefined);
  try {
    if (migrated) await migrate(database.knex);
    return await database.dumpDataDir();
  } finally {
    await database.close();
  }
}

async function imageKey(migrated: boolean): Promise<string> {
  const hash = createHash('sha256');
  const pglitePackage = join(
    dirname(require.resolve('@electric-sql/pglite')),
    '..',
    'package.json',
  );
  hash.update(await readFile(pglitePackage));
  hash.update(migrated ? 'migrated\n' : 'empty\n');
  if (migrated) {
    const names = (await readdir(migrationsDir)).sort();
    for (const name of names) {
      hash.update(`${name}\n`);
      hash.update(await readFile(join(migrationsDir, name)));
    }
    hash.update(await readFile(join(sourceDir, 'migration-source.ts')));
  }
  return hash.digest('hex').slice(0, 32);
}
