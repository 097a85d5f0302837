import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

const SOURCE = join(__dirname, '..', 'src');
const packageJson = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const sourceFiles = readdirSync(SOURCE, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
  .map((path) => ({ path, text: readFileSync(join(SOURCE, path), 'utf8') }));

// The web verifier bundles this package: its code may use only what browsers have. The build
// (tsconfig.build.json: DOM library, no Node types) refuses Node globals; this refuses Node modules.
describe('browser safety', () => {
  it.each(sourceFiles)(
    'when $path is read, then it imports no Node module and uses no Buffer',
    ({ text }) => {
      expect(text).not.toMatch(/from '(node:|fs|path|crypto|os|stream|buffer)['/]/);
      expect(text).not.toMatch(/\bBuffer\./);
      expect(text).not.toMatch(/\bprocess\./);
    },
  );

  it('when the package is published, then it depends on no workspace package at run time', () => {
    const runtime = Object.keys(packageJson.dependencies);

    expect(runtime.filter((name) => name.startsWith('@trustpoint/'))).toEqual([]);
    expect(runtime.sort()).toEqual(['@noble/hashes', 'canonicalize', 'jose', 'jsonc-parser']);
  });
});
