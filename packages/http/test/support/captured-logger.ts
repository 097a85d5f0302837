import { pino, type Level, type Logger } from 'pino';

export interface CapturedLogger {
  logger: Logger;
  /** Every line written so far, as raw JSON text (what an operator would see). */
  lines: string[];
  /** The lines parsed, for assertions on fields. */
  entries: () => Record<string, unknown>[];
}

/** A pino logger writing into memory, so tests can read what would reach the log. */
export function capturedLogger(level: Level = 'debug'): CapturedLogger {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(line) });
  return {
    logger,
    lines,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
