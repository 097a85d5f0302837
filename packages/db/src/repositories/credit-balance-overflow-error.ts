/**
 * Thrown when a credit change would take a balance past the largest integer a balance holds
 * exactly (`Number.MAX_SAFE_INTEGER`): the change is refused and nothing is written.
 */
export class CreditBalanceOverflowError extends RangeError {
  /** The largest balance there may be. */
  readonly maxBalance = Number.MAX_SAFE_INTEGER;

  constructor(readonly userId: string) {
    super('credit balance overflows');
    this.name = 'CreditBalanceOverflowError';
  }
}
