import { z } from 'zod';

/**
 * A free-form JSON object (certificate content, asset data, evidence metadata). Members must be
 * JSON values so the object can be hashed in canonical form (no NaN, Infinity or undefined).
 */
export const jsonObjectSchema = z.record(z.string(), z.json());
