// Builds the page into dist/page (served as static files) and dist/standalone (one HTML file with
// the script and the style inline, which works opened from disk).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'page');
const pageDir = join(root, 'dist', 'page');
const standaloneDir = join(root, 'dist', 'standalone');

const bundle = await build({
  entryPoints: [join(source, 'main.ts')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  // Said outright: @trustpoint/verifier's build is CommonJS, and for a require esbuild would take
  // a package's `main` (jsonc-parser's UMD build, whose dynamic requires fail in a page) over its
  // ES module build.
  mainFields: ['browser', 'module', 'main'],
  target: ['chrome111', 'firefox111', 'safari16.4'],
  minify: true,
  legalComments: 'none',
  write: false,
});
const script = bundle.outputFiles[0].text;
const style = await readFile(join(source, 'style.css'), 'utf8');
const html = await readFile(join(source, 'index.html'), 'utf8');

await mkdir(pageDir, { recursive: true });
await mkdir(standaloneDir, { recursive: true });
await writeFile(join(pageDir, 'verifier.js'), script);
await writeFile(join(pageDir, 'verifier.css'), style);
await writeFile(
  join(pageDir, 'index.html'),
  html
    .replace('<!--STYLE-->', '<link rel="stylesheet" href="verifier.css" />')
    .replace('<!--SCRIPT-->', '<script src="verifier.js"></script>'),
);
// Inline, "</script" or "<!--" inside the bundle would end or change the element.
const inlineScript = script.replaceAll('</script', '<\\/script').replaceAll('<!--', '<\\!--');
await writeFile(
  join(standaloneDir, 'trustpoint-verifier.html'),
  html
    .replace('<!--STYLE-->', () => `<style>\n${style}</style>`)
    .replace('<!--SCRIPT-->', () => `<script>\n${inlineScript}</script>`),
);
console.log(`web verifier: ${String(script.length)} bytes of script`);
