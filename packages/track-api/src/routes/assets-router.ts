import {
  addEvidenceBodySchema,
  assetListQuerySchema,
  createAssetBodySchema,
  formatUserDid,
  networkIdSchema,
  type Asset,
  type Transaction,
} from '@trustpoint/domain';
import { findAsset, type AssetRecord } from '@trustpoint/db';
import {
  acknowledge,
  acknowledgementFor,
  authenticate,
  currentUser,
  idempotencyClaimOf,
  idempotent,
  requestIdOf,
  requireScope,
  sendSuccess,
  validate,
  validateRequest,
  type AuthenticateOptions,
  type IdempotencyKeys,
} from '@trustpoint/http';
import { Router, type Request, type Response } from 'express';
import { addEvidence } from '../assets/add-evidence.js';
import { getAssetShares, shareAssetWith, unshareAssetWith } from '../assets/asset-shares.js';
import { assetView, transactionView } from '../assets/asset-view.js';
import { createAsset } from '../assets/create-asset.js';
import { listReadableAssets } from '../assets/list-assets.js';
import { getReadableAsset } from '../assets/readable-asset.js';
import { parseEvidenceResource } from '../assets/store-evidences.js';
import type { TrackServices } from '../assets/track-services.js';
import { shareParamsSchema, trackIdParamsSchema } from './track-params.js';

/** A network the body names that this service does not anchor on, on `body.networkId`. */
function unknownNetworkProblem(services: TrackServices, body: unknown) {
  const sent: unknown =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)['networkId']
      : undefined;
  const networkId = networkIdSchema.safeParse(sent);
  return networkId.success
    ? services.networks.unknownNetworkProblem(String(networkId.data), 'body.networkId')
    : undefined;
}

/** 201 with the anchored asset, or 202 with it pending and where to follow it. */
function answerAssetCreated(req: Request, res: Response, asset: Asset): void {
  const status = acknowledge(req, res, {
    anchored: asset.status === 'anchored',
    location: `${req.baseUrl}/assets/${encodeURIComponent(asset.trackID)}`,
  });
  const message =
    status === 201 ? 'Asset created successfully' : 'Asset accepted, anchoring pending';
  sendSuccess(res, status, message, asset);
}

/** 201 with the anchored evidence, or 202 with it pending and where to follow its asset. */
function answerEvidenceAdded(
  req: Request,
  res: Response,
  trackId: string,
  transaction: Transaction,
): void {
  const status = acknowledge(req, res, {
    anchored: transaction.status === 'anchored',
    location: `${req.baseUrl}/assets/${encodeURIComponent(trackId)}`,
  });
  const message =
    status === 201 ? 'Evidence registered successfully' : 'Evidence accepted, anchoring pending';
  sendSuccess(res, status, message, transaction);
}

/**
 * An asset a request committed under its `Idempotency-Key`, read back for a retry after the
 * request died before answering (undefined when it is gone: withdrawn after a 503).
 */
async function ownAsset(
  services: TrackServices,
  res: Response,
  trackId: string,
): Promise<AssetRecord | undefined> {
  const asset = await findAsset(services.knex, trackId);
  return asset?.userId === currentUser(res).id ? asset : undefined;
}

/** Assets, their evidences and who they are shared with; every route needs a token. */
export function assetsRouter(
  services: TrackServices,
  auth: AuthenticateOptions,
  keys: IdempotencyKeys,
): Router {
  const router = Router();
  router.use('/assets', authenticate(auth));
  // Before `idempotent`: a credential without the scope leaves no key behind.
  const track = requireScope('track');
  const read = requireScope('read');

  const assetCreation = idempotent(keys, {
    async recover(trackId, req, res) {
      const asset = await ownAsset(services, res, trackId);
      if (asset === undefined) return false;
      answerAssetCreated(req, res, assetView(asset));
      return true;
    },
  });
  router.post('/assets', track, assetCreation, async (req, res) => {
    const { body } = validateRequest(
      { body: [createAssetBodySchema, req.body] },
      [unknownNetworkProblem(services, req.body)].filter((problem) => problem !== undefined),
    );
    const acknowledgement = acknowledgementFor(req, services.networks.get(String(body.networkId)));
    const asset = await createAsset(
      services,
      currentUser(res),
      body,
      acknowledgement,
      requestIdOf(res),
      idempotencyClaimOf(res),
    );
    answerAssetCreated(req, res, assetView(asset));
  });

  router.get('/assets', read, async (req, res) => {
    const query = validate(assetListQuerySchema, req.query, 'query');
    const page = await listReadableAssets(services, currentUser(res).id, query);
    sendSuccess(
      res,
      200,
      `Retrieved ${String(page.assets.length)} asset(s) out of a total of ${String(page.pagination.total)}`,
      page,
    );
  });

  router.get('/assets/:trackID', read, async (req, res) => {
    const { trackID } = validate(trackIdParamsSchema, req.params, 'path');
    const asset = await getReadableAsset(services, currentUser(res), trackID);
    sendSuccess(res, 200, 'Asset retrieved successfully', assetView(asset));
  });

  const evidenceAddition = idempotent(keys, {
    async recover(resource, req, res) {
      const { trackId, timestamp } = parseEvidenceResource(resource);
      const asset = await findAsset(services.knex, trackId);
      const userOwner = formatUserDid(currentUser(res).id);
      const evidence = asset?.evidences.find(
        (candidate) => candidate.timestamp === timestamp && candidate.userOwner === userOwner,
      );
      if (evidence === undefined) return false;
      answerEvidenceAdded(req, res, trackId, transactionView(evidence));
      return true;
    },
  });
  router.post('/assets/:trackID/transactions', track, evidenceAddition, async (req, res) => {
    const {
      path: { trackID },
      body,
    } = validateRequest({
      path: [trackIdParamsSchema, req.params],
      body: [addEvidenceBodySchema, req.body],
    });
    const transaction = await addEvidence(
      services,
      currentUser(res),
      trackID,
      body,
      (networkId) => acknowledgementFor(req, services.networks.get(networkId)),
      requestIdOf(res),
      idempotencyClaimOf(res),
    );
    answerEvidenceAdded(req, res, trackID, transaction);
  });

  router.get('/assets/:trackID/shares', read, async (req, res) => {
    const { trackID } = validate(trackIdParamsSchema, req.params, 'path');
    const shares = await getAssetShares(services, currentUser(res), trackID);
    sendSuccess(res, 200, 'Asset shares retrieved successfully', shares);
  });

  router.put('/assets/:trackID/shares/:userDid', track, async (req, res) => {
    const { trackID, userDid } = validate(shareParamsSchema, req.params, 'path');
    const shares = await shareAssetWith(
      services,
      currentUser(res),
      trackID,
      userDid,
      requestIdOf(res),
    );
    sendSuccess(res, 200, 'Asset shared successfully', shares);
  });

  router.delete('/assets/:trackID/shares/:userDid', track, async (req, res) => {
    const { trackID, userDid } = validate(shareParamsSchema, req.params, 'path');
    const shares = await unshareAssetWith(
      services,
      currentUser(res),
      trackID,
      userDid,
      requestIdOf(res),
    );
    sendSuccess(res, 200, 'Asset share withdrawn successfully', shares);
  });

  return router;
}
