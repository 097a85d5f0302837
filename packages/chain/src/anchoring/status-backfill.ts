import {
  advanceStatusBackfill,
  enqueueAnchorRecordsOnce,
  findStatusBackfill,
  revokedCertificatesOn,
} from '@trustpoint/db';
import { id as keccakOfText } from 'ethers';
import type { Knex } from 'knex';
import type { NetworkConfig } from '../networks/network-config.js';
import type { AnchorLogger } from './anchor-logger.js';
import type { AnchorRequest } from './anchor-record.js';

/** Revocations one backfill transaction queues. */
export const STATUS_BACKFILL_PAGE = 500;

/** A certificate's revocation status on a network, as the engine queues it. */
export function revocationStatusRequest(
  networkId: string,
  revocation: { certId: string; timestamp: number; hash: string },
): AnchorRequest {
  return {
    networkId,
    kind: 'status',
    // `keccak256(bytes(certId))`: what the status registry's `revocationOf(certId)` looks up.
    recordKey: keccakOfText(revocation.certId),
    hash: revocation.hash,
    timestamp: revocation.timestamp,
  };
}

/**
 * Queues the status of every certificate revoked before this network wrote statuses (before its
 * status registry, or before this version), so that their copies handed out at issuance find the
 * revocation too. Page by page, each in one transaction with the network's progress
 * (`status_backfills`), so it can stop anywhere and resume; a status queued already (by its
 * revocation, or by another engine doing the same page) is left as it is. Later revocations queue
 * their own statuses, and the next start only looks at what came since.
 */
export async function backfillRevocationStatuses(
  knex: Knex,
  network: NetworkConfig,
  logger: AnchorLogger,
  shouldStop: () => boolean = () => false,
): Promise<{ queued: number }> {
  if (network.statusRegistry === undefined) return { queued: 0 };
  const { networkId } = network;
  let queuedNow = 0;
  for (;;) {
    if (shouldStop()) return { queued: queuedNow };
    const page = await knex.transaction(async (trx) => {
      const progress = await findStatusBackfill(trx, networkId);
      const revoked = await revokedCertificatesOn(
        trx,
        networkId,
        progress.lastTrustpointId,
        STATUS_BACKFILL_PAGE,
      );
      const last = revoked.at(-1);
      if (last === undefined) {
        if (progress.completedAt === null) {
          await advanceStatusBackfill(trx, networkId, progress.lastTrustpointId, 0, true);
        }
        return { count: 0, total: progress.queued, done: true };
      }
      await enqueueAnchorRecordsOnce(
        trx,
        revoked.map((revocation) => revocationStatusRequest(networkId, revocation)),
      );
      await advanceStatusBackfill(trx, networkId, last.trustpointId, revoked.length, false);
      return { count: revoked.length, total: progress.queued + revoked.length, done: false };
    });
    queuedNow += page.count;
    if (page.count > 0) {
      logger.info(
        { networkId, queued: page.count, total: page.total },
        'revocation statuses of earlier revocations queued for the status registry',
      );
    }
    if (page.done) {
      if (queuedNow > 0) {
        logger.info(
          { networkId, total: page.total },
          'every earlier revocation has its status queued for the status registry',
        );
      }
      return { queued: queuedNow };
    }
  }
}
