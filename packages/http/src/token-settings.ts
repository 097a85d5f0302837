/**
 * What every access token must carry: the launcher and the admin CLI mint tokens with these
 * values, and `authenticate` accepts nothing else.
 */
export const TOKEN_ISSUER = 'trustpoint';
export const TOKEN_AUDIENCE = 'trustpoint-api';

/**
 * Pinned so a token cannot choose how it is checked (no `none`, no RS/HS confusion). HS256 is what
 * the launcher signs with a shared secret.
 */
export const TOKEN_ALGORITHM = 'HS256';
