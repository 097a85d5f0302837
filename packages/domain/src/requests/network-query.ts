import { z } from 'zod';

import { networkIdSchema } from '../schemas/network-id.js';

/** Query of the operations that add a trustpoint to a certificate (revoke, signature). */
export const networkQuerySchema = z.strictObject({ networkId: networkIdSchema });
export type NetworkQuery = z.infer<typeof networkQuerySchema>;
