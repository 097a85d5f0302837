import type { AddressPolicy } from '@trustpoint/http';
import type { SecretSealer } from './secret-sealer.js';

/** What the endpoint routes need, the same for both APIs. */
export interface WebhookSettings {
  /** Seals the endpoints' signing secrets. */
  sealer: SecretSealer;
  /** Which non-public addresses endpoints may use (as URL certificates: none by default). */
  addressPolicy: AddressPolicy;
  /** Endpoints per user. Default 10. */
  maxEndpointsPerUser?: number;
}

export const DEFAULT_MAX_ENDPOINTS_PER_USER = 10;
