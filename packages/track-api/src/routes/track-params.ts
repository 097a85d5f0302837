import { hashHexSchema, trackIdSchema, userDidSchema } from '@trustpoint/domain';
import { z } from 'zod';

/** `/assets/{trackID}` */
export const trackIdParamsSchema = z.object({ trackID: trackIdSchema() });

/** `/assets/{trackID}/shares/{userDid}` */
export const shareParamsSchema = z.object({ trackID: trackIdSchema(), userDid: userDidSchema });

/** `/evidences/{id}`: the evidence hash. */
export const evidenceParamsSchema = z.object({ id: hashHexSchema });
