// The batch registries as an outside client sees them: a real `hardhat node`, raw eth_call.
import { expect } from 'chai';
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { startHardhatNode, type HardhatNode } from '../src/hardhat-node';
import {
  HARDHAT_DEV_KEY,
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/registry-abi';
import {
  EvidenceBatchRepository__factory,
  TrustPointBatchRegistry__factory,
} from '../typechain-types';
import { digest, recordKey, Revocation } from './fixtures';

interface JsonRpcResponse {
  result?: string;
  error?: { code: number; message: string; data?: string | { data?: string } };
}

async function ethCall(url: string, to: string, data: string): Promise<JsonRpcResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      method: 'eth_call',
      params: [{ to, data }, 'latest'],
      id: 1,
    }),
  });
  return (await response.json()) as JsonRpcResponse;
}

const revertData = (response: JsonRpcResponse) =>
  typeof response.error?.data === 'string' ? response.error.data : response.error?.data?.data;

describe('Batch registries over JSON-RPC (hardhat node)', function () {
  this.timeout(120_000);
  let node: HardhatNode;

  before(async () => {
    node = await startHardhatNode();
  });

  after(async () => {
    await node.stop();
  });

  it('should answer eth_call getTrustPoint and getEvidence from slots and data contracts, and revert with exactly 4 bytes', async () => {
    const signer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, new JsonRpcProvider(node.url)));
    const account = await signer.getAddress();
    const registry = await new TrustPointBatchRegistry__factory(signer).deploy(account, account);
    const repository = await new EvidenceBatchRepository__factory(signer).deploy(account, account);
    const ms = 1_767_225_600_000;
    const id = (i: number) => `did:trustpoint:certid:rpc-${String(i)}`;
    const trustPoints = Array.from({ length: 20 }, (_, i) => ({
      key: recordKey(id(i), ms + i),
      hash: digest(`tp ${String(i)}`).word,
      type: Revocation,
      timestamp: ms + i,
    }));
    const single = { key: recordKey(id(99), ms + 5000), hash: digest('single').word };
    await (await registry.registerTrustPoint(single.key, single.hash, 0, ms + 5000)).wait();
    const tpBatch = encodeRecordBatch(trustPoints, TRUSTPOINT_BUCKET_BITS);
    await (await registry.registerTrustPointBatch(tpBatch.records, tpBatch.buckets)).wait();
    const asset = digest('asset').hex;
    const evidences = Array.from({ length: 20 }, (_, i) => ({
      key: recordKey(asset, 1_767_225_600 + i),
      hash: digest(`ev ${String(i)}`).word,
      timestamp: 1_767_225_600 + i,
    }));
    const evBatch = encodeRecordBatch(evidences, EVIDENCE_BUCKET_BITS);
    await (await repository.registerEvidenceBatch(evBatch.records, evBatch.buckets)).wait();

    const tpAddress = await registry.getAddress();
    const evAddress = await repository.getAddress();
    const tp = TrustPointBatchRegistry__factory.createInterface();
    const ev = EvidenceBatchRepository__factory.createInterface();

    const found = await ethCall(
      node.url,
      tpAddress,
      tp.encodeFunctionData('getTrustPoint', [id(7), ms + 7]),
    );
    expect(tp.decodeFunctionResult('getTrustPoint', found.result ?? '0x')).to.deep.equal([
      digest('tp 7').hex,
      BigInt(Revocation),
    ]);
    const fromSlot = await ethCall(
      node.url,
      tpAddress,
      tp.encodeFunctionData('getTrustPoint', [id(99), ms + 5000]),
    );
    expect(tp.decodeFunctionResult('getTrustPoint', fromSlot.result ?? '0x')[0]).to.equal(
      digest('single').hex,
    );
    const evidence = await ethCall(
      node.url,
      evAddress,
      ev.encodeFunctionData('getEvidence', [asset, 1_767_225_619]),
    );
    expect(ev.decodeFunctionResult('getEvidence', evidence.result ?? '0x')[0]).to.equal(
      digest('ev 19').hex,
    );

    const missing = await ethCall(
      node.url,
      tpAddress,
      tp.encodeFunctionData('getTrustPoint', [id(7), ms + 8]),
    );
    expect(revertData(missing)).to.equal('0x16fd89cc');
    const missingEvidence = await ethCall(
      node.url,
      evAddress,
      ev.encodeFunctionData('getEvidence', [asset, 1_767_225_620]),
    );
    expect(revertData(missingEvidence)).to.equal('0x09cea733');
  });
});
