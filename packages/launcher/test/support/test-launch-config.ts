import { freePort } from '@trustpoint/contracts';
import { readLauncherConfig, type LauncherConfig } from '../../src/launcher-config.js';

/**
 * A launch configuration for tests: the defaults of every setting, free ports on 127.0.0.1, the
 * embedded database unless `overrides` names one, and whatever else `overrides` sets.
 */
export async function testLaunchConfig(
  dataDir: string,
  overrides: Partial<LauncherConfig> = {},
): Promise<LauncherConfig> {
  return {
    ...readLauncherConfig({}),
    dataDir,
    chainHost: '127.0.0.1',
    chainPort: await freePort(),
    apiHost: '127.0.0.1',
    certApiPort: await freePort(),
    trackApiPort: await freePort(),
    databaseUrl: undefined,
    ...overrides,
  };
}
