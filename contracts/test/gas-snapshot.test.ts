import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { measureRegistrationGas, type RegistrationGas } from '../src/gas-scenarios';

const SNAPSHOT = join(__dirname, '..', 'gas-snapshot.json');

describe('Gas', () => {
  let measured: RegistrationGas;

  before(async () => {
    const [signer] = await ethers.getSigners();
    if (!signer) throw new Error('no signer');
    measured = await measureRegistrationGas(signer);
    if (process.env.UPDATE_GAS_SNAPSHOT === '1') {
      writeFileSync(SNAPSHOT, `${JSON.stringify(measured, null, 2)}\n`);
    }
  });

  it('should match the committed snapshot exactly (run `pnpm gas:update` after an intended change)', () => {
    const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as RegistrationGas;
    expect(measured).to.deep.equal(snapshot);
  });

  it('should stay within 26,000 gas per record in a batch of 100', () => {
    expect(measured.evidenceBatchPerRecord).to.be.at.most(26_000);
    expect(measured.trustPointBatchPerRecord).to.be.at.most(26_000);
  });

  it('should stay within 50,000 gas for a single registration', () => {
    expect(measured.evidenceSingle).to.be.at.most(50_000);
    expect(measured.trustPointSingleEvidence).to.be.at.most(50_000);
  });
});
