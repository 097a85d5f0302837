import type { components } from './generated/cert-api.js';

/** The error body both APIs answer with (service interface, section 7.1). */
export type ErrorBody = components['schemas']['ErrorBody'];
/** One validation problem of a 400: where it was found (`body.name`, `query.networkId`) and what. */
export type FieldError = components['schemas']['FieldError'];

/**
 * What went wrong, one per status of the error catalogue (section 7.2). The catalogue's `type`
 * text is kept on the error as is; `kind` is what code switches on.
 */
export type TrustpointErrorKind =
  | 'validation'
  | 'authentication'
  | 'forbidden'
  | 'notFound'
  | 'conflict'
  | 'payloadTooLarge'
  | 'tooManyRequests'
  | 'internal'
  | 'serviceUnavailable'
  | 'unexpected';

const KIND_OF_STATUS: Readonly<Record<number, TrustpointErrorKind>> = {
  400: 'validation',
  401: 'authentication',
  403: 'forbidden',
  404: 'notFound',
  409: 'conflict',
  413: 'payloadTooLarge',
  429: 'tooManyRequests',
  500: 'internal',
  503: 'serviceUnavailable',
};

/** An error answer of either API: its status and the fields of its error body. */
export class TrustpointApiError extends Error {
  readonly kind: TrustpointErrorKind = 'unexpected';
  /** The HTTP status. */
  readonly status: number;
  /** The catalogue's type, e.g. `Validation Error`; the status text when the body was not one. */
  readonly type: string;
  /** One entry per validation problem (400 only); empty otherwise. */
  readonly fieldErrors: readonly FieldError[];
  /** The body as answered: the error body, or whatever a proxy sent instead. */
  readonly body: unknown;
  /** `Retry-After` in seconds, when the answer had it (429 on PIN and rate limits). */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    type: string;
    message: string;
    fieldErrors?: readonly FieldError[];
    body?: unknown;
    retryAfterSeconds?: number | undefined;
  }) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.type = init.type;
    this.fieldErrors = init.fieldErrors ?? [];
    this.body = init.body;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

export class TrustpointValidationError extends TrustpointApiError {
  override readonly kind = 'validation';
}
export class TrustpointAuthenticationError extends TrustpointApiError {
  override readonly kind = 'authentication';
}
export class TrustpointForbiddenError extends TrustpointApiError {
  override readonly kind = 'forbidden';
}
export class TrustpointNotFoundError extends TrustpointApiError {
  override readonly kind = 'notFound';
}
/** 409: the certificate, externalId or assetId is already registered (or another conflict). */
export class TrustpointConflictError extends TrustpointApiError {
  override readonly kind = 'conflict';
}
export class TrustpointPayloadTooLargeError extends TrustpointApiError {
  override readonly kind = 'payloadTooLarge';
}
/** 429: out of credits, the rate limit, or too many wrong PINs (`retryAfterSeconds`). */
export class TrustpointTooManyRequestsError extends TrustpointApiError {
  override readonly kind = 'tooManyRequests';
}
export class TrustpointInternalError extends TrustpointApiError {
  override readonly kind = 'internal';
}
export class TrustpointServiceUnavailableError extends TrustpointApiError {
  override readonly kind = 'serviceUnavailable';
}

const CLASS_OF_KIND: Readonly<Record<TrustpointErrorKind, typeof TrustpointApiError>> = {
  validation: TrustpointValidationError,
  authentication: TrustpointAuthenticationError,
  forbidden: TrustpointForbiddenError,
  notFound: TrustpointNotFoundError,
  conflict: TrustpointConflictError,
  payloadTooLarge: TrustpointPayloadTooLargeError,
  tooManyRequests: TrustpointTooManyRequestsError,
  internal: TrustpointInternalError,
  serviceUnavailable: TrustpointServiceUnavailableError,
  unexpected: TrustpointApiError,
};

/** The service could not be reached (refused, DNS, TLS, timeout): no answer to read. */
export class TrustpointConnectionError extends Error {
  constructor(
    readonly url: string,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`cannot reach ${url}: ${reason}`, options);
    this.name = 'TrustpointConnectionError';
  }
}

/**
 * A request body holds a value JSON cannot carry as it is: `JSON.stringify` would send NaN and
 * Infinity as `null`, drop a function, and throw on a BigInt or a cycle. Thrown before anything is
 * sent, so nothing is certified and no credit spent.
 */
export class TrustpointUnsendableValueError extends Error {
  constructor(
    /** Where, as the service names request fields: `body.content.x`, `body.tags[1]`. */
    readonly path: string,
    /** What is wrong with the value there. */
    readonly problem: string,
  ) {
    super(`${path}: ${problem}; nothing was sent`);
    this.name = 'TrustpointUnsendableValueError';
  }
}

/**
 * Why an answer of the service was not taken: it names a member twice (`duplicateMember`, and
 * readers disagree on its value), writes a number with more digits than its value holds
 * (`inexactNumber`: `9.0000000000000001` reads as 9 here, as itself in a decimal reader), it is
 * another record than the one asked for (`otherRecord`), or it is not JSON (`notJson`).
 */
export type RefusedAnswerReason = 'duplicateMember' | 'inexactNumber' | 'otherRecord' | 'notJson';

/**
 * The service answered 200 with something a verifier must not take as the record asked for. A
 * service of a forger's answers a look-alike of its own, or JSON whose value depends on the reader.
 */
export class TrustpointRefusedAnswerError extends Error {
  readonly reason: RefusedAnswerReason;
  /** The URL the answer came from. */
  readonly url: string;
  /** The id asked for (certID, trackID or evidence hash), when the answer named another. */
  readonly asked: string | undefined;
  /** The id the answer named instead; undefined when it named none. */
  readonly answered: string | undefined;

  constructor(init: {
    reason: RefusedAnswerReason;
    url: string;
    message: string;
    asked?: string;
    answered?: string | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TrustpointRefusedAnswerError';
    this.reason = init.reason;
    this.url = init.url;
    this.asked = init.asked;
    this.answered = init.answered;
  }
}

const isErrorBody = (body: unknown): body is ErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { type?: unknown }).type === 'string' &&
  typeof (body as { message?: unknown }).message === 'string';

/** The typed error of an error answer; `body` is what openapi-fetch parsed from it. */
export function trustpointApiErrorOf(response: Response, body: unknown): TrustpointApiError {
  const kind = KIND_OF_STATUS[response.status] ?? 'unexpected';
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const common = {
    status: response.status,
    body,
    retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : undefined,
  };
  const ErrorClass = CLASS_OF_KIND[kind];
  if (isErrorBody(body)) {
    return new ErrorClass({
      ...common,
      type: body.type,
      message: body.message,
      fieldErrors: body.errors ?? [],
    });
  }
  const statusText = response.statusText || `HTTP ${String(response.status)}`;
  return new ErrorClass({
    ...common,
    type: statusText,
    message: typeof body === 'string' && body !== '' ? body : statusText,
  });
}
