/**
 * The error catalogue (spec 7.2, plus 404, 413 and 503 from DESIGN.md section 7) as data: the one
 * place where a domain error code becomes a status, a type and the exact message users see.
 */

export interface ErrorCatalogueEntry {
  statusCode: number;
  type: string;
  message: string;
}

export type ErrorCatalogue = Readonly<Record<ErrorCode, Readonly<ErrorCatalogueEntry>>>;

export interface ErrorCatalogueOptions {
  /** Replaces `<support_team>` in the messages that send users to support. */
  supportContact?: string;
}

export const DEFAULT_SUPPORT_CONTACT = 'the support team';

export const ERROR_TYPES = {
  400: 'Validation Error',
  401: 'Authentication Error',
  403: 'Forbidden Error',
  404: 'Not Found Error',
  409: 'Existing certificate error',
  413: 'Payload Too Large Error',
  422: 'Unprocessable Content Error',
  429: 'Out of Credits Error',
  500: 'Internal Server Error',
  503: 'Service Unavailable Error',
} as const;

type Status = keyof typeof ERROR_TYPES;

interface EntryTemplate {
  status: Status;
  message: (supportContact: string) => string;
  /** Only where the status's usual type would mislead (a 409 that is not about certificates). */
  type?: string;
}

// Messages are copied verbatim from the spec, including its punctuation ("Please, contact").
const ENTRIES = {
  validation: { status: 400, message: () => 'Request parameters are wrong, check requirements' },
  wrongCredentials: { status: 401, message: () => 'User credentials are wrong' },
  invalidToken: { status: 401, message: () => 'Token is invalid' },
  expiredToken: { status: 401, message: () => 'Token is expired' },
  missingToken: { status: 401, message: () => 'Token is not provided' },
  userNotQualified: {
    status: 403,
    message: () => 'User is not qualified, please try again with a qualified user',
  },
  pinRequired: {
    status: 403,
    message: () => 'This certificate requires a PIN, please provide it',
  },
  /**
   * The credential (an API key, or a token exchanged for one) lacks the scope the operation
   * requires; the body's `errors[0]` names it (`field: "scope"`).
   */
  insufficientScope: {
    status: 403,
    message: () => 'The credential does not have the scope this operation requires',
  },
  adminRequired: {
    status: 403,
    message: () => 'This operation requires an administrator',
  },
  providerNotInPlan: {
    status: 403,
    message: (support) =>
      `Provider not available in your plan. Please, contact ${support} to include it`,
  },
  notFound: { status: 404, message: () => 'The requested resource was not found' },
  certificateAlreadyRegistered: {
    status: 409,
    message: () =>
      'The certificate is already registered, please try again with a different content',
  },
  externalIdAlreadyRegistered: {
    status: 409,
    message: () =>
      'The provided externalId is already registered, please try again with a different one',
  },
  assetIdAlreadyRegistered: {
    status: 409,
    message: () =>
      'The provided assetId is already registered, please try again with a different one',
  },
  alreadyExists: {
    status: 409,
    type: 'Conflict Error',
    message: () => 'The resource already exists, please try again with a different id',
  },
  /** An `Idempotency-Key` whose first request is still running (answered with Retry-After). */
  idempotencyKeyInUse: {
    status: 409,
    type: 'Conflict Error',
    message: () =>
      'A request with this Idempotency-Key is still being processed, please retry later',
  },
  /** An `Idempotency-Key` sent again with another request (method, path or body). */
  idempotencyKeyReused: {
    status: 422,
    message: () =>
      'This Idempotency-Key was used for a different request, please use a new key for this one',
  },
  payloadTooLarge: {
    status: 413,
    message: () => 'The request payload exceeds the configured limit',
  },
  outOfCredits: {
    status: 429,
    message: (support) =>
      `User has run out of credits. Please, contact ${support} to increase the limit`,
  },
  internal: { status: 500, message: () => 'Oops! Something went wrong, please try again later' },
  networkUnavailable: {
    status: 503,
    message: () => 'The blockchain network is not available, please try again later',
  },
  /**
   * The network's queue holds as many records as its chain takes in one anchor timeout: nothing
   * was stored; answered with `Retry-After`, the time the queue takes to drain under the limit.
   */
  networkBusy: {
    status: 503,
    message: () =>
      'The blockchain network has more records waiting than it can take now, please try again later',
  },
  /** A configured OpenID Connect provider's discovery or keys cannot be had: not the token's fault. */
  identityProviderUnavailable: {
    status: 503,
    message: () => 'The identity provider is not available, please try again later',
  },
  /** The database cannot be reached (restarting, failing over): nothing was done, try again. */
  databaseUnavailable: {
    status: 503,
    message: () => 'The service is temporarily unavailable, please try again later',
  },
} satisfies Record<string, EntryTemplate>;

export type ErrorCode = keyof typeof ENTRIES;

export const ERROR_CODES = Object.keys(ENTRIES) as readonly ErrorCode[];

export function createErrorCatalogue(options: ErrorCatalogueOptions = {}): ErrorCatalogue {
  const supportContact = options.supportContact ?? DEFAULT_SUPPORT_CONTACT;
  return Object.freeze(
    Object.fromEntries(
      ERROR_CODES.map((code) => {
        const { status, message, type }: EntryTemplate = ENTRIES[code];
        const entry = {
          statusCode: status,
          type: type ?? ERROR_TYPES[status],
          message: message(supportContact),
        };
        return [code, Object.freeze(entry)];
      }),
    ) as Record<ErrorCode, ErrorCatalogueEntry>,
  );
}

/** The catalogue with the default support contact. */
export const defaultErrorCatalogue: ErrorCatalogue = createErrorCatalogue();
