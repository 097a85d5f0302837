// The soak's clients: many users' mixed requests through every API process in turn, each answer
// recorded. An acknowledgement (201/202 with a certID or an evidence) is a promise the service made
// and is checked after the run; an error is counted by kind, expected (the process or the node was
// away) or not.
import { randomUUID } from 'node:crypto';
import type { Histogram } from 'hdr-histogram-js';
import { latencyHistogram } from '../support/latency.js';
import { NETWORK_ID } from './soak-deployment.js';

export const OPERATIONS = [
  'certify content',
  'certify content (respond-async)',
  'certify file',
  'certify url',
  'create asset',
  'add evidence',
  'list certificates',
  'list assets',
  'verify certificate',
  'verify evidence',
  'revoke certificate',
  'sign certificate',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** How often each operation is picked, out of the sum. */
const WEIGHTS: Record<Operation, number> = {
  'certify content': 20,
  'certify content (respond-async)': 8,
  'certify file': 7,
  'certify url': 6,
  'create asset': 8,
  'add evidence': 18,
  'list certificates': 7,
  'list assets': 4,
  'verify certificate': 8,
  'verify evidence': 4,
  'revoke certificate': 4,
  'sign certificate': 4,
};

/**
 * Why a request got no answer of its own: refused (nothing listened: the process was down), reset
 * (the connection died mid-request: the process was killed), or the client's own timeout.
 */
export type NetworkError = 'connection refused' | 'connection reset' | 'client timeout';

/** Kinds that a process or node being down explains: counted, not failures. */
export const EXPECTED_ERRORS: ReadonlySet<string> = new Set([
  'connection refused',
  'connection reset',
  'status 503',
]);

export interface SoakUser {
  id: string;
  token: string;
}

/** One promise the service made: a trustpoint of a certificate, or an asset's evidence. */
export type Acknowledgement =
  | {
      kind: 'trustpoint';
      userId: string;
      certID: string;
      trustpointType: 'Evidence' | 'Revocation' | 'Signature';
      timestamp: number;
      status: number;
    }
  | {
      kind: 'evidence';
      userId: string;
      trackID: string;
      assetHash: string;
      timestamp: number;
      hash: string;
      status: number;
    };

interface MetadataItem {
  type: 'Evidence' | 'Revocation' | 'Signature';
  timestamp: number;
}
interface CertificateBody {
  certID: string;
  metadata: MetadataItem[];
}
interface TransactionBody {
  timestamp: number;
  hash: string;
}
interface AssetBody {
  trackID: string;
  assetHash: string;
  transactions: TransactionBody[];
}

/** What each user made, to pick targets for later operations. */
interface UserState {
  user: SoakUser;
  certificates: { certID: string; revoked: boolean; signed: boolean }[];
  assets: { trackID: string; assetHash: string }[];
  evidenceHashes: string[];
}

export interface OperationStats {
  latency: Histogram;
  outcomes: Map<string, number>;
}

export interface SoakLoadOptions {
  users: SoakUser[];
  certApis: string[];
  trackApis: string[];
  /** Base URL of the loopback server whose pages URL certificates fetch. */
  urlTargetBase: string;
  clients: number;
  durationMs: number;
  /** A request that takes longer is abandoned and counted as a client timeout. */
  requestTimeoutMs: number;
  /** The load also goes on until this settles (the last fault's process running again). */
  lastsUntil?: Promise<unknown>;
}

export interface SoakLoadResult {
  acknowledgements: Acknowledgement[];
  stats: Map<Operation, OperationStats>;
  requests: number;
  seconds: number;
}

function networkErrorOf(error: unknown): NetworkError {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'client timeout';
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED' ? 'connection refused' : 'connection reset';
}

function pickOperation(random: number): Operation {
  const total = Object.values(WEIGHTS).reduce((sum, weight) => sum + weight, 0);
  let left = random * total;
  for (const operation of OPERATIONS) {
    left -= WEIGHTS[operation];
    if (left < 0) return operation;
  }
  return 'certify content';
}

function pickFrom<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

/**
 * Runs the load for `durationMs` (and until `lastsUntil` settles); in-flight requests are answered
 * (or time out) before it resolves.
 */
export async function runSoakLoad(options: SoakLoadOptions): Promise<SoakLoadResult> {
  const acknowledgements: Acknowledgement[] = [];
  const stats = new Map<Operation, OperationStats>(
    OPERATIONS.map((operation) => [
      operation,
      { latency: latencyHistogram(), outcomes: new Map() },
    ]),
  );
  const states: UserState[] = options.users.map((user) => ({
    user,
    certificates: [],
    assets: [],
    evidenceHashes: [],
  }));
  let requests = 0;
  let turn = 0;
  const started = Date.now();
  const endsAt = started + options.durationMs;

  /** The next process of an API in turn, so every process gets every kind of request. */
  const next = (apis: string[]) => apis[turn++ % apis.length] ?? '';

  const send = async (
    operation: Operation,
    user: SoakUser,
    url: string,
    init: { method: string; body?: FormData; json?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; data: unknown } | undefined> => {
    const stat = stats.get(operation);
    if (stat === undefined) throw new Error(`unknown operation ${operation}`);
    const count = (outcome: string) => {
      stat.outcomes.set(outcome, (stat.outcomes.get(outcome) ?? 0) + 1);
    };
    const headers: Record<string, string> = {
      Authorization: `Bearer ${user.token}`,
      ...init.headers,
    };
    if (init.json !== undefined) headers['Content-Type'] = 'application/json';
    requests += 1;
    const sentAt = performance.now();
    try {
      const response = await fetch(url, {
        method: init.method,
        headers,
        body: init.json === undefined ? init.body : JSON.stringify(init.json),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
      const text = await response.text();
      stat.latency.recordValue(Math.max(1, Math.round((performance.now() - sentAt) * 1_000)));
      count(`status ${String(response.status)}`);
      if (response.status >= 300) return { status: response.status, data: undefined };
      try {
        return { status: response.status, data: (JSON.parse(text) as { data: unknown }).data };
      } catch {
        count('unreadable body');
        return undefined;
      }
    } catch (error) {
      count(networkErrorOf(error));
      return undefined;
    }
  };

  const acknowledgeCertificate = (state: UserState, status: number, data: unknown) => {
    const certificate = data as CertificateBody;
    const evidence = certificate.metadata.find((item) => item.type === 'Evidence');
    if (evidence === undefined) return;
    state.certificates.push({ certID: certificate.certID, revoked: false, signed: false });
    acknowledgements.push({
      kind: 'trustpoint',
      userId: state.user.id,
      certID: certificate.certID,
      trustpointType: 'Evidence',
      timestamp: evidence.timestamp,
      status,
    });
  };

  const certificateBody = (what: string) => ({
    name: `${what} ${randomUUID()}`,
    description: 'Soak certificate',
  });

  const operations: Record<Operation, (state: UserState) => Promise<void>> = {
    'certify content': async (state) => {
      const url = `${next(options.certApis)}/certificates?type=content&networkId=${NETWORK_ID}`;
      const answer = await send('certify content', state.user, url, {
        method: 'POST',
        json: { ...certificateBody('Content'), content: { invoice: randomUUID(), amount: 100 } },
      });
      if (answer?.status === 201 || answer?.status === 202) {
        acknowledgeCertificate(state, answer.status, answer.data);
      }
    },
    'certify content (respond-async)': async (state) => {
      const url = `${next(options.certApis)}/certificates?type=content&networkId=${NETWORK_ID}`;
      const answer = await send('certify content (respond-async)', state.user, url, {
        method: 'POST',
        headers: { Prefer: 'respond-async' },
        json: { ...certificateBody('Async'), content: { order: randomUUID() } },
      });
      if (answer?.status === 201 || answer?.status === 202) {
        acknowledgeCertificate(state, answer.status, answer.data);
      }
    },
    'certify file': async (state) => {
      const url = `${next(options.certApis)}/certificates?type=file&networkId=${NETWORK_ID}`;
      const form = new FormData();
      form.append('fileInput', new Blob([`soak file ${randomUUID()}\n`.repeat(64)]), 'soak.txt');
      form.append('body', JSON.stringify(certificateBody('File')));
      const answer = await send('certify file', state.user, url, { method: 'POST', body: form });
      if (answer?.status === 201 || answer?.status === 202) {
        acknowledgeCertificate(state, answer.status, answer.data);
      }
    },
    'certify url': async (state) => {
      const url = `${next(options.certApis)}/certificates?type=url&networkId=${NETWORK_ID}`;
      const answer = await send('certify url', state.user, url, {
        method: 'POST',
        json: { ...certificateBody('Page'), url: `${options.urlTargetBase}/${randomUUID()}` },
      });
      if (answer?.status === 201 || answer?.status === 202) {
        acknowledgeCertificate(state, answer.status, answer.data);
      }
    },
    'create asset': async (state) => {
      const answer = await send('create asset', state.user, `${next(options.trackApis)}/assets`, {
        method: 'POST',
        json: {
          assetId: `pallet-${randomUUID()}`,
          data: { origin: 'soak' },
          networkId: Number(NETWORK_ID),
        },
      });
      if (answer?.status !== 201 && answer?.status !== 202) return;
      const asset = answer.data as AssetBody;
      const first = asset.transactions[0];
      state.assets.push({ trackID: asset.trackID, assetHash: asset.assetHash });
      if (first === undefined) return;
      state.evidenceHashes.push(first.hash);
      acknowledgements.push({
        kind: 'evidence',
        userId: state.user.id,
        trackID: asset.trackID,
        assetHash: asset.assetHash,
        timestamp: first.timestamp,
        hash: first.hash,
        status: answer.status,
      });
    },
    'add evidence': async (state) => {
      const asset = pickFrom(state.assets);
      if (asset === undefined) return operations['create asset'](state);
      const url = `${next(options.trackApis)}/assets/${encodeURIComponent(asset.trackID)}/transactions`;
      const answer = await send('add evidence', state.user, url, {
        method: 'POST',
        json: { metadata: { reading: randomUUID(), celsius: 4.5 } },
      });
      if (answer?.status !== 201 && answer?.status !== 202) return;
      const evidence = answer.data as TransactionBody;
      state.evidenceHashes.push(evidence.hash);
      acknowledgements.push({
        kind: 'evidence',
        userId: state.user.id,
        trackID: asset.trackID,
        assetHash: asset.assetHash,
        timestamp: evidence.timestamp,
        hash: evidence.hash,
        status: answer.status,
      });
    },
    'list certificates': async (state) => {
      const url = `${next(options.certApis)}/certificates?limit=20&order=desc`;
      await send('list certificates', state.user, url, { method: 'GET' });
    },
    'list assets': async (state) => {
      await send('list assets', state.user, `${next(options.trackApis)}/assets?limit=20`, {
        method: 'GET',
      });
    },
    'verify certificate': async (state) => {
      const certificate = pickFrom(state.certificates);
      if (certificate === undefined) return operations['certify content'](state);
      const url = `${next(options.certApis)}/trustpoints/certID/${encodeURIComponent(certificate.certID)}`;
      await send('verify certificate', state.user, url, { method: 'GET' });
    },
    'verify evidence': async (state) => {
      const hash = pickFrom(state.evidenceHashes);
      if (hash === undefined) return operations['create asset'](state);
      await send('verify evidence', state.user, `${next(options.trackApis)}/evidences/${hash}`, {
        method: 'GET',
      });
    },
    'revoke certificate': async (state) => {
      // Each certificate once: a second revocation is refused (409), as it should be.
      const certificate = pickFrom(state.certificates.filter((c) => !c.revoked));
      if (certificate === undefined) return operations['certify content'](state);
      certificate.revoked = true;
      const url = `${next(options.certApis)}/certificates/certID/${encodeURIComponent(certificate.certID)}/revoke?networkId=${NETWORK_ID}`;
      const answer = await send('revoke certificate', state.user, url, { method: 'PATCH' });
      acknowledgeTrustpoint(state, answer, certificate.certID, 'Revocation');
    },
    'sign certificate': async (state) => {
      const certificate = pickFrom(state.certificates.filter((c) => !c.revoked && !c.signed));
      if (certificate === undefined) return operations['certify content'](state);
      certificate.signed = true;
      // Kept from revocations: one racing this signature would get it refused (409, revoked).
      certificate.revoked = true;
      const url = `${next(options.certApis)}/certificates/certID/${encodeURIComponent(certificate.certID)}/signature?networkId=${NETWORK_ID}`;
      const answer = await send('sign certificate', state.user, url, { method: 'POST' });
      if (answer?.status === 201)
        acknowledgeTrustpoint(state, answer, certificate.certID, 'Signature');
    },
  };

  function acknowledgeTrustpoint(
    state: UserState,
    answer: { status: number; data: unknown } | undefined,
    certID: string,
    type: 'Revocation' | 'Signature',
  ): void {
    if (answer === undefined || answer.status >= 300) return;
    const item = (answer.data as CertificateBody).metadata.find((m) => m.type === type);
    if (item === undefined) return;
    acknowledgements.push({
      kind: 'trustpoint',
      userId: state.user.id,
      certID,
      trustpointType: type,
      timestamp: item.timestamp,
      status: answer.status,
    });
  }

  let held = options.lastsUntil !== undefined;
  void options.lastsUntil?.finally(() => {
    held = false;
  });
  const client = async (index: number) => {
    let round = 0;
    while (Date.now() < endsAt || held) {
      const state = states[(index + round * options.clients) % states.length];
      round += 1;
      if (state === undefined) return;
      await operations[pickOperation(Math.random())](state);
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, index) => client(index)));
  return { acknowledgements, stats, requests, seconds: (Date.now() - started) / 1_000 };
}
