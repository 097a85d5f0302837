import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { retryingFetch, type RetryOptions } from './retries.js';
import {
  TrustpointConnectionError,
  TrustpointUnsendableValueError,
  trustpointApiErrorOf,
} from './errors.js';
import { sendableJsonText } from './sendable-json.js';
import { strictRecord } from './strict-answer.js';
import type {
  components as CertComponents,
  operations as CertOperations,
  paths as CertPaths,
} from './generated/cert-api.js';
import type {
  components as TrackComponents,
  operations as TrackOperations,
  paths as TrackPaths,
} from './generated/track-api.js';

type CertSchemas = CertComponents['schemas'];
type TrackSchemas = TrackComponents['schemas'];

export type Certificate = CertSchemas['Certificate'];
export type CertificatePage = CertSchemas['CertificateListResponse']['data'];
export type CertificateVerification = CertSchemas['CertificateVerificationResponse']['data'];
export type PostedCertificateVerification =
  CertSchemas['PostedCertificateVerificationResponse']['data'];
export type ContentCertificateBody = CertSchemas['ContentCertificateBody'];
export type AssetCertificateBody = CertSchemas['AssetCertificateBody'];
export type UrlCertificateBody = CertSchemas['UrlCertificateBody'];
export type FileCertificateBody = CertSchemas['FileCertificateBody'];
export type CertificateAccessChanges = CertSchemas['CertificateAccessChanges'];
export type CertificateListQuery = NonNullable<
  CertOperations['listCertificates']['parameters']['query']
>;
/** What the `{type}` of `/certificates/{type}/{id}` can be: certID, externalId, fileHash, hash. */
export type CertificateLookup = CertOperations['getCertificate']['parameters']['path']['type'];
export type CertNetworks =
  CertOperations['listNetworks']['responses'][200]['content']['application/json']['data'];
export type Jwks = CertOperations['getJwks']['responses'][200]['content']['application/json'];

export type Asset =
  TrackOperations['getAsset']['responses'][200]['content']['application/json']['data'];
export type AssetBody =
  TrackOperations['createAsset']['requestBody']['content']['application/json'];
export type AssetListQuery = NonNullable<TrackOperations['listAssets']['parameters']['query']>;
export type AssetPage =
  TrackOperations['listAssets']['responses'][200]['content']['application/json']['data'];
export type EvidenceBody =
  TrackOperations['addEvidence']['requestBody']['content']['application/json'];
/** An evidence as POST /assets/{trackID}/transactions answers it. */
export type Evidence =
  TrackOperations['addEvidence']['responses'][201]['content']['application/json']['data'];
export type EvidenceVerification =
  TrackOperations['verifyEvidence']['responses'][200]['content']['application/json']['data'];
export type TrackNetworks =
  TrackOperations['listNetworks']['responses'][200]['content']['application/json']['data'];
/** The caller's account: credits, plan and networks, the credential's scopes and expiry. */
export type Account = CertSchemas['Account'];
export type IssuerDomain = CertSchemas['IssuerDomain'];
export type IssuerDomainCheck = CertSchemas['IssuerDomainCheck'];
export type CreditMovementPage =
  CertOperations['listAccountCreditMovements']['responses'][200]['content']['application/json']['data'];
export type CreditMovementQuery = NonNullable<
  CertOperations['listAccountCreditMovements']['parameters']['query']
>;
export type { CertSchemas, TrackSchemas };

export interface TrustpointClientOptions {
  /**
   * The certificate API: its base (`https://host/cert/v2`) or the service's origin
   * (`https://host`, `/cert/v2` is added).
   */
  certUrl?: string;
  /** The asset-tracking API: its base (`https://host/track/v2`) or its origin. */
  trackUrl?: string;
  /** An access token or API key, or a function giving one per request (refreshing tokens). */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** Another fetch (tests, proxies). */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Retries and `Idempotency-Key`s (`retryingFetch`): by default every `POST` and `PATCH` carries
   * a new key, and is retried with it up to 3 times after a network error or a 5xx.
   */
  retry?: RetryOptions;
}

/** How long the service may hold the request before answering (RFC 7240 `Prefer`). */
export interface Preference {
  /** `respond-async`: 202 at once with the record pending instead of waiting for the anchor. */
  respondAsync?: boolean;
  /** `wait=N`: wait up to N seconds (at most 600) for the anchor. */
  waitSeconds?: number;
}

export interface CreateCertificateOptions {
  /** The EVM chain id to anchor on. */
  networkId: number;
  /** Sign the certificate with the service's key (qualified users only). */
  qualified?: boolean;
  /** Publish the file for download (`type=file`). */
  publish?: boolean;
  prefer?: Preference;
  /**
   * The request's `Idempotency-Key`: give the same one to a request made again after a crash of
   * the client (a key kept with the work to do) to get the first answer instead of a second
   * record. Default: a new UUID per call, reused by its own retries.
   */
  idempotencyKey?: string;
}

/** What a creation answered: 201 anchored, or 202 accepted and still pending (`location`). */
export interface Created<T> {
  record: T;
  /** true for 202: stored, trustpoints pending; follow it at `location`. */
  accepted: boolean;
  location: string | undefined;
  preferenceApplied: string | undefined;
}

export interface FileUpload {
  /** The file: `await fs.openAsBlob(path)` streams it from disk. */
  file: Blob | Uint8Array;
  /** The part's file name (the service records it); default `file`. */
  fileName?: string;
  body: FileCertificateBody;
}

export interface LookupOptions {
  /** What the id is; default `certID` (the only one that finds other users' public certificates). */
  by?: CertificateLookup;
  /** The PIN of a certificate that has one. */
  pin?: string;
}

const CERT_API_BASE_PATH = '/cert/v2';
const TRACK_API_BASE_PATH = '/track/v2';

/** `https://host` becomes `https://host/cert/v2`; a URL with a path is taken as the base. */
function baseUrlOf(url: string, basePath: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path === '' ? basePath : path}`;
}

function preferHeader(prefer: Preference | undefined): string | undefined {
  if (prefer === undefined) return undefined;
  const parts = [
    ...(prefer.respondAsync === true ? ['respond-async'] : []),
    ...(prefer.waitSeconds === undefined ? [] : [`wait=${String(prefer.waitSeconds)}`]),
  ];
  return parts.length === 0 ? undefined : parts.join(', ');
}

function authentication(token: TrustpointClientOptions['token']): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof token === 'function' ? await token() : token;
      if (value !== undefined && value !== '' && !request.headers.has('authorization')) {
        request.headers.set('Authorization', `Bearer ${value}`);
      }
      return request;
    },
  };
}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The data of a success; a typed TrustpointApiError for an error answer, a
 * TrustpointConnectionError when there was none.
 */
async function succeeded<A extends Answer>(
  url: string,
  call: () => Promise<A>,
): Promise<Exclude<A, { error: unknown; data?: never }> & { response: Response }> {
  let answer: A;
  try {
    answer = await call();
  } catch (cause) {
    // A body JSON cannot carry is refused before the request, not taken for a network failure.
    if (cause instanceof TrustpointUnsendableValueError) throw cause;
    throw new TrustpointConnectionError(url, { cause });
  }
  if (!answer.response.ok) throw trustpointApiErrorOf(answer.response, answer.error);
  return answer as Exclude<A, { error: unknown; data?: never }> & { response: Response };
}

function created<T>(answer: { data: { data: T }; response: Response }): Created<T> {
  const { headers, status } = answer.response;
  return {
    record: answer.data.data,
    accepted: status === 202,
    location: headers.get('location') ?? undefined,
    preferenceApplied: headers.get('preference-applied') ?? undefined,
  };
}

const createQuery = (options: CreateCertificateOptions) => ({
  networkId: options.networkId,
  ...(options.qualified === undefined ? {} : { qualified: options.qualified }),
  ...(options.publish === undefined ? {} : { publish: options.publish }),
});

const preferHeaders = (prefer: Preference | undefined, idempotencyKey?: string) => {
  const value = preferHeader(prefer);
  return {
    ...(value === undefined ? {} : { prefer: value }),
    ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
  };
};

/** The multipart body of `type=file`: the file part and the certificate body as JSON text. */
function fileForm(upload: { fileInput: Blob | Uint8Array; body: unknown }, fileName: string) {
  const form = new FormData();
  // A copy into an ArrayBuffer-backed view: Blob takes no views of a SharedArrayBuffer.
  const file =
    upload.fileInput instanceof Blob
      ? upload.fileInput
      : new Blob([new Uint8Array(upload.fileInput)]);
  form.append('fileInput', file, fileName);
  form.append('body', sendableJsonText(upload.body));
  return form;
}

/** The certificate API (`/cert/v2`): friendly methods, and `raw` for every operation. */
export class CertificateApi {
  constructor(
    /** Every operation of the document, typed; answers `{ data, error, response }`. */
    readonly raw: Client<CertPaths>,
    readonly baseUrl: string,
  ) {}

  private createJson(
    type: 'content' | 'asset' | 'url',
    body: ContentCertificateBody | AssetCertificateBody | UrlCertificateBody,
    options: CreateCertificateOptions,
  ) {
    return succeeded(this.baseUrl, () =>
      this.raw.POST('/certificates', {
        params: {
          query: { type, ...createQuery(options) },
          header: preferHeaders(options.prefer, options.idempotencyKey),
        },
        body,
      }),
    ).then(created);
  }

  /** POST /certificates?type=content: certify a JSON document. */
  createContentCertificate(
    body: ContentCertificateBody,
    options: CreateCertificateOptions,
  ): Promise<Created<Certificate>> {
    return this.createJson('content', body, options);
  }

  /** POST /certificates?type=asset. */
  createAssetCertificate(
    body: AssetCertificateBody,
    options: CreateCertificateOptions,
  ): Promise<Created<Certificate>> {
    return this.createJson('asset', body, options);
  }

  /** POST /certificates?type=url: the service fetches the URL and certifies its bytes. */
  createUrlCertificate(
    body: UrlCertificateBody,
    options: CreateCertificateOptions,
  ): Promise<Created<Certificate>> {
    return this.createJson('url', body, options);
  }

  /** POST /certificates?type=file as multipart/form-data; the file is streamed, not buffered. */
  async createFileCertificate(
    upload: FileUpload,
    options: CreateCertificateOptions,
  ): Promise<Created<Certificate>> {
    const fileName = upload.fileName ?? 'file';
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/certificates', {
        params: {
          query: { type: 'file', ...createQuery(options) },
          header: preferHeaders(options.prefer, options.idempotencyKey),
        },
        body: { fileInput: upload.file as Blob, body: upload.body },
        bodySerializer: (parts) =>
          fileForm(parts as { fileInput: Blob; body: FileCertificateBody }, fileName),
      }),
    );
    return created(answer);
  }

  /**
   * GET /certificates/{type}/{id}, read as a verifier reads a certificate: an answer naming a member
   * twice, or (by certID) naming another certID, throws a TrustpointRefusedAnswerError.
   */
  async getCertificate(id: string, options: LookupOptions = {}): Promise<Certificate> {
    const by = options.by ?? 'certID';
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/certificates/{type}/{id}', {
        params: {
          path: { type: by, id },
          ...(options.pin === undefined ? {} : { query: { pin: options.pin } }),
        },
        parseAs: 'text',
      }),
    );
    return strictRecord(
      answer,
      this.baseUrl,
      by === 'certID' ? { kind: 'certificate', member: 'certID', id } : undefined,
    ) as Certificate;
  }

  /** GET /certificates/{type}/{id}/pdf: the certificate to hold, with a QR code to verify it. */
  async getCertificatePdf(id: string, options: LookupOptions = {}): Promise<Blob> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/certificates/{type}/{id}/pdf', {
        params: {
          path: { type: options.by ?? 'certID', id },
          ...(options.pin === undefined ? {} : { query: { pin: options.pin } }),
        },
        headers: { Accept: 'application/pdf, application/json' },
        parseAs: 'blob',
      }),
    );
    return answer.data;
  }

  /** GET /certificates: a page of the caller's certificates. */
  async listCertificates(query: CertificateListQuery = {}): Promise<CertificatePage> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/certificates', { params: { query } }),
    );
    return answer.data.data;
  }

  /** PATCH /certificates/{type}/{id}: public or private, PIN set or removed. */
  async changeCertificateAccess(
    id: string,
    changes: CertificateAccessChanges,
    options: Pick<LookupOptions, 'by'> = {},
  ): Promise<Certificate> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.PATCH('/certificates/{type}/{id}', {
        params: { path: { type: options.by ?? 'certID', id } },
        body: changes,
      }),
    );
    return answer.data.data;
  }

  /** PATCH /certificates/{type}/{id}/revoke: anchors a revocation on `networkId`. */
  async revokeCertificate(
    id: string,
    options: { networkId: number; by?: CertificateLookup },
  ): Promise<Certificate> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.PATCH('/certificates/{type}/{id}/revoke', {
        params: {
          path: { type: options.by ?? 'certID', id },
          query: { networkId: options.networkId },
        },
      }),
    );
    return answer.data.data;
  }

  /** POST /certificates/{type}/{id}/signature: the service's qualified signature. */
  async signCertificate(
    id: string,
    options: { networkId: number; by?: CertificateLookup },
  ): Promise<Certificate> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/certificates/{type}/{id}/signature', {
        params: {
          path: { type: options.by ?? 'certID', id },
          query: { networkId: options.networkId },
        },
      }),
    );
    return answer.data.data;
  }

  /**
   * POST /trustpoints/verification: the service checks a certificate JSON you hold (a copy saved
   * at issuance, one handed to you) with the verifier every client runs, trusting its own
   * registries. To trust nobody but yourself, run `verifier.verifyCertificate` with your own trust.
   */
  async verifyCertificateJson(certificate: unknown): Promise<PostedCertificateVerification> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/trustpoints/verification', {
        body: certificate as Record<string, never>,
      }),
    );
    return answer.data.data;
  }

  /** GET /trustpoints/{type}/{id}: the service reads every trustpoint back from its chain. */
  async verifyTrustpoints(
    id: string,
    options: LookupOptions = {},
  ): Promise<CertificateVerification> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/trustpoints/{type}/{id}', {
        params: {
          path: { type: options.by ?? 'certID', id },
          ...(options.pin === undefined ? {} : { query: { pin: options.pin } }),
        },
      }),
    );
    return answer.data.data;
  }

  /** GET /networks: the networks this service anchors on. */
  async listNetworks(): Promise<CertNetworks> {
    return (await succeeded(this.baseUrl, () => this.raw.GET('/networks'))).data.data;
  }

  /** GET /.well-known/jwks.json: the keys of qualified signatures. */
  async getJwks(): Promise<Jwks> {
    return (await succeeded(this.baseUrl, () => this.raw.GET('/.well-known/jwks.json'))).data;
  }

  /** GET /account: the caller's credits, plan and networks, and what the credential may do. */
  async getAccount(): Promise<Account> {
    return (await succeeded(this.baseUrl, () => this.raw.GET('/account'))).data.data;
  }

  /** GET /account/credit-movements: a page of the ledger of the caller's credits. */
  async listCreditMovements(query: CreditMovementQuery = {}): Promise<CreditMovementPage> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/account/credit-movements', { params: { query } }),
    );
    return answer.data.data;
  }

  /**
   * POST /issuer-domains: claims a domain to issue in the name of; `record` is the DNS TXT record
   * to publish (`_trustpoint.<domain>`). Claiming it again answers the same claim.
   */
  async claimIssuerDomain(domain: string): Promise<IssuerDomain> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/issuer-domains', { body: { domain } }),
    );
    return answer.data.data;
  }

  /** GET /issuer-domains: the caller's claims. */
  async listIssuerDomains(): Promise<IssuerDomain[]> {
    return (await succeeded(this.baseUrl, () => this.raw.GET('/issuer-domains'))).data.data;
  }

  /**
   * POST /issuer-domains/{domain}/check: the service looks the record up; `status: 'proven'` from
   * then on names the domain in the caller's new certificates, `check.detail` says what it found.
   */
  async checkIssuerDomain(domain: string): Promise<IssuerDomainCheck> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/issuer-domains/{domain}/check', { params: { path: { domain } } }),
    );
    return answer.data.data;
  }

  /** DELETE /issuer-domains/{domain}: later certificates no longer name it. */
  async releaseIssuerDomain(domain: string): Promise<void> {
    await succeeded(this.baseUrl, () =>
      this.raw.DELETE('/issuer-domains/{domain}', { params: { path: { domain } } }),
    );
  }
}

/** The asset-tracking API (`/track/v2`): friendly methods, and `raw` for every operation. */
export class TrackingApi {
  constructor(
    /** Every operation of the document, typed; answers `{ data, error, response }`. */
    readonly raw: Client<TrackPaths>,
    readonly baseUrl: string,
  ) {}

  /** POST /assets: registers an asset and anchors its hash. */
  async createAsset(
    body: AssetBody,
    options: { prefer?: Preference; idempotencyKey?: string } = {},
  ): Promise<Created<Asset>> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/assets', {
        params: { header: preferHeaders(options.prefer, options.idempotencyKey) },
        body,
      }),
    );
    return created(answer);
  }

  /**
   * GET /assets/{trackID}: the asset with its evidences, read as a verifier reads it: an answer
   * naming a member twice, or another trackID, throws a TrustpointRefusedAnswerError.
   */
  async getAsset(trackID: string): Promise<Asset> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/assets/{trackID}', { params: { path: { trackID } }, parseAs: 'text' }),
    );
    return strictRecord(answer, this.baseUrl, {
      kind: 'asset',
      member: 'trackID',
      id: trackID,
    }) as Asset;
  }

  /** GET /assets: a page of the caller's assets. */
  async listAssets(query: AssetListQuery = {}): Promise<AssetPage> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/assets', { params: { query } }),
    );
    return answer.data.data;
  }

  /** POST /assets/{trackID}/transactions: adds an evidence and anchors it. */
  async addEvidence(
    trackID: string,
    body: EvidenceBody,
    options: { prefer?: Preference; idempotencyKey?: string } = {},
  ): Promise<Created<Evidence>> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.POST('/assets/{trackID}/transactions', {
        params: {
          path: { trackID },
          header: preferHeaders(options.prefer, options.idempotencyKey),
        },
        body,
      }),
    );
    return created(answer);
  }

  /**
   * GET /evidences/{hash}: one evidence, read back from the chain, read as a verifier reads it: an
   * answer naming a member twice, or another hash, throws a TrustpointRefusedAnswerError.
   */
  async getEvidence(hash: string): Promise<EvidenceVerification> {
    const answer = await succeeded(this.baseUrl, () =>
      this.raw.GET('/evidences/{id}', { params: { path: { id: hash } }, parseAs: 'text' }),
    );
    return strictRecord(answer, this.baseUrl, {
      kind: 'evidence',
      member: 'hash',
      id: hash,
    }) as EvidenceVerification;
  }

  /** PUT /assets/{trackID}/shares/{userDid}: lets another user read the asset. */
  async shareAsset(trackID: string, userDid: string): Promise<void> {
    await succeeded(this.baseUrl, () =>
      this.raw.PUT('/assets/{trackID}/shares/{userDid}', {
        params: { path: { trackID, userDid } },
      }),
    );
  }

  /** DELETE /assets/{trackID}/shares/{userDid}. */
  async unshareAsset(trackID: string, userDid: string): Promise<void> {
    await succeeded(this.baseUrl, () =>
      this.raw.DELETE('/assets/{trackID}/shares/{userDid}', {
        params: { path: { trackID, userDid } },
      }),
    );
  }

  /** GET /networks. */
  async listNetworks(): Promise<TrackNetworks> {
    return (await succeeded(this.baseUrl, () => this.raw.GET('/networks'))).data.data;
  }

  /** GET /account: the same account as `cert.getAccount()`, from the tracking API. */
  async getAccount(): Promise<Account> {
    return (await succeeded(this.baseUrl, () => this.raw.GET('/account'))).data.data;
  }
}

export interface TrustpointClient {
  /** The certificate API; throws when `certUrl` was not given. */
  readonly cert: CertificateApi;
  /** The asset-tracking API; throws when `trackUrl` was not given. */
  readonly track: TrackingApi;
}

/**
 * A client of one Trustpoint service. Every friendly method returns the record itself and throws
 * a TrustpointApiError subclass for an error answer (`error.kind`, `error.status`,
 * `error.fieldErrors`).
 */
export function createTrustpointClient(options: TrustpointClientOptions): TrustpointClient {
  const api = <Paths extends object>(url: string, basePath: string) => {
    const baseUrl = baseUrlOf(url, basePath);
    const client = createClient<Paths>({
      baseUrl,
      headers: { Accept: 'application/json', ...options.headers },
      // Checked first: JSON.stringify would send NaN as null, and throw on a BigInt.
      bodySerializer: (body: unknown) => (body instanceof FormData ? body : sendableJsonText(body)),
      fetch: retryingFetch(
        options.fetch ?? ((request) => globalThis.fetch(request)),
        options.retry,
      ),
    });
    client.use(authentication(options.token));
    return { client, baseUrl };
  };
  let cert: CertificateApi | undefined;
  let track: TrackingApi | undefined;
  return {
    get cert() {
      if (options.certUrl === undefined) throw new Error('createTrustpointClient: no certUrl');
      if (cert === undefined) {
        const { client, baseUrl } = api<CertPaths>(options.certUrl, CERT_API_BASE_PATH);
        cert = new CertificateApi(client, baseUrl);
      }
      return cert;
    },
    get track() {
      if (options.trackUrl === undefined) throw new Error('createTrustpointClient: no trackUrl');
      if (track === undefined) {
        const { client, baseUrl } = api<TrackPaths>(options.trackUrl, TRACK_API_BASE_PATH);
        track = new TrackingApi(client, baseUrl);
      }
      return track;
    },
  };
}
