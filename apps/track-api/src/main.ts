#!/usr/bin/env node
// The asset-tracking API as a service of its own: what `trustpoint serve track` runs, composed by
// @trustpoint/launcher's role table. Configured by the environment (docs/configuration.md): it needs
// DATABASE_URL (PostgreSQL, shared with the other roles) and TRUSTPOINT_NETWORKS_FILE or a chain
// already running with its registries in the data directory. SIGTERM or SIGINT stops it gracefully.
import { RoleConfigError } from '@trustpoint/launcher/launcher';
import { serveRole } from '@trustpoint/launcher/serve-role';

serveRole('track').catch((error: unknown) => {
  // A configuration that cannot start says why in one line (exit 2); anything else keeps its stack.
  if (error instanceof RoleConfigError) {
    console.error(`error: ${error.message}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
