import { encodeStringUint256Call } from '../../src/index.js';

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
      params: [{ data: string }];
    };
    const result = node.records.get(body.params[0].data);
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
