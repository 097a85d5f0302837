// Public API of @trustpoint/admin: the admin API's router and document.

export { ADMIN_API_BASE_PATH } from './admin-api-options.js';
export type { AdminApiOptions } from './admin-api-options.js';
export { adminApiDocument } from './admin-openapi.js';
export type { AdminApiDocumentOptions } from './admin-openapi.js';
export { adminRouter } from './admin-router.js';
export { MAX_TOKEN_TTL_SECONDS } from './admin-schemas.js';
export { requireAdmin } from './require-admin.js';
