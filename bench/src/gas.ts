// Gas per registration on a real `hardhat node`, over JSON-RPC, next to the goals and to peers.
// Run: npm run bench:gas
import { JsonRpcProvider, Wallet } from 'ethers';
import {
  GAS_BATCH_SIZE,
  HARDHAT_DEV_KEY,
  measureRegistrationGas,
  startHardhatNode,
} from '@trustpoint/contracts';

// Reference points the figures are read against.
const STORAGE_FLOOR = 22_100; // cold SLOAD + new SSTORE of one 32-byte slot
const EAS_ATTEST = '146,000-180,000';
const STRING_STORAGE = '77,000-98,000';

async function main(): Promise<void> {
  const node = await startHardhatNode();
  try {
    const signer = new Wallet(HARDHAT_DEV_KEY, new JsonRpcProvider(node.url));
    const gas = await measureRegistrationGas(signer);
    const rows: [string, number, string][] = [
      ['Trustpoint, single (Evidence)', gas.trustPointSingleEvidence, '<= 50,000'],
      ['Trustpoint, single (Revocation)', gas.trustPointSingleRevocation, '-'],
      [
        `Trustpoint, batch of ${String(GAS_BATCH_SIZE)}, per record`,
        gas.trustPointBatchPerRecord,
        '<= 26,000',
      ],
      [
        `Trustpoint, re-sent batch of ${String(GAS_BATCH_SIZE)}, per record`,
        Math.ceil(gas.trustPointBatchResend / GAS_BATCH_SIZE),
        '-',
      ],
      ['Asset evidence, single', gas.evidenceSingle, '<= 50,000'],
      [
        `Asset evidence, batch of ${String(GAS_BATCH_SIZE)}, per record`,
        gas.evidenceBatchPerRecord,
        '<= 26,000',
      ],
      [
        `Asset evidence, re-sent batch of ${String(GAS_BATCH_SIZE)}, per record`,
        Math.ceil(gas.evidenceBatchResend / GAS_BATCH_SIZE),
        '-',
      ],
    ];
    console.log(
      `Registration gas on hardhat node ${node.url} (single figures include the 21,000 transaction base)\n`,
    );
    const width = Math.max(...rows.map(([scenario]) => scenario.length));
    console.log(`${'scenario'.padEnd(width)}  ${'gas'.padStart(9)}  goal`);
    for (const [scenario, used, goal] of rows) {
      console.log(`${scenario.padEnd(width)}  ${used.toLocaleString('en').padStart(9)}  ${goal}`);
    }
    console.log(
      `\nPer-record overhead above the storage floor (${STORAGE_FLOOR.toLocaleString('en')}):`,
    );
    console.log(
      `  trustpoint ${(gas.trustPointBatchPerRecord - STORAGE_FLOOR).toLocaleString('en')}, evidence ${(gas.evidenceBatchPerRecord - STORAGE_FLOOR).toLocaleString('en')} (calldata, event, loop)`,
    );
    console.log(`Peers: EAS attest ${EAS_ATTEST}; string-storage registries ${STRING_STORAGE}.`);
    const met =
      gas.trustPointBatchPerRecord <= 26_000 &&
      gas.evidenceBatchPerRecord <= 26_000 &&
      gas.trustPointSingleEvidence <= 50_000 &&
      gas.evidenceSingle <= 50_000;
    console.log(`Goals ${met ? 'met' : 'NOT met'}.`);
    if (!met) process.exitCode = 1;
  } finally {
    await node.stop();
  }
}

void main();
