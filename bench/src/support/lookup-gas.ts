// Lookup gas of the batch registry with many data batches written: as an eth_call costs it.
import {
  JsonRpcProvider,
  Wallet,
  sha256,
  solidityPackedKeccak256,
  toUtf8Bytes,
  type TransactionRequest,
} from 'ethers';
import {
  TrustPointBatchRegistry__factory,
  TRUSTPOINT_BUCKET_BITS,
  encodeRecordBatch,
} from '@trustpoint/contracts';

export interface LookupGas {
  batches: number;
  batchesPerBucket: number;
  /** Found in the last of a bucket's batches, their offsets apart (the usual case). */
  foundInBusyBucket: number;
  /** Found in the last of a bucket's batches whose offsets all overlap: every batch searched. */
  foundInCrowdedBucket: number;
  /** Not found in the crowded bucket. */
  absentInCrowdedBucket: number;
  /** Mean time of one eth_call getTrustPoint, ms. */
  callMs: number;
}

const BASE_MS = 1_767_225_600_000 - (1_767_225_600_000 % 1024);
const certId = (batch: number, i: number) =>
  `did:trustpoint:certid:lookup-${String(batch)}-${String(i)}`;

/**
 * Writes `batches` data batches of 2 trustpoints, `perBucket` to a 1,024 ms bucket: in the first
 * bucket with overlapping offsets, elsewhere with offsets apart. Transactions are signed locally
 * and sent 200 at a time.
 */
export async function measureLookupGas(
  url: string,
  key: string,
  batches: number,
  perBucket: number,
  progress: (done: number) => void,
): Promise<LookupGas> {
  const provider = new JsonRpcProvider(url, undefined, { batchMaxCount: 1, cacheTimeout: -1 });
  const wallet = new Wallet(key, provider);
  const registry = await new TrustPointBatchRegistry__factory(wallet).deploy(
    wallet.address,
    wallet.address,
  );
  await registry.waitForDeployment();
  const to = await registry.getAddress();
  const { chainId } = await provider.getNetwork();
  const fee = await provider.getFeeData();
  let nonce = await provider.getTransactionCount(wallet.address, 'pending');
  const timestampOf = (batch: number, i: number) => {
    const start = BASE_MS + Math.floor(batch / perBucket) * 1024;
    const slot = batch % perBucket;
    if (batch < perBucket) return start + (i === 0 ? slot : 1000 - slot); // overlapping ranges
    return start + slot * 40 + i; // ranges apart
  };
  // Automine takes transactions one by one, in nonce order: mine 200 a block instead.
  await provider.send('evm_setAutomine', [false]);
  const window: Promise<unknown>[] = [];
  for (let b = 0; b < batches; ++b) {
    const records = [0, 1].map((i) => ({
      key: solidityPackedKeccak256(['string', 'uint256'], [certId(b, i), timestampOf(b, i)]),
      hash: sha256(toUtf8Bytes(`${String(b)}/${String(i)}`)),
      timestamp: timestampOf(b, i),
    }));
    const encoded = encodeRecordBatch(records, TRUSTPOINT_BUCKET_BITS);
    const tx: TransactionRequest = {
      to,
      data: registry.interface.encodeFunctionData('registerTrustPointBatch', [
        encoded.records,
        encoded.buckets,
      ]),
      nonce: nonce++,
      chainId,
      gasLimit: 300_000,
      maxFeePerGas: (fee.maxFeePerGas ?? 10n ** 10n) * 2n,
      maxPriorityFeePerGas: fee.maxPriorityFeePerGas ?? 10n ** 9n,
      type: 2,
    };
    window.push(
      wallet.signTransaction(tx).then((raw) => provider.send('eth_sendRawTransaction', [raw])),
    );
    if (window.length === 200 || b === batches - 1) {
      await Promise.all(window.splice(0));
      await provider.send('evm_mine', []);
      progress(b + 1);
    }
  }
  for (let i = 0; i < 10 && Number(await registry.batchCount()) < batches; ++i) {
    await provider.send('evm_mine', []);
  }
  await provider.send('evm_setAutomine', [true]);
  const count = Number(await registry.batchCount());
  if (count !== batches)
    throw new Error(`${String(count)} batches written, ${String(batches)} sent`);

  const lastInBucket = (bucket: number) => bucket * perBucket + perBucket - 1;
  const estimate = async (id: string, timestamp: number) =>
    Number(
      await provider.estimateGas({
        to,
        data: registry.interface.encodeFunctionData('getTrustPoint', [id, timestamp]),
      }),
    );
  const busy = lastInBucket(Math.floor(batches / perBucket) - 1);
  const crowded = lastInBucket(0);
  const foundInBusyBucket = await estimate(certId(busy, 1), timestampOf(busy, 1));
  const foundInCrowdedBucket = await estimate(certId(crowded, 1), timestampOf(crowded, 1));
  // eth_estimateGas refuses a call that reverts, as getTrustPoint does for an absent key:
  // findTrustPoint runs the same search and answers `found = false` instead.
  const absentInCrowdedBucket = Number(
    await provider.estimateGas({
      to,
      data: registry.interface.encodeFunctionData('findTrustPoint', [
        solidityPackedKeccak256(
          ['string', 'uint256'],
          ['did:trustpoint:certid:absent', BASE_MS + 500],
        ),
        BASE_MS + 500,
      ]),
    }),
  );
  const started = performance.now();
  const calls = 200;
  for (let i = 0; i < calls; ++i) {
    const b = (i * 7919) % batches;
    const [hash] = await registry.getTrustPoint(certId(b, 0), timestampOf(b, 0));
    if (hash !== sha256(toUtf8Bytes(`${String(b)}/0`)).slice(2))
      throw new Error(`batch ${String(b)}: wrong hash`);
  }
  const callMs = (performance.now() - started) / calls;
  return {
    batches,
    batchesPerBucket: perBucket,
    foundInBusyBucket,
    foundInCrowdedBucket,
    absentInCrowdedBucket,
    callMs,
  };
}
