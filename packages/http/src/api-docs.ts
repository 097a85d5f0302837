import { Router, type RequestHandler } from 'express';
import { serveFiles, setup, type SwaggerUiOptions } from 'swagger-ui-express';

export interface ApiDocsOptions {
  /** The OpenAPI document, served as is. */
  document: object;
  /** Title of the interactive page. */
  title?: string;
}

/**
 * The page loads only what this router serves (swagger-ui-dist's files and the document), so the
 * service works offline. Swagger UI needs inline styles (its HTML template and React's style
 * attributes); scripts stay external and nothing needs `eval`.
 */
export const API_DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  // The stylesheet's icons are data: URIs; previews of binary responses are blob: URLs.
  "img-src 'self' data: blob:",
  // "Try it out" calls the API on the same origin.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where `apiDocs` serves the document and the page, relative to where it is mounted. */
export const API_DOCS_DOCUMENT_PATH = '/openapi.json';
export const API_DOCS_PAGE_PATH = '/docs';

/** The document is data, never a page: nothing in it may run or be framed. */
export const API_DOCS_DOCUMENT_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The files the page of swagger-ui-express loads, relative to `/docs/`. */
const PAGE_ASSETS = new Set([
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/swagger-ui-init.js',
  '/favicon-32x32.png',
  '/favicon-16x16.png',
]);

function escapeHtml(text: string): string {
  const entities: Record<string, string> = {
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '"': '&quot;',
  };
  return text.replace(/[&<>"]/g, (c) => entities[c] ?? c);
}

function securityHeaders(csp: string): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    next();
  };
}

/**
 * Public routes for an API's documentation, to mount where the API lives (e.g. `/cert/v2`):
 * `GET /openapi.json` (the document) and `GET /docs/` (Swagger UI reading that document).
 * Mount it before authentication and per-user rate limits: both answer without a token.
 */
export function apiDocs(options: ApiDocsOptions): Router {
  const json = JSON.stringify(options.document);
  const router = Router();

  router.get(API_DOCS_DOCUMENT_PATH, securityHeaders(API_DOCS_DOCUMENT_CSP), (_req, res) => {
    res.type('application/json').send(json);
  });

  const uiOptions: SwaggerUiOptions = {
    // Relative to the page at `<mount>/docs/`: the page shows exactly what `/openapi.json` serves.
    swaggerUrl: '../openapi.json',
    // The default validator badge calls validator.swagger.io: offline and outside the CSP.
    swaggerOptions: { validatorUrl: null },
    // swagger-ui-express puts the title into the HTML as is.
    customSiteTitle: escapeHtml(options.title ?? 'API documentation'),
    customCss: '',
  };
  // serveFiles, not serve: `serve` shares one init script per process, so two apps would show
  // each other's documents. It answers `swagger-ui-init.js` and swagger-ui-dist's files, and
  // redirects `/docs` to `/docs/` so the page's relative asset URLs resolve under `/docs/`.
  const assets = Router().use(...serveFiles(undefined, uiOptions));
  router.use(API_DOCS_PAGE_PATH, securityHeaders(API_DOCS_PAGE_CSP), (req, res, next) => {
    // Only what the page loads: swagger-ui-dist also ships a demo page that fetches the Petstore.
    if (req.path === '/' || PAGE_ASSETS.has(req.path)) assets(req, res, next);
    else next();
  });
  router.get(API_DOCS_PAGE_PATH, setup(undefined, uiOptions));

  return router;
}
