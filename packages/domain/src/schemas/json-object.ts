import { z } from 'zod';

/**
 * A free-form JSON object (certificate content, asset data, evidence metadata). Members must be
 * JSON values so the object can be hashed in canonical form (no NaN, Infinity or undefined).
 */
export const jsonObjectSchema = z
  .record(
    z.string(),
    // register, not meta: it names z.json()'s own instance, which its recursion refers back to.
    z.json().register(z.globalRegistry, { id: 'JsonValue', description: 'Any JSON value' }),
  )
  .meta({ id: 'JsonObject', description: 'A JSON object', example: { orderId: 4711 } });
