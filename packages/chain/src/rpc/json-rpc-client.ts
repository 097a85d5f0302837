/** A JSON-RPC error answered by the node (as opposed to a node that did not answer). */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/**
 * The few JSON-RPC calls the anchorer makes on its hot path, over plain fetch and JSON.parse.
 * Receipts of large batches carry hundreds of logs; a general-purpose provider decodes those far
 * more slowly than the engine needs, and the engine only reads status and block number.
 */
export class JsonRpcClient {
  #id = 0;

  readonly #headers: Readonly<Record<string, string>>;

  /** `headers`: sent with every call (`NetworkConfig.rpcHeaders`); kept private, never shown. */
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
    headers: Readonly<Record<string, string>> = {},
  ) {
    this.#headers = headers;
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { ...this.#headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) throw new Error(`${method}: HTTP ${String(response.status)} from the node`);
    const body = (await response.json()) as {
      result?: T;
      error?: { code: number; message: string; data?: unknown };
    };
    if (body.error) throw new JsonRpcError(body.error.code, body.error.message, body.error.data);
    return body.result as T;
  }

  async blockNumber(): Promise<number> {
    return Number(await this.call<string>('eth_blockNumber', []));
  }

  async transactionCount(address: string, blockTag: 'latest' | 'pending'): Promise<number> {
    return Number(await this.call<string>('eth_getTransactionCount', [address, blockTag]));
  }

  /** Status (true: success) and block of a mined transaction; null while it is not mined. */
  async receipt(hash: string): Promise<{ success: boolean; blockNumber: number } | null> {
    const receipt = await this.call<{ status: string; blockNumber: string } | null>(
      'eth_getTransactionReceipt',
      [hash],
    );
    if (!receipt) return null;
    return { success: Number(receipt.status) === 1, blockNumber: Number(receipt.blockNumber) };
  }

  /** Balance in wei at the latest block. */
  async balance(address: string): Promise<bigint> {
    return BigInt(await this.call<string>('eth_getBalance', [address, 'latest']));
  }

  async sendRawTransaction(raw: string): Promise<string> {
    return this.call<string>('eth_sendRawTransaction', [raw]);
  }
}
