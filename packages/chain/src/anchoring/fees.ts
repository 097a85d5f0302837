import { parseUnits, Transaction, type FeeData } from 'ethers';

/** The fee rules of one network, from its networks-file entry. Amounts in wei. */
export interface FeePolicy {
  /** Highest max fee per gas (EIP-1559) or gas price (legacy) the anchorer ever signs. */
  maxFeePerGasCap: bigint;
  /** Lowest priority fee per gas (tip) the anchorer signs on EIP-1559 networks. */
  minPriorityFeePerGas: bigint;
  /** Blocks a batch transaction may stay unmined before it is replaced with higher fees. */
  replaceAfterBlocks: number;
}

export const DEFAULT_FEE_POLICY: FeePolicy = {
  maxFeePerGasCap: parseUnits('500', 'gwei'),
  minPriorityFeePerGas: 0n,
  replaceAfterBlocks: 3,
};

/** The fees a transaction is signed with. */
export type TransactionFees =
  { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: 0; gasPrice: bigint };

/** What the node suggests (ethers' `getFeeData`): the 1559 pair, or only a gas price on legacy networks. */
export type MarketFees = Pick<FeeData, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>;

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * +12.5%, rounded up. Nodes accept a replacement at the same nonce only when it raises both fees
 * by at least 10% (geth, Besu, Hardhat): 12.5% clears that after any rounding.
 */
export function bumpFee(fee: bigint): bigint {
  return (fee * 9n + 7n) / 8n;
}

function capped(fees: TransactionFees, policy: FeePolicy): TransactionFees {
  if (fees.type === 0) return { type: 0, gasPrice: min(fees.gasPrice, policy.maxFeePerGasCap) };
  const maxFeePerGas = min(fees.maxFeePerGas, policy.maxFeePerGasCap);
  // The tip is part of the max fee: a cap below the tip lowers the tip too.
  return {
    type: 2,
    maxFeePerGas,
    maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFeePerGas),
  };
}

/**
 * The fees of a new batch transaction: the node's suggestion (ethers' max fee is twice the latest
 * base fee plus the tip, room for rising fees), the tip raised to the floor (and the max fee with
 * it), both held under the cap. A network without a base fee gets a legacy gas price, capped;
 * a free-gas network (price 0) stays at 0. A cap of 0 makes every fee 0 whatever the node
 * suggests: for free-gas networks (Besu) whose nodes still suggest a tip to unfunded registrars.
 */
export function feesFor(market: MarketFees, policy: FeePolicy): TransactionFees {
  if (market.maxFeePerGas !== null && market.maxPriorityFeePerGas !== null) {
    const tip = max(market.maxPriorityFeePerGas, policy.minPriorityFeePerGas);
    const maxFeePerGas = market.maxFeePerGas - market.maxPriorityFeePerGas + tip;
    return capped({ type: 2, maxFeePerGas, maxPriorityFeePerGas: tip }, policy);
  }
  return capped({ type: 0, gasPrice: market.gasPrice ?? 0n }, policy);
}

/**
 * The fees of a replacement for a transaction signed with `previous`: each fee raised by 12.5%,
 * or to what the market asks now when that is higher (one replacement then catches up with a
 * spike instead of climbing 12.5% at a time), held under the cap. Undefined when no replacement
 * can be accepted: the cap leaves less than the 10% nodes require, or the network's gas is free
 * (a price of 0 cannot be raised without the registrar paying for gas it was never asked for).
 */
export function replacementFees(
  previous: TransactionFees,
  market: MarketFees,
  policy: FeePolicy,
): TransactionFees | undefined {
  const current = feesFor(market, policy);
  const marketMaxFee = current.type === 2 ? current.maxFeePerGas : current.gasPrice;
  let next: TransactionFees;
  if (previous.type === 2) {
    if (previous.maxFeePerGas === 0n) return undefined;
    const marketTip = current.type === 2 ? current.maxPriorityFeePerGas : 0n;
    next = capped(
      {
        type: 2,
        maxFeePerGas: max(bumpFee(previous.maxFeePerGas), marketMaxFee),
        maxPriorityFeePerGas: max(bumpFee(previous.maxPriorityFeePerGas), marketTip),
      },
      policy,
    );
    if (next.type !== 2) return undefined;
    if (!raisedEnough(previous.maxFeePerGas, next.maxFeePerGas)) return undefined;
    if (!raisedEnough(previous.maxPriorityFeePerGas, next.maxPriorityFeePerGas)) return undefined;
    return next;
  }
  if (previous.gasPrice === 0n) return undefined;
  next = capped({ type: 0, gasPrice: max(bumpFee(previous.gasPrice), marketMaxFee) }, policy);
  if (next.type !== 0 || !raisedEnough(previous.gasPrice, next.gasPrice)) return undefined;
  return next;
}

/** Whether `next` is at least 10% above `previous`: the nodes' rule for a replacement. */
function raisedEnough(previous: bigint, next: bigint): boolean {
  return next * 10n >= previous * 11n;
}

/** The most a transaction with these fees pays per gas: what the balance must cover. */
export function maxCostPerGas(fees: TransactionFees): bigint {
  return fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
}

/** The fees a stored signed transaction was signed with. */
export function feesOfRaw(raw: string): TransactionFees {
  const transaction = Transaction.from(raw);
  if (transaction.type === 2) {
    return {
      type: 2,
      maxFeePerGas: transaction.maxFeePerGas ?? 0n,
      maxPriorityFeePerGas: transaction.maxPriorityFeePerGas ?? 0n,
    };
  }
  return { type: 0, gasPrice: transaction.gasPrice ?? 0n };
}
