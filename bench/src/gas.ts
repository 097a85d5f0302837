// Gas per registration on a real `hardhat node`, over JSON-RPC, next to the goals and to the
// Ethereum Attestation Service deployed on the same node. Run: npm run bench:gas
// BENCH_LOOKUP_BATCHES (10,000) and BENCH_LOOKUP_PER_BUCKET (25) size the lookup measurement.
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import {
  GAS_BATCH_SIZE,
  HARDHAT_DEV_KEY,
  MAX_BATCH_RECORDS,
  measureBatchRegistrationGas,
  measureRegistrationGas,
  measureStatusRegistrationGas,
  startHardhatNode,
} from '@trustpoint/contracts';
import { measureEasGas } from './support/eas-gas';
import { measureLookupGas } from './support/lookup-gas';

const LOOKUP_BATCHES = Number(process.env.BENCH_LOOKUP_BATCHES ?? 10_000);
const LOOKUP_PER_BUCKET = Number(process.env.BENCH_LOOKUP_PER_BUCKET ?? 25);
const fmt = (n: number) => Math.round(n).toLocaleString('en');

function table(title: string, rows: [string, number, string][]) {
  console.log(`\n${title}`);
  const width = Math.max(...rows.map(([scenario]) => scenario.length));
  console.log(`  ${'scenario'.padEnd(width)}  ${'gas'.padStart(10)}  goal`);
  for (const [scenario, used, goal] of rows) {
    console.log(`  ${scenario.padEnd(width)}  ${fmt(used).padStart(10)}  ${goal}`);
  }
}

async function main(): Promise<void> {
  const node = await startHardhatNode();
  try {
    // One nonce counter for every measurement: the node may answer nonce queries from a cache.
    const signer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, new JsonRpcProvider(node.url)));
    const ours = await measureBatchRegistrationGas(signer);
    const slots = await measureRegistrationGas(signer);
    const status = await measureStatusRegistrationGas(signer);
    const eas = await measureEasGas(signer, GAS_BATCH_SIZE);
    console.log(
      `Gas per record on hardhat node ${node.url} (cancun; every figure includes the 21,000 transaction base)`,
    );

    const largest = `largest batch (${String(MAX_BATCH_RECORDS)})`;
    table(
      'TrustPointBatchRegistry / EvidenceBatchRepository (slots for 1-3 records, data contracts above)',
      [
        ['trustpoint, single (slot)', ours.trustPointSingle, '<= 47,000 (issue 15)'],
        ['trustpoint, single Revocation (2 slots)', ours.trustPointSingleRevocation, '-'],
        ['trustpoint, 3 in slots, per record', ours.trustPointSlots3 / 3, '-'],
        ['trustpoint, batch of 3 (data), per record', ours.trustPointData3 / 3, '-'],
        ['trustpoint, batch of 10, per record', ours.trustPointData10 / 10, '-'],
        ['trustpoint, batch of 100, per record', ours.trustPointData100PerRecord, '<= 12,000'],
        [`trustpoint, ${largest}, per record`, ours.trustPointDataLargestPerRecord, '<= 12,000'],
        ['trustpoint, batch of 100 re-sent, per record', ours.trustPointDataResend100 / 100, '-'],
        ['evidence, single (slot)', ours.evidenceSingle, '<= 47,000 (issue 15)'],
        ['evidence, batch of 10, per record', ours.evidenceData10 / 10, '-'],
        ['evidence, batch of 100, per record', ours.evidenceData100PerRecord, '<= 12,000'],
        [`evidence, ${largest}, per record`, ours.evidenceDataLargestPerRecord, '<= 12,000'],
      ],
    );
    table(
      'TrustPointRegistry / EvidenceRepository (one slot per record, what the engine anchors on today)',
      [
        ['trustpoint, single', slots.trustPointSingleEvidence, '<= 50,000'],
        ['trustpoint, batch of 100, per record', slots.trustPointBatchPerRecord, '<= 26,000'],
        ['evidence, single', slots.evidenceSingle, '<= 50,000'],
        ['evidence, batch of 100, per record', slots.evidenceBatchPerRecord, '<= 26,000'],
      ],
    );
    table('TrustPointStatusRegistry (revocations by certID, one write-once slot each)', [
      ['revocation, single', status.revocationSingle, '-'],
      [
        `revocations, batch of ${String(GAS_BATCH_SIZE)}, per record`,
        status.revocationBatchPerRecord,
        '<= 25,000',
      ],
      [
        `revocations, batch of ${String(GAS_BATCH_SIZE)} re-sent, per record`,
        status.revocationBatchResend / GAS_BATCH_SIZE,
        '-',
      ],
    ]);
    table('EAS 1.9 (npm artifacts; schema "bytes32 recordKey,bytes32 hash,uint8 trustPointType")', [
      ['attest', eas.attest, '-'],
      [`multiAttest of ${String(GAS_BATCH_SIZE)}, per record`, eas.multiAttestPerRecord, '-'],
      ['timestamp', eas.timestamp, '-'],
      [`multiTimestamp of ${String(GAS_BATCH_SIZE)}, per record`, eas.multiTimestampPerRecord, '-'],
      ['revoke (schema "bytes32 certKey", attested beforehand)', eas.revoke, '-'],
      [`multiRevoke of ${String(GAS_BATCH_SIZE)}, per record`, eas.multiRevokePerRecord, '-'],
    ]);
    const ratio = (a: number, b: number) => (a / b).toFixed(3);
    console.log('\nRatios, ours / EAS (below 1: we use less gas)');
    console.log(
      `  single trustpoint / attest             ${ratio(ours.trustPointSingle, eas.attest)}`,
    );
    console.log(
      `  single trustpoint / timestamp          ${ratio(ours.trustPointSingle, eas.timestamp)}`,
    );
    console.log(
      `  batch of 100 / multiAttest of 100      ${ratio(ours.trustPointData100PerRecord, eas.multiAttestPerRecord)}`,
    );
    console.log(
      `  batch of 100 / multiTimestamp of 100   ${ratio(ours.trustPointData100PerRecord, eas.multiTimestampPerRecord)}`,
    );
    console.log(
      `  ${largest} / multiTimestamp of 100 ${ratio(ours.trustPointDataLargestPerRecord, eas.multiTimestampPerRecord)}`,
    );
    console.log(
      `  single revocation / revoke             ${ratio(status.revocationSingle, eas.revoke)}`,
    );
    console.log(
      `  revocations of 100 / multiRevoke       ${ratio(status.revocationBatchPerRecord, eas.multiRevokePerRecord)}`,
    );

    console.log(
      `\nLookup: writing ${fmt(LOOKUP_BATCHES)} data batches of 2 trustpoints, ${String(LOOKUP_PER_BUCKET)} to a 1,024 ms bucket ...`,
    );
    const lookup = await measureLookupGas(
      node.url,
      HARDHAT_DEV_KEY,
      LOOKUP_BATCHES,
      LOOKUP_PER_BUCKET,
      (done) => {
        if (done % 2000 === 0) console.log(`  ${fmt(done)} sent`);
      },
    );
    table(`getTrustPoint as eth_estimateGas with ${fmt(lookup.batches)} batches`, [
      [
        `found, last of ${String(LOOKUP_PER_BUCKET)} batches in its bucket (offsets apart)`,
        lookup.foundInBusyBucket,
        '<= 300,000',
      ],
      [
        `found, last of ${String(LOOKUP_PER_BUCKET)} batches with overlapping offsets`,
        lookup.foundInCrowdedBucket,
        '<= 300,000',
      ],
      [
        `absent, bucket of ${String(LOOKUP_PER_BUCKET)} overlapping batches (findTrustPoint)`,
        lookup.absentInCrowdedBucket,
        '<= 300,000',
      ],
    ]);
    console.log(`  eth_call getTrustPoint over HTTP: ${lookup.callMs.toFixed(2)} ms on average`);

    const met =
      ours.trustPointData100PerRecord <= 12_000 &&
      ours.evidenceData100PerRecord <= 12_000 &&
      ours.trustPointDataLargestPerRecord <= 12_000 &&
      ours.evidenceDataLargestPerRecord <= 12_000 &&
      lookup.foundInCrowdedBucket <= 300_000 &&
      lookup.absentInCrowdedBucket <= 300_000;
    const singleMet = ours.trustPointSingle <= 47_000 && ours.evidenceSingle <= 47_000;
    console.log(
      `\nBatch and lookup goals ${met ? 'met' : 'NOT met'}; single-record goal (47,000) ${singleMet ? 'met' : 'NOT met (see contracts/README.md)'}.`,
    );
    if (!met) process.exitCode = 1;
  } finally {
    await node.stop();
  }
}

void main();
