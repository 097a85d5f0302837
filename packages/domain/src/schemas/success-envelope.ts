import { z } from 'zod';

/** Every success response: `{statusCode, message, data}` (spec 2.1). */
export interface SuccessEnvelope<T> {
  statusCode: number;
  message: string;
  data: T;
}

export function successEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({
    statusCode: z.number().int().min(200).max(299),
    message: z.string(),
    data,
  });
}

export function successEnvelope<T>(
  statusCode: number,
  message: string,
  data: T,
): SuccessEnvelope<T> {
  return { statusCode, message, data };
}
