import type { Queryable } from '../queryable.js';

/** A revoked certificate, with what its status record on a network needs. */
export interface RevokedCertificate {
  /** The Revocation trustpoint's row id: the backfill's cursor. */
  trustpointId: number;
  certId: string;
  /** The Revocation trustpoint's timestamp (ms): what the status registry records. */
  timestamp: number;
  /** The Revocation trustpoint's hash. */
  hash: string;
}

/** How far a network's backfill of earlier revocations has got. */
export interface StatusBackfill {
  networkId: string;
  lastTrustpointId: number;
  queued: number;
  completedAt: Date | null;
}

/**
 * The networks where a certificate's Evidence trustpoints are: where its revocation must be
 * readable from its certID, since a verifier of the certificate as issued asks those networks.
 */
export async function evidenceNetworksOf(db: Queryable, certificateId: string): Promise<string[]> {
  const rows = await db('trustpoints')
    .where({ certificate_id: certificateId, type: 0 })
    .distinct<{ network_id: string }[]>('network_id')
    .orderBy('network_id');
  return rows.map((row) => row.network_id);
}

/**
 * Revoked certificates holding an Evidence trustpoint on `networkId`, by their Revocation
 * trustpoint's id after `afterId`: one page of a network's backfill.
 */
export async function revokedCertificatesOn(
  db: Queryable,
  networkId: string,
  afterId: number,
  limit: number,
): Promise<RevokedCertificate[]> {
  const rows = await db({ r: 'trustpoints' })
    .join({ c: 'certificates' }, 'c.id', 'r.certificate_id')
    .where('r.type', 1)
    .where('r.id', '>', afterId)
    .whereExists(function evidenceOnNetwork() {
      this.select(db.raw('1'))
        .from({ e: 'trustpoints' })
        .whereRaw('e.certificate_id = r.certificate_id')
        .where('e.type', 0)
        .where('e.network_id', networkId);
    })
    .orderBy('r.id')
    .limit(limit)
    .select<{ id: number | string; cert_id: string; timestamp: number | string; hash: string }[]>(
      'r.id',
      'c.cert_id',
      'r.timestamp',
      'r.hash',
    );
  return rows.map((row) => ({
    trustpointId: Number(row.id),
    certId: row.cert_id,
    timestamp: Number(row.timestamp),
    hash: row.hash,
  }));
}

/** A network's backfill as stored; a network never started is at the beginning. */
export async function findStatusBackfill(
  db: Queryable,
  networkId: string,
): Promise<StatusBackfill> {
  const row = await db('status_backfills').where({ network_id: networkId }).first<
    | {
        last_trustpoint_id: number | string;
        queued: number | string;
        completed_at: Date | null;
      }
    | undefined
  >();
  return {
    networkId,
    lastTrustpointId: Number(row?.last_trustpoint_id ?? 0),
    queued: Number(row?.queued ?? 0),
    completedAt: row?.completed_at ?? null,
  };
}

/**
 * Moves a network's backfill to `lastTrustpointId`, adding `queued` statuses, in the caller's
 * transaction (the one that queued them). Never moves it back: of two engines doing the same page,
 * the later one changes nothing.
 */
export async function advanceStatusBackfill(
  db: Queryable,
  networkId: string,
  lastTrustpointId: number,
  queued: number,
  completed: boolean,
): Promise<void> {
  await db('status_backfills')
    .insert({
      network_id: networkId,
      last_trustpoint_id: lastTrustpointId,
      queued,
      completed_at: completed ? db.fn.now() : null,
      updated_at: db.fn.now(),
    })
    .onConflict('network_id')
    .merge({
      last_trustpoint_id: db.raw(
        'greatest(status_backfills.last_trustpoint_id, excluded.last_trustpoint_id)',
      ),
      queued: db.raw(
        'status_backfills.queued + case when excluded.last_trustpoint_id > status_backfills.last_trustpoint_id then excluded.queued else 0 end',
      ),
      completed_at: db.raw('coalesce(excluded.completed_at, status_backfills.completed_at)'),
      updated_at: db.fn.now(),
    });
}
