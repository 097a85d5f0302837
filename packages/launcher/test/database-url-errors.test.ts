import { freePort } from '@trustpoint/contracts';
import { describe, expect, it } from 'vitest';
import { readLauncherConfig } from '../src/launcher-config.js';
import { migrateDatabase } from '../src/migrate-database.js';
import { RoleConfigError } from '../src/role-config-error.js';

/** What `trustpoint migrate` (as every start on DATABASE_URL) stops with for `url`. */
async function migrationFailure(url: string): Promise<unknown> {
  return migrateDatabase(readLauncherConfig({ DATABASE_URL: url })).catch(
    (error: unknown) => error,
  );
}

describe('DATABASE_URL that cannot be used', () => {
  it('when nothing listens where it points, then one line names the variable and the place, not the password', async () => {
    // Arrange
    const port = await freePort();

    // Act
    const error = await migrationFailure(
      `postgres://trustpoint:S3CRET@127.0.0.1:${String(port)}/tp`,
    );

    // Assert
    expect(error).toBeInstanceOf(RoleConfigError);
    expect((error as Error).message).toBe(
      `DATABASE_URL: PostgreSQL at 127.0.0.1:${String(port)}/tp cannot be used: connect ECONNREFUSED 127.0.0.1:${String(port)}`,
    );
  });

  // The server CI starts (DATABASE_URL), refusing a password it does not know.
  it.runIf(process.env.DATABASE_URL !== undefined)(
    'when the server refuses the password, then one line says so and the password is not in it',
    async () => {
      // Arrange
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.password = 'not-the-S3CRET';

      // Act
      const error = await migrationFailure(url.toString());

      // Assert
      expect(error).toBeInstanceOf(RoleConfigError);
      expect((error as Error).message).toMatch(
        /^DATABASE_URL: PostgreSQL at .+ cannot be used: password authentication failed/,
      );
      expect((error as Error).message).not.toContain('S3CRET');
    },
  );
});
