// End-to-end anchoring throughput on the local chain: records queued in the database the way the
// APIs queue them (one transaction each, many in parallel), until every request has its receipt.
// Batched anchoring against one transaction per record, with the gas each costs per record.
// Run: npm run bench:anchoring   (DATABASE_URL to measure on PostgreSQL; embedded PGlite otherwise)
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AnchorEngine,
  NetworkRegistry,
  type AnchorRequest,
  type NetworkConfig,
} from '@trustpoint/chain';
import {
  chainWriterProvider,
  deployTrustpoint,
  freePort,
  HARDHAT_DEV_KEY,
  startLocalChain,
} from '@trustpoint/contracts';
import { createDatabase, type Database } from '@trustpoint/db';
import { evidenceKey, sha256, utf8Bytes } from '@trustpoint/domain';
import { JsonRpcProvider, Wallet } from 'ethers';

const BATCHED_RECORDS = Number(process.env.BENCH_RECORDS ?? '5000');
const SINGLE_RECORDS = Number(process.env.BENCH_SINGLE_RECORDS ?? '300');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '1000');

interface Run {
  records: number;
  seconds: number;
  transactions: number;
  gasPerRecord: number;
}

// Evidences of 250 assets, each asset's one a second, as a busy service records them: a batch's
// records span a few seconds (a batch registry pays a bucket word per 16 s it spans). Each run's
// seconds come after the previous run's (slot records only go in buckets no data batch has passed).
const ASSETS = 250;
let nextSecond = 1_767_225_600;

function requests(count: number, label: string): AnchorRequest[] {
  const assetHashes = Array.from({ length: ASSETS }, (_, a) =>
    sha256(utf8Bytes(`bench asset ${label} ${String(a)} ${String(Date.now())}`)),
  );
  const first = nextSecond;
  nextSecond += Math.ceil(count / ASSETS) + 16;
  return Array.from({ length: count }, (_, i) => ({
    networkId: '31337',
    kind: 'evidence',
    recordKey: evidenceKey(assetHashes[i % ASSETS] ?? '', first + Math.floor(i / ASSETS)),
    timestamp: first + Math.floor(i / ASSETS),
    hash: sha256(utf8Bytes(`${label} evidence ${String(i)}`)),
  }));
}

async function measure(
  database: Database,
  anchoring: Database,
  network: NetworkConfig,
  records: AnchorRequest[],
): Promise<Run> {
  const engine = new AnchorEngine(database.knex, new NetworkRegistry([network]), {
    anchorTimeoutMs: 600_000,
    anchoringKnex: anchoring.knex,
  });
  engine.start();
  const started = process.hrtime.bigint();
  let next = 0;
  const receipts: { transactionHash: string }[] = [];
  // Each client queues a record (one durable INSERT, committed on its own) and waits for its
  // receipt, as a request does; what else a request writes is the APIs' cost, measured there.
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < records.length) {
        const request = records[next++];
        if (!request) break;
        const id = await engine.enqueue(database.knex, request);
        receipts.push(await engine.waitForAnchor(id));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await engine.stop();

  const hashes = [...new Set(receipts.map((receipt) => receipt.transactionHash))];
  const provider = new JsonRpcProvider(network.rpcUrl, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  let gas = 0n;
  for (const hash of hashes) gas += (await provider.getTransactionReceipt(hash))?.gasUsed ?? 0n;
  provider.destroy();
  return {
    records: records.length,
    seconds,
    transactions: hashes.length,
    gasPerRecord: Number(gas) / records.length,
  };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-bench-'));
  const chain = await startLocalChain({ dataDir: join(dataDir, 'chain'), port: await freePort() });
  const provider = chainWriterProvider(chain.url, chain.writeHeaders);
  const deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
  provider.destroy();
  const schema = `bench_${String(Date.now())}`;
  const database = await createDatabase(
    process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL, schema }
      : { dataDir: join(dataDir, 'pgdata') },
  );
  // As the services run it: on PostgreSQL the anchorers get a small pool of their own.
  const anchoring =
    database.backend === 'postgres' && process.env.DATABASE_URL
      ? await createDatabase({ url: process.env.DATABASE_URL, schema, poolMax: 4, migrate: false })
      : database;
  const network = (maxSize: number): NetworkConfig => ({
    networkId: '31337',
    name: 'bench',
    rpcUrl: chain.url,
    rpcHeaders: chain.writeHeaders,
    chainId: 31337,
    trustPointRegistry: deployment.trustPointRegistry,
    evidenceRepository: deployment.evidenceRepository,
    signerKey: HARDHAT_DEV_KEY,
    confirmations: 1,
    explorerUrl: undefined,
    batch: { maxSize, maxWaitMs: 50 },
  });

  try {
    const batched = await measure(
      database,
      anchoring,
      network(500),
      requests(BATCHED_RECORDS, 'batched'),
    );
    const single = await measure(
      database,
      anchoring,
      network(1),
      requests(SINGLE_RECORDS, 'single'),
    );
    const rate = (run: Run) => run.records / run.seconds;
    const line = (name: string, run: Run) =>
      `${name.padEnd(26)} ${String(run.records).padStart(6)} records  ${run.seconds.toFixed(2).padStart(7)} s  ${rate(run).toFixed(0).padStart(6)} records/s  ${String(run.transactions).padStart(5)} transactions  ${run.gasPerRecord.toFixed(0).padStart(6)} gas/record`;
    console.log(
      `Anchoring end to end on the local chain, ${database.backend} database, ${String(CLIENTS)} concurrent clients\n`,
    );
    console.log(line('batched (up to 500/tx)', batched));
    console.log(line('one transaction per record', single));
    const ratio = rate(batched) / rate(single);
    console.log(
      `\nbatched / one-per-transaction: ${ratio.toFixed(1)}x (goal >= 10x); batched rate goal >= 1,000 records/s`,
    );
    console.log(
      `gas per record: ${batched.gasPerRecord.toFixed(0)} batched vs ${single.gasPerRecord.toFixed(0)} alone`,
    );
  } finally {
    if (database.backend === 'postgres')
      await database.knex.raw('drop schema if exists ?? cascade', [schema]);
    if (anchoring !== database) await anchoring.close();
    await database.close();
    await chain.stop();
  }
}

void main();
