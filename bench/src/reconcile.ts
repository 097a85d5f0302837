// `trustpoint reconcile` at scale: N records written straight to a local node in data batches of
// 511 (as the batch registries keep them), the matching rows in a database, then the three parts of
// a reconciliation timed apart: the database's pages (GET /admin/v1/records' query), the chain scan
// (eth_getLogs + eth_getCode) and the comparison. Records/s of each tell how long a million take.
// Run: npm run bench:reconcile   (BENCH_RECORDS, default 100,000; DATABASE_URL for PostgreSQL,
// in a schema of its own that is dropped after; embedded PGlite otherwise)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compareRecords, scanRegistries, type DatabaseRecord } from '@trustpoint/chain';
import {
  encodeRecordBatch,
  HARDHAT_DEV_KEY,
  MAX_BATCH_RECORDS,
  startHardhatNode,
  TrustPointBatchRegistry__factory,
  TRUSTPOINT_BUCKET_BITS,
  type BatchRecord,
} from '@trustpoint/contracts';
import { createDatabase, listAcknowledgedRecords, MAX_RECORDS_PAGE } from '@trustpoint/db';
import { JsonRpcProvider, NonceManager, solidityPackedKeccak256, Wallet } from 'ethers';

const RECORDS = Number(process.env.BENCH_RECORDS ?? '100000');
/** Transactions in flight while writing. */
const IN_FLIGHT = 16;
const fmt = (n: number) => Math.round(n).toLocaleString('en');

function recordAt(i: number, start: number): BatchRecord {
  return {
    key: solidityPackedKeccak256(['string', 'uint256'], ['bench', i]),
    hash: solidityPackedKeccak256(['uint256'], [i]),
    type: i % 3,
    timestamp: start + i,
  };
}

async function main(): Promise<void> {
  const node = await startHardhatNode();
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-bench-reconcile-'));
  const schema = process.env.DATABASE_URL ? `bench_reconcile_${String(Date.now())}` : undefined;
  const database = await createDatabase(
    schema === undefined
      ? { dataDir }
      : { url: process.env.DATABASE_URL ?? '', schema, poolMax: 2 },
  );
  const provider = new JsonRpcProvider(node.url, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  try {
    const signer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
    const account = await signer.getAddress();
    const registry = await new TrustPointBatchRegistry__factory(signer).deploy(account, account);
    await registry.waitForDeployment();
    const contract = (await registry.getAddress()).toLowerCase();
    const start = Date.now();
    const records = Array.from({ length: RECORDS }, (_, i) => recordAt(i, start));

    const writing = performance.now();
    const batches: BatchRecord[][] = [];
    for (let i = 0; i < records.length; i += MAX_BATCH_RECORDS) {
      batches.push(records.slice(i, i + MAX_BATCH_RECORDS));
    }
    const blocks = new Map<number, number>();
    for (let i = 0; i < batches.length; i += IN_FLIGHT) {
      const sent = await Promise.all(
        batches.slice(i, i + IN_FLIGHT).map(async (batch) => {
          const encoded = encodeRecordBatch(batch, TRUSTPOINT_BUCKET_BITS);
          return registry.registerTrustPointBatch(encoded.records, encoded.buckets, {
            gasLimit: 15_000_000,
          });
        }),
      );
      const receipts = await Promise.all(sent.map((transaction) => transaction.wait()));
      receipts.forEach((receipt, j) => blocks.set(i + j, receipt?.blockNumber ?? 0));
    }
    const written = (performance.now() - writing) / 1_000;

    // The rows, as the anchoring engine leaves them: one anchored batch per data batch.
    const knex = database.knex;
    const batchIds: number[] = [];
    for (let b = 0; b < batches.length; b += 1) {
      const [row] = await knex('anchor_batches')
        .insert({
          network_id: '31337',
          kind: 'trustpoint',
          signer: account,
          nonce: b,
          raw_transaction: '0x',
          transaction_hash: `0x${b.toString(16).padStart(64, '0')}`,
          status: 'anchored',
          block_number: blocks.get(b),
        })
        .returning<{ id: number }[]>('id');
      batchIds.push(Number(row?.id));
    }
    const rows = records.map((record, i) => ({
      network_id: '31337',
      kind: 'trustpoint',
      record_key: record.key,
      hash: record.hash.slice(2),
      trustpoint_type: record.type,
      status: 'anchored',
      batch_id: batchIds[Math.floor(i / MAX_BATCH_RECORDS)],
    }));
    for (let i = 0; i < rows.length; i += 5_000) {
      await knex('anchor_records').insert(rows.slice(i, i + 5_000));
    }

    // Act: the three parts of a reconciliation.
    const paging = performance.now();
    const loaded: DatabaseRecord[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await listAcknowledgedRecords(knex, {
        networkId: '31337',
        limit: MAX_RECORDS_PAGE,
        ...(after === undefined ? {} : { after }),
      });
      // No trustpoint rows here: the registry is the one every record names.
      for (const record of page) loaded.push({ ...record, contract });
      if (page.length < MAX_RECORDS_PAGE) break;
      after = page[page.length - 1]?.id;
    }
    const paged = (performance.now() - paging) / 1_000;

    const toBlock = await provider.getBlockNumber();
    const scanning = performance.now();
    const chain = await scanRegistries({ rpcUrl: node.url, contracts: [contract], toBlock });
    const scanned = (performance.now() - scanning) / 1_000;

    const comparing = performance.now();
    const result = compareRecords(loaded, chain, { network: '31337', toBlock });
    const compared = (performance.now() - comparing) / 1_000;

    const rate = (seconds: number) => RECORDS / seconds;
    const total = paged + scanned + compared;
    console.log(
      `Reconcile ${fmt(RECORDS)} records in ${fmt(batches.length)} data batches of up to ${String(MAX_BATCH_RECORDS)} ` +
        `(hardhat node, ${schema === undefined ? 'PGlite' : 'PostgreSQL'}); written in ${written.toFixed(1)} s`,
    );
    console.log(
      `  database pages of ${fmt(MAX_RECORDS_PAGE)}: ${paged.toFixed(2)} s, ${fmt(rate(paged))} records/s`,
    );
    console.log(
      `  chain scan (eth_getLogs + eth_getCode): ${scanned.toFixed(2)} s, ${fmt(rate(scanned))} records/s`,
    );
    console.log(`  comparison: ${compared.toFixed(2)} s, ${fmt(rate(compared))} records/s`);
    console.log(
      `  together: ${fmt(rate(total))} records/s, so a million records take about ${fmt(1_000_000 / rate(total))} s`,
    );
    console.log(`  counts: ${JSON.stringify(result.counts)}`);
    if (result.counts.agree !== RECORDS || chain.length !== RECORDS) {
      throw new Error(
        `expected ${String(RECORDS)} records to agree: ${JSON.stringify(result.counts)}`,
      );
    }
  } finally {
    provider.destroy();
    if (schema !== undefined) await database.knex.raw('drop schema if exists ?? cascade', [schema]);
    await database.close();
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
