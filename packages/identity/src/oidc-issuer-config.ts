import { z } from 'zod';

/** Signature algorithms an external provider's tokens may use; each issuer pins its own. */
export const OIDC_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type OidcAlgorithm = (typeof OIDC_ALGORITHMS)[number];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https, or http on a loopback host (a provider on the same machine, in development and tests). */
const issuerUrl = z.string().refine(
  (value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      return false;
    }
    return (
      url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
    );
  },
  {
    message:
      'must be an https URL (http only on localhost), without query, fragment or credentials',
  },
);

export const oidcIssuerConfigSchema = z.strictObject({
  /** The provider's issuer identifier, exactly as its tokens' `iss` and its discovery say it. */
  issuer: issuerUrl,
  /** The audience the provider puts in tokens meant for Trustpoint (`aud`). */
  audience: z.string().min(1),
  /** The claim that names the user (default `sub`); e.g. `preferred_username`, `email`, `oid`. */
  userClaim: z.string().min(1).default('sub'),
  /**
   * Put before the claim's value to make the Trustpoint user id (default none). With more than one
   * issuer, give each a prefix (`keycloak:`) so equal claims of two providers are two users.
   */
  userIdPrefix: z
    .string()
    .refine(
      (prefix) => /^[\x21-\x7e]*$/.test(prefix) && !/[/\\%]/.test(prefix),
      'must be printable ASCII without spaces, /, \\ or %: it begins every user id',
    )
    .default(''),
  /** The algorithms accepted from this issuer (default RS256); no other is ever tried. */
  algorithms: z.array(z.enum(OIDC_ALGORITHMS)).min(1).default(['RS256']),
  /** Creates users the service does not know yet, on this plan with these credits; off by default. */
  provision: z
    .strictObject({
      planId: z.string().min(1),
      credits: z.number().int().min(0).default(0),
      qualified: z.boolean().default(false),
    })
    .optional(),
});

export type OidcIssuerConfig = z.output<typeof oidcIssuerConfigSchema>;
export type OidcIssuerInput = z.input<typeof oidcIssuerConfigSchema>;

const oidcIssuersSchema = z.array(oidcIssuerConfigSchema).superRefine((issuers, context) => {
  const seen = new Set<string>();
  for (const [index, { issuer }] of issuers.entries()) {
    if (seen.has(issuer)) {
      context.addIssue({ code: 'custom', path: [index, 'issuer'], message: 'is listed twice' });
    }
    seen.add(issuer);
  }
});

/**
 * The external issuers of `OIDC_ISSUERS`: a JSON array of `{issuer, audience, userClaim?,
 * userIdPrefix?, algorithms?, provision?}`. Empty or absent: none. A bad value stops the start
 * with a message naming the variable (`name`) and the entry at fault.
 */
export function parseOidcIssuers(
  value: string | undefined,
  name = 'OIDC_ISSUERS',
): OidcIssuerConfig[] {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error(`${name} must be a JSON array of issuers; it is not valid JSON`);
  }
  const result = oidcIssuersSchema.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const [index, ...rest] = issue.path;
      const where =
        typeof index === 'number'
          ? `issuer ${String(index + 1)}${rest.length > 0 ? ` ${rest.join('.')}` : ''}`
          : 'the value';
      return `${where} ${issue.message}`;
    });
    throw new Error(`${name}: ${problems.join('; ')}`);
  }
  return result.data;
}
