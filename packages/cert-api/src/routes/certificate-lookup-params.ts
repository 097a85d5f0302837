import { z } from 'zod';

/** `/{type}/{id}` of the routes that find one certificate (certID, externalId, fileHash, hash). */
export const lookupParamsSchema = z.object({ lookup: z.string(), id: z.string().min(1).max(256) });

/** `?pin=` of the routes that read a certificate others may see. */
export const pinQuerySchema = z.object({ pin: z.string().max(256).optional() });
