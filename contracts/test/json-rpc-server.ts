// The in-process Hardhat network served over HTTP by Hardhat's own JSON-RPC server (the one
// `hardhat node` runs), so tests read as an outside client does: a raw eth_call, the revert data as
// the node reports it. Unlike a separate `hardhat node`, it shares the tests' chain, snapshots and,
// under `npm run coverage`, the instrumented contracts.
import { network, run } from 'hardhat';
import { TASK_NODE_CREATE_SERVER } from 'hardhat/builtin-tasks/task-names';
import type { JsonRpcServer } from 'hardhat/types';

export interface JsonRpcEndpoint {
  url: string;
  close(): Promise<void>;
}

export async function serveHardhatNetwork(): Promise<JsonRpcEndpoint> {
  const server = (await run(TASK_NODE_CREATE_SERVER, {
    hostname: '127.0.0.1',
    port: 0,
    provider: network.provider,
  })) as JsonRpcServer;
  const { address, port } = await server.listen();
  return { url: `http://${address}:${String(port)}/`, close: () => server.close() };
}

interface JsonRpcResponse {
  result?: string;
  error?: { code: number; message: string; data?: string | { data?: string } };
}

/** The outcome of one raw `eth_call`: its return data, or the revert data the node reports. */
export type CallOutcome = { returned: string } | { reverted: string };

export async function ethCall(
  url: string,
  call: { to: string; data: string; from?: string },
): Promise<CallOutcome> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_call', params: [call, 'latest'], id: 1 }),
  });
  const body = (await response.json()) as JsonRpcResponse;
  if (body.result !== undefined) return { returned: body.result };
  // geth and Besu put revert data in `error.data`, Hardhat in `error.data.data`.
  const data = body.error?.data;
  const reverted = typeof data === 'string' ? data : data?.data;
  if (reverted === undefined) throw new Error(`eth_call failed: ${JSON.stringify(body)}`);
  return { reverted };
}
