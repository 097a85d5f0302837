import { anchoredVersion1Certificate as anchoredOnEngine } from '@trustpoint/test-kit/fixtures';
import type { JsonObject } from '@trustpoint/verifier';
import type { RunningService } from './cli-fixture.js';

/** The user `service.running.token` is for (the launcher's local administrator). */
export const LOCAL_USER_ID = 'local-admin';

/**
 * A public content certificate of the local user as the service made them before hash version 2,
 * its Evidence queued and mined on the service's chain (`anchoredVersion1Certificate`). Returns
 * its certID; read it from the API.
 */
export function anchoredVersion1Certificate(
  service: RunningService,
  content: JsonObject,
): Promise<string> {
  return anchoredOnEngine(
    service.running.database.knex,
    service.running.engine,
    LOCAL_USER_ID,
    content,
    {
      public: true,
    },
  );
}
