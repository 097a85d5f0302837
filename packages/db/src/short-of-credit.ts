/**
 * Users found short of credit lately, each until a while after: a group that holds one of them
 * goes the locked way (a transaction that finds out whose creations are refused) instead of the
 * one statement that would fail on the balance first. Per process; nothing depends on it but how
 * a group is written.
 */
export class ShortOfCredit {
  readonly #forMs: number;
  readonly #until = new Map<string, number>();

  constructor(forMs = 10_000) {
    this.#forMs = forMs;
  }

  /** The user was found short now. */
  mark(userId: string): void {
    this.#until.set(userId, Date.now() + this.#forMs);
  }

  /** Whether any of these users was found short within the period (forgetting those past it). */
  any(userIds: readonly string[]): boolean {
    if (this.#until.size === 0) return false;
    const now = Date.now();
    for (const [userId, until] of this.#until) if (until <= now) this.#until.delete(userId);
    return userIds.some((userId) => this.#until.has(userId));
  }
}
