import express, { type RequestHandler } from 'express';

/** 1 MiB: far above any JSON request of the spec; files travel as multipart, not JSON. */
export const DEFAULT_JSON_BODY_LIMIT = 1024 * 1024;

export interface JsonBodyOptions {
  /** Bytes, or a size such as `'100kb'`. */
  limit?: number | string;
}

/**
 * Parses JSON bodies up to `limit`. Malformed JSON and oversized bodies are passed on as errors,
 * which `errorHandler` answers with a 400 (field `body`) and a 413.
 */
export function jsonBody(options: JsonBodyOptions = {}): RequestHandler {
  return express.json({ limit: options.limit ?? DEFAULT_JSON_BODY_LIMIT });
}
