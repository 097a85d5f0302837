import { parseUnits } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  bumpFee,
  DEFAULT_FEE_POLICY,
  feesFor,
  feesOfRaw,
  maxCostPerGas,
  replacementFees,
  type FeePolicy,
} from '../src/anchoring/fees.js';
import { batchCost, signReplacement } from '../src/anchoring/batch-transaction.js';
import { networkFileEntrySchema } from '../src/networks/network-config.js';
import { HARDHAT_DEV_KEY } from '@trustpoint/contracts';
import { Transaction, Wallet } from 'ethers';

const gwei = (value: string) => parseUnits(value, 'gwei');
const policy = (overrides: Partial<FeePolicy> = {}): FeePolicy => ({
  ...DEFAULT_FEE_POLICY,
  ...overrides,
});
const market1559 = (base: string, tip: string) => ({
  gasPrice: gwei(base) + gwei(tip),
  maxFeePerGas: 2n * gwei(base) + gwei(tip),
  maxPriorityFeePerGas: gwei(tip),
});
const legacyMarket = (price: bigint) => ({
  gasPrice: price,
  maxFeePerGas: null,
  maxPriorityFeePerGas: null,
});

describe('fees', () => {
  describe('bumpFee', () => {
    it('when a fee is bumped, then it is 12.5% higher, rounded up', () => {
      expect(bumpFee(gwei('8'))).toBe(gwei('9'));
      expect(bumpFee(1n)).toBe(2n);
      expect(bumpFee(0n)).toBe(0n);
      expect(bumpFee(1_000_000_001n)).toBe(1_125_000_002n);
    });
  });

  describe('feesFor', () => {
    it('when the node suggests 1559 fees, then they are used as suggested', () => {
      expect(feesFor(market1559('10', '1'), policy())).toEqual({
        type: 2,
        maxFeePerGas: gwei('21'),
        maxPriorityFeePerGas: gwei('1'),
      });
    });

    it('when the suggested tip is below the floor, then the tip and the max fee rise to it', () => {
      expect(feesFor(market1559('10', '1'), policy({ minPriorityFeePerGas: gwei('25') }))).toEqual({
        type: 2,
        maxFeePerGas: gwei('45'),
        maxPriorityFeePerGas: gwei('25'),
      });
    });

    it('when the suggested max fee is above the cap, then it is capped, and the tip with it', () => {
      expect(feesFor(market1559('100', '1'), policy({ maxFeePerGasCap: gwei('50') }))).toEqual({
        type: 2,
        maxFeePerGas: gwei('50'),
        maxPriorityFeePerGas: gwei('1'),
      });
      expect(
        feesFor(
          market1559('1', '30'),
          policy({ maxFeePerGasCap: gwei('20'), minPriorityFeePerGas: gwei('25') }),
        ),
      ).toEqual({ type: 2, maxFeePerGas: gwei('20'), maxPriorityFeePerGas: gwei('20') });
    });

    it('when the network has no base fee, then a legacy gas price is used, capped', () => {
      expect(feesFor(legacyMarket(gwei('3')), policy())).toEqual({ type: 0, gasPrice: gwei('3') });
      expect(feesFor(legacyMarket(gwei('900')), policy())).toEqual({
        type: 0,
        gasPrice: gwei('500'),
      });
    });

    it('when the cap is 0 (a free-gas network whose node suggests a tip), then every fee is 0', () => {
      const free = policy({ maxFeePerGasCap: 0n });
      expect(feesFor(market1559('0', '1'), free)).toEqual({
        type: 2,
        maxFeePerGas: 0n,
        maxPriorityFeePerGas: 0n,
      });
      expect(feesFor(legacyMarket(gwei('1')), free)).toEqual({ type: 0, gasPrice: 0n });
      expect(
        replacementFees(
          { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
          market1559('0', '1'),
          free,
        ),
      ).toBeUndefined();
    });

    it('when gas is free (Besu, price 0), then the price stays 0', () => {
      expect(feesFor(legacyMarket(0n), policy())).toEqual({ type: 0, gasPrice: 0n });
      expect(
        feesFor({ gasPrice: null, maxFeePerGas: null, maxPriorityFeePerGas: null }, policy()),
      ).toEqual({ type: 0, gasPrice: 0n });
    });
  });

  describe('replacementFees', () => {
    const previous = { type: 2, maxFeePerGas: gwei('8'), maxPriorityFeePerGas: gwei('2') } as const;

    it('when the market is calm, then both fees rise by 12.5%', () => {
      expect(replacementFees(previous, market1559('1', '1'), policy())).toEqual({
        type: 2,
        maxFeePerGas: gwei('9'),
        maxPriorityFeePerGas: gwei('2.25'),
      });
    });

    it('when the base fee spiked, then the replacement asks what the market asks now', () => {
      expect(replacementFees(previous, market1559('40', '3'), policy())).toEqual({
        type: 2,
        maxFeePerGas: gwei('83'),
        maxPriorityFeePerGas: gwei('3'),
      });
    });

    it('when the raise would pass the cap, then it stops at the cap', () => {
      expect(
        replacementFees(previous, market1559('40', '1'), policy({ maxFeePerGasCap: gwei('9') })),
      ).toEqual({ type: 2, maxFeePerGas: gwei('9'), maxPriorityFeePerGas: gwei('2.25') });
    });

    it('when the cap leaves less than the 10% nodes require, then there is no replacement', () => {
      expect(
        replacementFees(previous, market1559('40', '1'), policy({ maxFeePerGasCap: gwei('8.7') })),
      ).toBeUndefined();
      expect(
        replacementFees(previous, market1559('1', '1'), policy({ maxFeePerGasCap: gwei('8') })),
      ).toBeUndefined();
    });

    it('when a legacy transaction is replaced, then its gas price rises by 12.5%, capped', () => {
      const legacy = { type: 0, gasPrice: gwei('16') } as const;
      expect(replacementFees(legacy, legacyMarket(gwei('10')), policy())).toEqual({
        type: 0,
        gasPrice: gwei('18'),
      });
      expect(
        replacementFees(legacy, legacyMarket(gwei('10')), policy({ maxFeePerGasCap: gwei('17') })),
      ).toBeUndefined();
    });

    it('when gas is free, then nothing is replaced', () => {
      expect(
        replacementFees({ type: 0, gasPrice: 0n }, legacyMarket(0n), policy()),
      ).toBeUndefined();
      expect(
        replacementFees(
          { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
          market1559('0', '0'),
          policy(),
        ),
      ).toBeUndefined();
    });

    it('when any replacement is made, then both fees are at least 10% higher', () => {
      for (const [maxFee, tip] of [
        [1n, 1n],
        [7n, 0n],
        [gwei('3'), gwei('1')],
        [999_999_999n, 3n],
      ] as const) {
        const next = replacementFees(
          { type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: tip },
          market1559('0', '0'),
          policy(),
        );
        if (next?.type !== 2) throw new Error('a replacement');
        expect(next.maxFeePerGas * 10n).toBeGreaterThanOrEqual(maxFee * 11n);
        expect(next.maxPriorityFeePerGas * 10n).toBeGreaterThanOrEqual(tip * 11n);
      }
    });
  });

  it('when the balance a batch needs is computed, then it is its gas limit times the max fee, 0 for free gas', () => {
    expect(
      batchCost(10, { type: 2, maxFeePerGas: gwei('2'), maxPriorityFeePerGas: gwei('1') }),
    ).toBe(360_000n * gwei('2'));
    expect(batchCost(1, { type: 0, gasPrice: gwei('3') })).toBe(90_000n * gwei('3'));
    expect(batchCost(250, { type: 0, gasPrice: 0n })).toBe(0n);
  });

  it('when a replacement is signed, then it keeps nonce, call and gas limit, with the new fees', async () => {
    const wallet = new Wallet(HARDHAT_DEV_KEY);
    const first = await wallet.signTransaction(
      Transaction.from({
        chainId: 31337,
        nonce: 7,
        to: wallet.address,
        data: '0x1234',
        gasLimit: 90_000n,
        type: 2,
        maxFeePerGas: gwei('8'),
        maxPriorityFeePerGas: gwei('2'),
      }),
    );
    const next = replacementFees(feesOfRaw(first), market1559('1', '1'), policy());
    if (!next) throw new Error('a replacement');

    const replacement = await signReplacement(wallet, first, next);

    const parsed = Transaction.from(replacement.raw);
    expect([parsed.nonce, parsed.to, parsed.data, parsed.gasLimit]).toEqual([
      7,
      wallet.address,
      '0x1234',
      90_000n,
    ]);
    expect(feesOfRaw(replacement.raw)).toEqual(next);
    expect(maxCostPerGas(next)).toBe(gwei('9'));
    expect(replacement.hash).toBe(parsed.hash);
  });

  it('when a networks file gives fees in gwei, then they are read into wei, with defaults', () => {
    const base = { networkId: '1', rpcUrl: 'http://127.0.0.1:1', chainId: 1 };
    const parsed = networkFileEntrySchema.parse({
      ...base,
      maxFeePerGasCap: '150.5',
      minPriorityFeePerGas: 0.000000001,
      replaceAfterBlocks: 5,
    });
    expect([
      parsed.maxFeePerGasCap,
      parsed.minPriorityFeePerGas,
      parsed.replaceAfterBlocks,
    ]).toEqual([gwei('150.5'), 1n, 5]);
    const defaults = networkFileEntrySchema.parse(base);
    expect([
      defaults.maxFeePerGasCap,
      defaults.minPriorityFeePerGas,
      defaults.replaceAfterBlocks,
    ]).toEqual([gwei('500'), 0n, 3]);
    expect(networkFileEntrySchema.safeParse({ ...base, maxFeePerGasCap: '1e3' }).success).toBe(
      false,
    );
    expect(networkFileEntrySchema.safeParse({ ...base, minPriorityFeePerGas: -1 }).success).toBe(
      false,
    );
  });
});
