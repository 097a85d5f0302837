import { networkListSchema, successEnvelopeSchema, type NetworkSummary } from '@trustpoint/domain';
import { Router } from 'express';
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { sendSuccess } from './send-success.js';

/**
 * GET /networks, without a token: the networks the service anchors on, with what a verifier needs
 * (chain id, contract addresses, explorer, confirmations). Both APIs mount it, with the summaries
 * of their configured networks (`networkSummaries` of `@trustpoint/chain`).
 */
export function networksRouter(networks: () => readonly NetworkSummary[]): Router {
  const router = Router();
  router.get('/networks', (_req, res) => {
    const list = networks();
    sendSuccess(res, 200, `Retrieved ${String(list.length)} network(s)`, { networks: list });
  });
  return router;
}

/** The OpenAPI operation of GET /networks, under the API's tag for it and with its error responses. */
export function networksOperation(options: {
  tag: string;
  errors: ZodOpenApiResponsesObject;
}): ZodOpenApiOperationObject {
  return {
    operationId: 'listNetworks',
    tags: [options.tag],
    summary: 'The networks the service anchors on',
    description:
      'Without a token. Per network: the `networkId` requests name, its chain id, the addresses of ' +
      'the two registries (`getTrustPoint(certId, timestamp)`, `getEvidence(assetHash, timestamp)`), ' +
      'the block explorer (or null) and the confirmations a record waits for. What a verifier ' +
      'needs for verification methods 2 and 3; never a key or the RPC URL.',
    security: [],
    responses: {
      200: {
        description: 'The configured networks',
        content: {
          'application/json': {
            schema: successEnvelopeSchema(networkListSchema).meta({ id: 'NetworkListResponse' }),
          },
        },
      },
      ...options.errors,
    },
  };
}
