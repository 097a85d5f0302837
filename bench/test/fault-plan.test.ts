import { describe, expect, it } from 'vitest';
import { planFaults } from '../src/soak/fault-plan.js';

describe('planFaults', () => {
  it('when a 10-minute soak asks for 20 + 10 + 5 + 1 faults, then all 36 come in time order at equal steps within the middle 80% of the run', () => {
    // Arrange
    const counts = { apiKills: 20, anchorKills: 10, nodeKills: 5, postgresRestarts: 1 };

    // Act
    const plan = planFaults(counts, 600_000);

    // Assert
    expect(plan).toHaveLength(36);
    const times = plan.map((fault) => fault.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(60_000);
    expect(Math.max(...times)).toBeLessThanOrEqual(540_000);
    const steps = new Set(times.slice(1).map((time, i) => time - (times[i] ?? 0)));
    expect([...steps].every((step) => Math.abs(step - 480_000 / 36) <= 1)).toBe(true);
  });

  it('when faults of several kinds are planned, then each kind is spread over the run rather than bunched', () => {
    // Act
    const plan = planFaults(
      { apiKills: 4, anchorKills: 2, nodeKills: 1, postgresRestarts: 1 },
      60_000,
    );

    // Assert: each kind with two or more faults has some in each half of the run.
    for (const kind of ['api process', 'anchoring process'] as const) {
      const times = plan.filter((fault) => fault.kind === kind).map((fault) => fault.atMs);
      expect(
        times.some((time) => time < 30_000),
        kind,
      ).toBe(true);
      expect(
        times.some((time) => time > 30_000),
        kind,
      ).toBe(true);
    }
    expect(plan.filter((fault) => fault.kind === 'postgresql')).toHaveLength(1);
  });

  it('when no faults are asked for, then none are planned', () => {
    expect(
      planFaults({ apiKills: 0, anchorKills: 0, nodeKills: 0, postgresRestarts: 0 }, 60_000),
    ).toEqual([]);
  });
});
