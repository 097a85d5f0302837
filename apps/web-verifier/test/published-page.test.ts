// What the build publishes: the page as its package built it, and a standalone file that needs
// nothing from any origin (a page that loaded a script from elsewhere would trust that origin).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WEB_VERIFIER_DIRECTORY, WEB_VERIFIER_STANDALONE_FILE } from '@trustpoint/web-verifier';
import { describe, expect, it } from 'vitest';

const DIST = join(__dirname, '..', 'dist');

describe('the published web verifier', () => {
  it('when built, then the site holds every file of the page, byte for byte', async () => {
    const files = await readdir(WEB_VERIFIER_DIRECTORY);

    expect(files).toEqual(expect.arrayContaining(['index.html', 'verifier.js', 'verifier.css']));
    expect((await readdir(join(DIST, 'site'))).sort()).toEqual([...files].sort());
    for (const file of files) {
      expect(await readFile(join(DIST, 'site', file))).toEqual(
        await readFile(join(WEB_VERIFIER_DIRECTORY, file)),
      );
    }
  });

  it('when built, then the standalone page inlines its script and style and loads nothing', async () => {
    const html = await readFile(join(DIST, 'trustpoint-verifier.html'), 'utf8');

    expect(html).toBe(await readFile(WEB_VERIFIER_STANDALONE_FILE, 'utf8'));
    expect(html).toMatch(/<script[^>]*>[\s\S]{1000,}<\/script>/);
    expect(html).not.toMatch(/<script[^>]+\bsrc=/i);
    expect(html).not.toMatch(/<link[^>]+\bhref=/i);
    expect(html).not.toMatch(/@import/);
  });
});
