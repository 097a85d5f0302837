import {
  startWebhookReceiver,
  type WebhookReceiver,
} from '@trustpoint/test-doubles/webhook-receiver';

import { createWebhookEndpoint, type CreatedWebhookEndpoint } from '../fixtures/caller-records.js';
import type { CheckedAgent } from '../openapi/checked-request.js';

/** A test's webhook receivers and the endpoints at them, made over HTTP as a customer makes them. */
export interface WebhookEndpoints {
  /**
   * A real receiver that fails its first `failFirst` attempts, and an endpoint of the token's user
   * at it (`body` adds to the request, e.g. `events`); the receiver knows the endpoint's secret.
   */
  endpointFor: (
    token: string,
    body?: Record<string, unknown>,
    failFirst?: number,
  ) => Promise<{ receiver: WebhookReceiver; endpoint: CreatedWebhookEndpoint }>;
  /** Closes every receiver made so far (after each test). */
  closeReceivers: () => Promise<void>;
}

/** Endpoints of the API `agent` sends to, mounted at `basePath` (`/cert/v2`, `/track/v2`). */
export function webhookEndpoints(agent: () => CheckedAgent, basePath: string): WebhookEndpoints {
  const receivers: WebhookReceiver[] = [];
  return {
    endpointFor: async (token, body = {}, failFirst = 0) => {
      const receiver = await startWebhookReceiver({ failFirst });
      receivers.push(receiver);
      const endpoint = await createWebhookEndpoint(agent(), basePath, token, {
        url: receiver.url,
        ...body,
      });
      receiver.secret = endpoint.secret;
      return { receiver, endpoint };
    },
    closeReceivers: async () => {
      for (const receiver of receivers.splice(0)) await receiver.close();
    },
  };
}
