import { successEnvelope } from '@trustpoint/domain';
import type { Response } from 'express';

/** Writes the success envelope `{statusCode, message, data}` (spec 2.1) with a matching status. */
export function sendSuccess(res: Response, status: number, message: string, data: unknown): void {
  res.status(status).json(successEnvelope(status, message, data));
}
