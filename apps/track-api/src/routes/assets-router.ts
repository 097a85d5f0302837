import {
  addEvidenceBodySchema,
  assetListQuerySchema,
  createAssetBodySchema,
} from '@trustpoint/domain';
import {
  acknowledge,
  acknowledgementFor,
  authenticate,
  currentUser,
  requestIdOf,
  sendSuccess,
  validate,
  type AuthenticateOptions,
} from '@trustpoint/http';
import { Router } from 'express';
import { addEvidence } from '../assets/add-evidence.js';
import { getAssetShares, shareAssetWith, unshareAssetWith } from '../assets/asset-shares.js';
import { assetView } from '../assets/asset-view.js';
import { createAsset } from '../assets/create-asset.js';
import { listReadableAssets } from '../assets/list-assets.js';
import { getReadableAsset } from '../assets/readable-asset.js';
import type { TrackServices } from '../assets/track-services.js';
import { shareParamsSchema, trackIdParamsSchema } from './track-params.js';

/** Assets, their evidences and who they are shared with; every route needs a token. */
export function assetsRouter(services: TrackServices, auth: AuthenticateOptions): Router {
  const router = Router();
  router.use('/assets', authenticate(auth));

  router.post('/assets', async (req, res) => {
    const body = validate(createAssetBodySchema, req.body, 'body');
    const acknowledgement = acknowledgementFor(req, services.networks.get(String(body.networkId)));
    const asset = assetView(
      await createAsset(services, currentUser(res), body, acknowledgement, requestIdOf(res)),
    );
    const status = acknowledge(req, res, {
      anchored: asset.status === 'anchored',
      location: `${req.baseUrl}/assets/${encodeURIComponent(asset.trackID)}`,
    });
    const message =
      status === 201 ? 'Asset created successfully' : 'Asset accepted, anchoring pending';
    sendSuccess(res, status, message, asset);
  });

  router.get('/assets', async (req, res) => {
    const query = validate(assetListQuerySchema, req.query, 'query');
    const page = await listReadableAssets(services, currentUser(res).id, query);
    sendSuccess(
      res,
      200,
      `Retrieved ${String(page.assets.length)} asset(s) out of a total of ${String(page.pagination.total)}`,
      page,
    );
  });

  router.get('/assets/:trackID', async (req, res) => {
    const { trackID } = validate(trackIdParamsSchema, req.params, 'path');
    const asset = await getReadableAsset(services, currentUser(res), trackID);
    sendSuccess(res, 200, 'Asset retrieved successfully', assetView(asset));
  });

  router.post('/assets/:trackID/transactions', async (req, res) => {
    const { trackID } = validate(trackIdParamsSchema, req.params, 'path');
    const body = validate(addEvidenceBodySchema, req.body, 'body');
    const transaction = await addEvidence(
      services,
      currentUser(res),
      trackID,
      body,
      (networkId) => acknowledgementFor(req, services.networks.get(networkId)),
      requestIdOf(res),
    );
    const status = acknowledge(req, res, {
      anchored: transaction.status === 'anchored',
      location: `${req.baseUrl}/assets/${encodeURIComponent(trackID)}`,
    });
    const message =
      status === 201 ? 'Evidence registered successfully' : 'Evidence accepted, anchoring pending';
    sendSuccess(res, status, message, transaction);
  });

  router.get('/assets/:trackID/shares', async (req, res) => {
    const { trackID } = validate(trackIdParamsSchema, req.params, 'path');
    const shares = await getAssetShares(services, currentUser(res), trackID);
    sendSuccess(res, 200, 'Asset shares retrieved successfully', shares);
  });

  router.put('/assets/:trackID/shares/:userDid', async (req, res) => {
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

  router.delete('/assets/:trackID/shares/:userDid', async (req, res) => {
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
