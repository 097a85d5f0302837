/** What the engine reports; the service passes its logger (pino-compatible). Never given secrets. */
export interface AnchorLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

export const silentLogger: AnchorLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
