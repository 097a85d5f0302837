import { encodeStringUint256Call, RECORD_EVENT_TOPICS } from '../../src/index.js';

/**
 * A JSON-RPC node in memory, as `fetch` sees it: it answers `eth_call` for the records it holds
 * (keyed by call data) with their ABI-encoded result and anything else with the not-found revert
 * the registry gives, Hardhat style (`error.data.data`).
 */
export interface FakeNode {
  url: string;
  /** Call data → result data. */
  records: Map<string, string>;
  notFoundSelector: string;
  /** What `eth_chainId` answers; 31337 by default. */
  chainId?: number;
  /** Block 0's hash; `FAKE_GENESIS` by default. */
  genesisHash?: string;
  /** Transaction hash → its receipt (`eth_getTransactionReceipt`). */
  receipts?: Map<string, FakeReceipt>;
  /**
   * How its contracts answer AccessControl's `hasRole`: `false` for every account by default, as
   * a registry no development account holds does; `held` names accounts holding a role (lowercase
   * 0x addresses), on the contracts `on` names (lowercase; every contract when absent); `none`: no
   * contract answers it (the not-found revert, as a forger's bytes may).
   */
  roles?: { held?: readonly string[]; on?: readonly string[] } | 'none';
  /** What `eth_getLogs` answers (any filter); the method is unknown to the node when absent. */
  logs?: { address: string; topics: string[]; blockNumber: string }[];
  /** The latest block's time (seconds); the latest receipt's block time by default. */
  latestBlockTime?: number;
}

const HAS_ROLE = '0x91d14854';

export interface FakeReceipt {
  status: '0x1' | '0x0';
  blockNumber: number;
  /** Seconds. */
  blockTime: number;
  logs: { address: string; topics: string[]; data: string }[];
}

export const FAKE_GENESIS = `0x${'6e'.repeat(32)}`;
const blockHashOf = (blockNumber: number) => `0x${blockNumber.toString(16).padStart(64, 'b')}`;

/** A `TrustPointRecorded(key, hash, type)` log of a batch registry. */
export function trustPointRecordedLog(
  registry: string,
  key: string,
  hash: string,
  type: number,
): FakeReceipt['logs'][number] {
  return {
    address: registry,
    topics: [RECORD_EVENT_TOPICS.trustPoint.slot],
    data: `0x${key.slice(2)}${hash}${word(type)}`,
  };
}

/** An `EvidenceRecorded(key, hash)` log of a batch repository. */
export function evidenceRecordedLog(
  repository: string,
  key: string,
  hash: string,
): FakeReceipt['logs'][number] {
  return {
    address: repository,
    topics: [RECORD_EVENT_TOPICS.evidence.slot],
    data: `0x${key.slice(2)}${hash}`,
  };
}

function answer(
  node: FakeNode,
  method: string,
  params: unknown[],
): { result: unknown } | undefined {
  switch (method) {
    case 'eth_chainId':
      return { result: `0x${(node.chainId ?? 31337).toString(16)}` };
    case 'eth_getBlockByNumber': {
      if (params[0] === 'latest') {
        const times = [...(node.receipts?.values() ?? [])].map((r) => r.blockTime);
        const time = node.latestBlockTime ?? Math.max(0, ...times);
        return { result: { hash: blockHashOf(1_000), timestamp: `0x${time.toString(16)}` } };
      }
      const number = Number(BigInt(params[0] as string));
      if (number === 0)
        return { result: { hash: node.genesisHash ?? FAKE_GENESIS, timestamp: '0x0' } };
      const receipt = [...(node.receipts?.values() ?? [])].find((r) => r.blockNumber === number);
      return {
        result:
          receipt === undefined
            ? null
            : { hash: blockHashOf(number), timestamp: `0x${receipt.blockTime.toString(16)}` },
      };
    }
    case 'eth_getLogs':
      return node.logs === undefined ? undefined : { result: node.logs };
    case 'eth_getTransactionReceipt': {
      const receipt = node.receipts?.get(params[0] as string);
      return {
        result:
          receipt === undefined
            ? null
            : {
                status: receipt.status,
                blockNumber: `0x${receipt.blockNumber.toString(16)}`,
                blockHash: blockHashOf(receipt.blockNumber),
                logs: receipt.logs,
              },
      };
    }
    default:
      return undefined;
  }
}

const word = (value: bigint | number) => BigInt(value).toString(16).padStart(64, '0');

/** `abi.encode(string hash, uint8 type)`; built through the call encoder's string tail. */
export function trustPointResult(hash: string, type: number): string {
  const tail = encodeStringUint256Call('0x', hash, 0n).slice(2 + 128); // length word + bytes
  return `0x${word(64)}${word(type)}${tail}`;
}

export function evidenceResult(hash: string): string {
  const tail = encodeStringUint256Call('0x', hash, 0n).slice(2 + 128);
  return `0x${word(32)}${tail}`;
}

/** `fetch` over the given nodes; any other URL is refused like a node that is down. */
export function fetchOf(...nodes: FakeNode[]): typeof fetch & { calls: string[] } {
  const calls: string[] = [];
  const fake = ((input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : input.toString();
    calls.push(url);
    const node = nodes.find((candidate) => candidate.url === url);
    if (node === undefined)
      throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') });
    const body = JSON.parse(init?.body as string) as {
      id: number;
      method: string;
      params: [{ data: string; to?: string }];
    };
    const other = answer(node, body.method, body.params);
    if (other !== undefined) {
      return Promise.resolve(
        new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...other }), {
          headers: { 'content-type': 'application/json' },
        }),
      );
    }
    const data = body.params[0].data;
    if (body.method === 'eth_call' && data.startsWith(HAS_ROLE) && node.roles !== 'none') {
      const account = `0x${data.slice(-40)}`;
      const to = body.params[0].to?.toLowerCase() ?? '';
      const held =
        node.roles?.held?.includes(account) === true &&
        (node.roles.on === undefined || node.roles.on.includes(to));
      return Promise.resolve(
        new Response(
          JSON.stringify({ jsonrpc: '2.0', id: body.id, result: `0x${word(held ? 1 : 0)}` }),
          { headers: { 'content-type': 'application/json' } },
        ),
      );
    }
    const result = node.records.get(data);
    const reply =
      result === undefined
        ? {
            jsonrpc: '2.0',
            id: body.id,
            error: {
              code: -32603,
              message: 'execution reverted',
              data: { message: 'reverted', data: node.notFoundSelector },
            },
          }
        : { jsonrpc: '2.0', id: body.id, result };
    return Promise.resolve(
      new Response(JSON.stringify(reply), { headers: { 'content-type': 'application/json' } }),
    );
  }) as typeof fetch & { calls: string[] };
  fake.calls = calls;
  return fake;
}
