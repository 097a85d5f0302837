// A one-second reading of how fast this thread runs plain JavaScript right now, printed next to
// the figures: on a shared VM the same code can run markedly slower at times, and a throughput
// figure means little without knowing which kind of moment it was measured in.

/** A response-sized object, like those the APIs stringify and the client parses. */
const SAMPLE = {
  statusCode: 201,
  message: 'Certificate created successfully',
  data: {
    certID: 'did:trustpoint:certid:01a20372-aa67-71f0-be3b-ca50b444a5a2',
    hash: 'a'.repeat(64),
    metadata: [{ smartContract: `0x${'b'.repeat(40)}`, transactionHash: `0x${'c'.repeat(64)}` }],
    content: { invoice: 'x', amount: 100 },
  },
};

/** JSON stringify-and-parse round trips per second of this thread, over `ms` milliseconds. */
export function jsonRoundTripsPerSecond(ms = 1_000): number {
  const started = performance.now();
  let rounds = 0;
  while (performance.now() - started < ms) {
    for (let i = 0; i < 100; i += 1) {
      const parsed = JSON.parse(JSON.stringify(SAMPLE)) as typeof SAMPLE;
      rounds += parsed.statusCode === 201 ? 1 : 0;
    }
  }
  return Math.round((rounds * 1_000) / (performance.now() - started));
}

/** The line the HTTP benchmarks print about the machine's speed at the time. */
export function describeMachineSpeed(roundTrips: number): string {
  return `machine check  ${(roundTrips / 1_000).toFixed(0)}k JSON round trips/s on one thread, read just before the run`;
}
