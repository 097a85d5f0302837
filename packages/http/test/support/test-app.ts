import express, { type Express } from 'express';
import { pino, type Logger } from 'pino';

import { errorHandler } from '../../src/error-handler.js';
import { notFoundHandler } from '../../src/not-found-handler.js';

/** An app wired as the APIs will be: the routes under test, then the 404 and error handlers. */
export function testApp(
  defineRoutes: (app: Express) => void,
  logger: Logger = pino({ level: 'silent' }),
): Express {
  const app = express();
  defineRoutes(app);
  app.use(notFoundHandler);
  app.use(errorHandler({ logger }));
  return app;
}
