import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { constraintViolation, createUser, savePlan, type User } from '../src/index.js';

/** A name no other test uses, so tests sharing a database never collide. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** A SHA-256 digest in the stored form: 64 lowercase hex characters. */
export function randomDigest(): string {
  return createHash('sha256').update(randomUUID()).digest('hex');
}

/** A user on a fresh plan that allows the given networks. */
export async function givenUser(
  knex: Knex,
  { credits = 0, networkIds = ['31337'] }: { credits?: number; networkIds?: string[] } = {},
): Promise<User> {
  const plan = await savePlan(knex, { id: uniqueId('plan'), name: 'Test plan', networkIds });
  return createUser(knex, {
    id: uniqueId('user'),
    displayName: 'Test user',
    planId: plan.id,
    initialCredits: credits,
  });
}

/** A certificate row as stored, with every required column filled in. */
export function certificateRow(userId: string, overrides: Record<string, unknown> = {}) {
  const id = randomUUID();
  return {
    id,
    cert_id: `did:test:certid:${id}`,
    user_id: userId,
    type: 'content',
    name: 'Test certificate',
    description: 'Made by a test',
    content: JSON.stringify({ title: 'test' }),
    hash: randomDigest(),
    issued_on: Date.now(),
    network_id: '31337',
    ...overrides,
  };
}

/** The constraint a write violated; throws when the write succeeds. */
export async function violationOf(write: PromiseLike<unknown>) {
  try {
    await write;
  } catch (error) {
    return constraintViolation(error);
  }
  throw new Error('expected the write to violate a constraint');
}

let uuidSequence = 0;

/**
 * A UUID that sorts after every one made before it in this process, as the service's UUIDv7 row
 * ids do: rows created within one clock tick then still list in creation order.
 */
export function orderedUuid(): string {
  uuidSequence = (uuidSequence + 1) % 0x1000;
  const time = Date.now().toString(16).padStart(12, '0');
  const sequence = uuidSequence.toString(16).padStart(3, '0');
  const random = randomBytes(8).toString('hex');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${sequence}-8${random.slice(0, 3)}-${random.slice(3, 15)}`;
}

/**
 * A queued anchor record paid for by `userId` (as a creation queues one after spending the
 * user's credit): what withdrawals and chain refusals refund.
 */
export async function givenPaidRecord(
  knex: Knex,
  userId: string,
  kind: 'trustpoint' | 'evidence' = 'evidence',
): Promise<number> {
  const [row] = await knex('anchor_records')
    .insert({
      network_id: '31337',
      kind,
      record_key: `0x${randomDigest()}`,
      hash: randomDigest(),
      trustpoint_type: kind === 'trustpoint' ? 0 : null,
      paid_by: userId,
    })
    .returning<{ id: number }[]>('id');
  if (row === undefined) throw new Error('inserting an anchor record returned no row');
  return row.id;
}
