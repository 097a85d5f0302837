import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { apiDocs } from '../src/api-docs.js';
import { testApp } from './support/test-app.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'Test API', version: '1.0.0' },
  paths: { '/things': { get: { responses: { '200': { description: 'Things' } } } } },
};

function docsApp() {
  return testApp((app) => {
    app.use('/api/v1', apiDocs({ document, title: 'Test <API>' }));
  });
}

/** The `src`/`href` of every script and stylesheet tag of the page, and its inline scripts. */
function pageReferences(html: string): { assets: string[]; inlineScripts: string[] } {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  const assets = [
    ...scripts.flatMap(
      ([, attributes]) => /\bsrc=["']([^"']+)["']/.exec(attributes ?? '')?.[1] ?? [],
    ),
    ...[...html.matchAll(/<link\b[^>]*\bhref=["']([^"']+)["']/g)].map(([, href]) => href ?? ''),
  ];
  const inlineScripts = scripts
    .filter(([, attributes]) => !/\bsrc=/.test(attributes ?? ''))
    .map(([, , body]) => body ?? '');
  return { assets, inlineScripts };
}

describe('apiDocs', () => {
  it('when the document is requested without a token, then 200 with the document as JSON', async () => {
    // Arrange
    const app = docsApp();

    // Act
    const response = await request(app).get('/api/v1/openapi.json');

    // Assert
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.body).toEqual(document);
  });

  it('when /docs is requested without the slash, then it redirects to /docs/', async () => {
    // Act
    const response = await request(docsApp()).get('/api/v1/docs');

    // Assert
    expect(response.status).toBe(301);
    expect(response.headers.location).toBe('/api/v1/docs/');
  });

  it('when the page is requested, then HTML under a CSP without eval or inline scripts', async () => {
    // Act
    const response = await request(docsApp()).get('/api/v1/docs/');

    // Assert
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(response.text).toContain('<title>Test &lt;API&gt;</title>');
    expect(pageReferences(response.text).inlineScripts.map((s) => s.trim())).toEqual([]);
  });

  it('when the page loads its assets, then each is served locally with its content type', async () => {
    // Arrange
    const app = docsApp();
    const page = await request(app).get('/api/v1/docs/');
    const { assets } = pageReferences(page.text);
    const expectedTypes: Record<string, RegExp> = {
      '.js': /^(text|application)\/javascript/,
      '.css': /^text\/css/,
      '.png': /^image\/png/,
    };

    // Act: resolved as a browser resolves them against the page's URL
    const responses = await Promise.all(
      assets.map(async (asset) => ({
        asset,
        response: await request(app).get(new URL(asset, 'http://localhost/api/v1/docs/').pathname),
      })),
    );

    // Assert
    expect(assets).toEqual(
      expect.arrayContaining([
        './swagger-ui-bundle.js',
        './swagger-ui-init.js',
        './swagger-ui.css',
      ]),
    );
    for (const { asset, response } of responses) {
      expect(asset, 'same-origin relative URL').toMatch(/^\.\/[\w.-]+$/);
      expect(response.status, asset).toBe(200);
      const type = expectedTypes[asset.slice(asset.lastIndexOf('.'))];
      expect(response.headers['content-type'], asset).toMatch(type ?? /^$/);
      expect(response.headers['x-content-type-options'], asset).toBe('nosniff');
    }
  });

  it('when the page starts, then it reads the served document and calls no validator', async () => {
    // Act
    const response = await request(docsApp()).get('/api/v1/docs/swagger-ui-init.js');

    // Assert
    expect(response.status).toBe(200);
    expect(response.text).toContain('"swaggerUrl": "../openapi.json"');
    expect(response.text).toContain('"validatorUrl": null');
  });

  it.each(['index.html', 'swagger-initializer.js', 'package.json', 'oauth2-redirect.html'])(
    'when %s of swagger-ui-dist is requested, then 404: only the page and its assets are served',
    async (file) => {
      // Act
      const response = await request(docsApp()).get(`/api/v1/docs/${file}`);

      // Assert
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ statusCode: 404 });
    },
  );

  it('when two APIs mount their docs in one app, then each serves its own document', async () => {
    // Arrange
    const other = { ...document, info: { title: 'Other API', version: '2.0.0' } };
    const app = testApp((app) => {
      app.use('/one', apiDocs({ document }));
      app.use('/two', apiDocs({ document: other }));
    });

    // Act
    const [one, two] = await Promise.all([
      request(app).get('/one/openapi.json'),
      request(app).get('/two/openapi.json'),
    ]);

    // Assert
    expect(one.body).toEqual(document);
    expect(two.body).toEqual(other);
  });
});
