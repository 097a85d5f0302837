// Publishes the web verifier that @trustpoint/web-verifier builds: dist/site (the page's static
// files, to serve as they are from any origin, with the CSP that package exports) and
// dist/trustpoint-verifier.html (one self-contained file that works opened from disk).
import { cp, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import page from '@trustpoint/web-verifier';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await cp(page.WEB_VERIFIER_DIRECTORY, join(dist, 'site'), { recursive: true });
await cp(page.WEB_VERIFIER_STANDALONE_FILE, join(dist, 'trustpoint-verifier.html'));
console.log(`web verifier published in ${dist}`);
