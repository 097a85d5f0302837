import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { measureBatchRegistrationGas, type BatchRegistrationGas } from '../src/batch-gas-scenarios';
import { measureRegistrationGas, type RegistrationGas } from '../src/gas-scenarios';
import {
  measureStatusRegistrationGas,
  type StatusRegistrationGas,
} from '../src/status-gas-scenarios';

const SNAPSHOT = join(__dirname, '..', 'gas-snapshot.json');

interface GasSnapshot {
  /** TrustPointBatchRegistry and EvidenceBatchRepository. */
  batchRegistries: BatchRegistrationGas;
  /** TrustPointRegistry and EvidenceRepository (one slot per record). */
  slotRegistries: RegistrationGas;
  /** TrustPointStatusRegistry (revocations by certID). */
  statusRegistry: StatusRegistrationGas;
}

describe('Gas', () => {
  let measured: GasSnapshot;

  before(async () => {
    const [signer] = await ethers.getSigners();
    if (!signer) throw new Error('no signer');
    measured = {
      batchRegistries: await measureBatchRegistrationGas(signer),
      slotRegistries: await measureRegistrationGas(signer),
      statusRegistry: await measureStatusRegistrationGas(signer),
    };
    if (process.env.UPDATE_GAS_SNAPSHOT === '1') {
      writeFileSync(SNAPSHOT, `${JSON.stringify(measured, null, 2)}\n`);
    }
  });

  it('should match the committed snapshot exactly (run `pnpm gas:update` after an intended change)', () => {
    const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as GasSnapshot;
    expect(measured).to.deep.equal(snapshot);
  });

  describe('batch registries', () => {
    it('should stay within 12,000 gas per record in a batch of 100 and in the largest batch', () => {
      const gas = measured.batchRegistries;
      for (const perRecord of [
        gas.trustPointData100PerRecord,
        gas.evidenceData100PerRecord,
        gas.trustPointDataLargestPerRecord,
        gas.evidenceDataLargestPerRecord,
      ]) {
        expect(perRecord).to.be.at.most(12_000);
      }
    });

    // The issue asks 47,000; a fresh slot (22,100), the base (21,000), the calldata (~1,400) and
    // an event (~1,500) leave less than the one cold read (2,100) that checks both the registrar
    // and the bucket: see the README.
    it('should stay within 49,200 gas for a single record', () => {
      expect(measured.batchRegistries.trustPointSingle).to.be.at.most(49_200);
      expect(measured.batchRegistries.evidenceSingle).to.be.at.most(49_200);
    });

    it('should cost less than a fifth of the batch to re-send an identical batch of 100', () => {
      const gas = measured.batchRegistries;
      expect(gas.trustPointDataResend100).to.be.below(gas.trustPointData100 / 5);
    });

    it('should store 3 records cheaper in slots than in a data contract (the choice per batch)', () => {
      const gas = measured.batchRegistries;
      expect(gas.trustPointSlots3).to.be.below(gas.trustPointData3);
    });
  });

  describe('status registry', () => {
    // A revocation is one fresh slot (22,100) and its event (~1,400): EAS's multiRevoke, which
    // also checks each attestation, takes more (see the README).
    it('should stay within 25,000 gas per revocation in a batch of 100', () => {
      expect(measured.statusRegistry.revocationBatchPerRecord).to.be.at.most(25_000);
    });

    it('should cost less than a fifth of the batch to re-send an identical batch of 100', () => {
      const gas = measured.statusRegistry;
      expect(gas.revocationBatchResend).to.be.below(gas.revocationBatch / 5);
    });
  });

  describe('slot registries', () => {
    it('should stay within 26,000 gas per record in a batch of 100', () => {
      expect(measured.slotRegistries.evidenceBatchPerRecord).to.be.at.most(26_000);
      expect(measured.slotRegistries.trustPointBatchPerRecord).to.be.at.most(26_000);
    });

    it('should stay within 50,000 gas for a single registration', () => {
      expect(measured.slotRegistries.evidenceSingle).to.be.at.most(50_000);
      expect(measured.slotRegistries.trustPointSingleEvidence).to.be.at.most(50_000);
    });
  });
});
