// When each fault of a soak happens: every kind spread evenly over the run, the kinds interleaved,
// so that no stretch of the run sees only one kind and the faults come one after another.

export type FaultKind = 'api process' | 'anchoring process' | 'chain node' | 'postgresql';

export interface FaultCounts {
  apiKills: number;
  anchorKills: number;
  nodeKills: number;
  postgresRestarts: number;
}

export interface PlannedFault {
  kind: FaultKind;
  /** Milliseconds after the load starts. */
  atMs: number;
}

/**
 * Each kind's faults at the middle of equal shares of its own, all merged in time order and then
 * placed at equal steps over the run (10% of it kept free at each end, for the start and for the
 * restarts of the last fault to finish under load).
 */
export function planFaults(counts: FaultCounts, durationMs: number): PlannedFault[] {
  const kinds: [FaultKind, number][] = [
    ['api process', counts.apiKills],
    ['anchoring process', counts.anchorKills],
    ['chain node', counts.nodeKills],
    ['postgresql', counts.postgresRestarts],
  ];
  const ordered = kinds
    .flatMap(([kind, count]) =>
      Array.from({ length: count }, (_, i) => ({ kind, position: (i + 0.5) / count })),
    )
    .sort((a, b) => a.position - b.position);
  const start = durationMs * 0.1;
  const span = durationMs * 0.8;
  return ordered.map((fault, index) => ({
    kind: fault.kind,
    atMs: Math.round(start + (span * (index + 0.5)) / ordered.length),
  }));
}
