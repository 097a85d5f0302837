// The independent implementations of the hashing rules (Python's standard library, no code of this
// package) run here, in `npm test` and CI: each writes its vectors into a temporary folder, and
// what it wrote must be the committed file, byte for byte.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PACKAGE_DIR = join(__dirname, '..');

/** Each generator and the file it writes, relative to the package. */
const GENERATORS = [
  { script: 'scripts/generate-test-vectors.py', committed: 'test-vectors.json' },
  {
    script: 'test/vectors/generate-asset-hash-v2.py',
    committed: 'test/vectors/asset-hash-v2.json',
  },
  {
    script: 'test/vectors/generate-disclosure-v2.py',
    committed: 'test/vectors/disclosure-v2.json',
  },
];

/** Python 3 (apt `python3`): required under CI, skipped with a message elsewhere. */
function python3Version(): string | undefined {
  try {
    return execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    if (process.env.CI)
      throw new Error('CI: the vector generators need python3 (apt-get install -y python3)');
    console.warn(
      'Skipping the vector generators: no python3 on the PATH (apt-get install -y python3)',
    );
    return undefined;
  }
}

describe.skipIf(python3Version() === undefined)('the independent vector generators', () => {
  let outputDir: string;
  /** What each generator wrote, by its script, once they have all run (side by side). */
  let written: Map<string, { stdout: string; text: string }>;

  beforeAll(async () => {
    outputDir = await mkdtemp(join(tmpdir(), 'trustpoint-vectors-'));
    const results = await Promise.all(
      GENERATORS.map(async ({ script, committed }) => {
        const output = join(outputDir, committed.replaceAll('/', '-'));
        const { stdout } = await run('python3', [script, '--output', output], {
          cwd: PACKAGE_DIR,
        });
        return [script, { stdout, text: await readFile(output, 'utf8') }] as const;
      }),
    );
    written = new Map(results);
  }, 180_000);

  afterAll(async () => {
    await rm(outputDir, { recursive: true, force: true });
  });

  it.each(GENERATORS)(
    'when $script runs, then it writes $committed as committed, byte for byte',
    async ({ script, committed }) => {
      // Act (beforeAll ran it)
      const result = written.get(script);

      // Assert
      expect(result?.stdout).toMatch(/^wrote /);
      expect(
        result?.text,
        `${committed} is not what ${script} writes: run \`python3 ${script}\` in packages/verifier and commit the file`,
      ).toBe(await readFile(join(PACKAGE_DIR, committed), 'utf8'));
    },
  );
});
