import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SOAK_OPTIONS, runSoak } from '../src/soak/run-soak.js';
import { stopSoakDeployments } from '../src/soak/soak-deployment.js';
import { soakMarkdown } from '../src/soak/soak-report.js';
import { postgresBinDir } from '../src/support/postgres-cluster.js';

// The soak needs PostgreSQL's programs (it runs a cluster of its own) and minutes of the machine:
// it runs where the PostgreSQL suites run (DATABASE_URL) and always in CI, where missing programs
// fail it rather than skip it.
const wanted = process.env.CI === 'true' || Boolean(process.env.DATABASE_URL);

describe.runIf(wanted)('soak under faults (short: about 2 minutes)', () => {
  // A soak past the test's time goes on after the test has failed: its processes are stopped here.
  afterAll(stopSoakDeployments, 120_000);

  it('when API processes, anchoring processes and the chain node are SIGKILLed and PostgreSQL crash-restarts under mixed load, then every acknowledged record is anchored exactly once and credits spent equal records paid for', async () => {
    // Arrange
    expect(await postgresBinDir(), 'PostgreSQL programs (initdb, pg_ctl) not found').toBeDefined();
    const options = {
      ...DEFAULT_SOAK_OPTIONS,
      durationMs: 60_000,
      faults: { apiKills: 4, anchorKills: 2, nodeKills: 1, postgresRestarts: 1 },
      clients: 16,
      users: 6,
    };

    // Act
    const result = await runSoak(options);
    console.log(soakMarkdown(result));

    // Assert
    expect(result.problems).toEqual([]);
    expect(result.faults.map((fault) => fault.kind).sort()).toEqual(
      [
        ...Array<string>(4).fill('api process'),
        ...Array<string>(2).fill('anchoring process'),
        'chain node',
        'postgresql',
      ].sort(),
    );
    expect(result.load.acknowledged).toBeGreaterThan(50);
    for (const kind of ['Evidence trustpoint', 'asset evidence']) {
      expect(result.load.acknowledgedByKind[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    expect(result.chain.records).toBeGreaterThanOrEqual(result.load.acknowledged);
    expect(result.credits.spent).toBe(result.credits.paidRecords);
    expect(result.passed).toBe(true);
  });
});
