import { evidenceAnswer } from './json-rpc-relay.js';

async function rpc(
  chainUrl: string,
  method: string,
  params: unknown[],
  headers: Readonly<Record<string, string>>,
): Promise<unknown> {
  const response = await fetch(chainUrl, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

/**
 * Deploys what a forger would: a contract that answers any call with the ABI encoding of
 * `getTrustPoint`'s outputs holding `hash` (an Evidence), whatever is asked. Sent from the node's
 * unlocked account number `account` (0 by default; one the anchoring engine does not use keeps
 * its nonces apart), with the chain's `writeHeaders` (the embedded chain relays transactions to
 * no one else). Returns the contract's address once mined.
 */
export async function deployForgedRegistry(
  chain: { url: string; writeHeaders: Readonly<Record<string, string>> },
  hash: string,
  account = 0,
): Promise<string> {
  const { url: chainUrl, writeHeaders } = chain;
  const answer = evidenceAnswer(hash)
    .slice(2)
    .padEnd(3 * 64 + 128, '0');
  const size = answer.length / 2;
  const hex2 = (value: number) => value.toString(16).padStart(4, '0');
  // runtime: CODECOPY(0, 14, size); RETURN(0, size); then the answer
  const runtime = `61${hex2(size)}600e60003961${hex2(size)}6000f3${answer}`;
  const runtimeSize = runtime.length / 2;
  // init: CODECOPY(0, 14, runtimeSize); RETURN(0, runtimeSize); then the runtime
  const init = `61${hex2(runtimeSize)}600e60003961${hex2(runtimeSize)}6000f3${runtime}`;
  const accounts = (await rpc(chainUrl, 'eth_accounts', [], writeHeaders)) as string[];
  const from = accounts[account];
  const transaction = await rpc(
    chainUrl,
    'eth_sendTransaction',
    [{ from, data: `0x${init}` }],
    writeHeaders,
  );
  for (;;) {
    const receipt = (await rpc(chainUrl, 'eth_getTransactionReceipt', [transaction], {})) as {
      contractAddress?: string;
    } | null;
    if (receipt?.contractAddress) return receipt.contractAddress;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
