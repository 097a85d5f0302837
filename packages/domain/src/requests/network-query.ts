import { z } from 'zod';

import { networkIdSchema } from '../schemas/network-id.js';

/** Query of the operations that add a trustpoint to a certificate (revoke, signature). */
export const networkQuerySchema = z.strictObject({ networkId: networkIdSchema });
export type NetworkQuery = z.infer<typeof networkQuerySchema>;

/** Query of a re-anchoring: the network of the new Evidence, the certificate's own by default. */
export const reanchorQuerySchema = z.strictObject({ networkId: networkIdSchema.optional() });
export type ReanchorQuery = z.infer<typeof reanchorQuerySchema>;
