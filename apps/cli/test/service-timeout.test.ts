import { randomUUID } from 'node:crypto';
import { startSilentListener, type SilentListener } from '@trustpoint/test-doubles/silent-listener';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { trustpoint } from './support/cli-fixture.js';

/** A service that takes the connection and never answers: the wait is bounded, retries included. */
describe('a service that accepts connections and never answers', () => {
  let silent: SilentListener;

  beforeAll(async () => {
    silent = await startSilentListener();
  });
  afterAll(async () => {
    await silent.close();
  });

  it('when verify reads a certificate by certID from it, then it stops once TRUSTPOINT_TIMEOUT_SECONDS has passed, retries included, saying the service did not answer in time (exit 6)', async () => {
    // Arrange
    const started = Date.now();

    // Act
    const result = await trustpoint(
      ['verify', `did:trustpoint:certid:${randomUUID()}`, '--url', silent.url],
      { TRUSTPOINT_TIMEOUT_SECONDS: '1' },
    );

    // Assert
    const elapsed = Date.now() - started;
    expect(result.code).toBe(EXIT.unreachable);
    expect(result.stderr).toContain(
      `the service at ${silent.url} did not answer in time: no answer within 1 s (TRUSTPOINT_TIMEOUT_SECONDS sets how long to wait)`,
    );
    expect(elapsed).toBeGreaterThanOrEqual(950);
    // Far below one 30 s attempt, let alone four, with room for a process starting on a loaded host.
    expect(elapsed).toBeLessThan(25_000);
  }, 60_000);

  it('when an admin command calls it, then it stops in the same time with the same message', async () => {
    // Arrange
    const started = Date.now();

    // Act
    const result = await trustpoint(['admin', 'plans', 'list', '--url', silent.url], {
      TRUSTPOINT_TOKEN: 'a-token',
      TRUSTPOINT_TIMEOUT_SECONDS: '0.5',
    });

    // Assert
    expect(result.code).toBe(EXIT.unreachable);
    expect(result.stderr).toContain(
      `the service at ${silent.url} did not answer in time: no answer within 0.5 s`,
    );
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 60_000);

  it('when TRUSTPOINT_TIMEOUT_SECONDS is not a positive number, then it is a usage error naming it, before anything is asked', async () => {
    // Arrange
    const before = silent.connections();

    // Act
    const result = await trustpoint(
      ['verify', `did:trustpoint:certid:${randomUUID()}`, '--url', silent.url],
      { TRUSTPOINT_TIMEOUT_SECONDS: '0' },
    );

    // Assert
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('TRUSTPOINT_TIMEOUT_SECONDS must be a positive number');
    expect(silent.connections()).toBe(before);
  });

  it('when trustpoint is asked for help, then it says how long it waits for the service and how to change it', async () => {
    // Act
    const result = await trustpoint(['--help']);

    // Assert
    expect(result.stdout).toContain('TRUSTPOINT_TIMEOUT_SECONDS (default 30)');
    expect(result.stdout).toContain('did not answer in time');
  });
});
