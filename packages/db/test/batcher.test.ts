import { describe, expect, it } from 'vitest';
import { batchedLookup, Batcher, onePer, type ItemOutcome } from '../src/index.js';

/** A run the test finishes by hand, to keep it busy while more items arrive. */
interface HeldRun<T> {
  items: T[];
  finish: (outcomes: ItemOutcome<string>[]) => void;
  fail: (error: unknown) => void;
}

/** A batch function that records each run and answers only when the test says so. */
function heldRuns<T>() {
  const runs: HeldRun<T>[] = [];
  const run = (items: T[]) =>
    new Promise<ItemOutcome<string>[]>((resolve, reject) => {
      runs.push({ items, finish: resolve, fail: reject });
    });
  return { runs, run };
}

/** A batch function that answers at once, each item with its own text. */
function echoRuns() {
  const runs: number[][] = [];
  const run = (items: number[]) => {
    runs.push(items);
    return Promise.resolve(items.map((item) => ({ ok: true as const, value: `item ${item}` })));
  };
  return { runs, run };
}

/** Lets the batcher's scheduled work and the runs' settling go ahead. */
async function nextTurns(count = 3): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

const ok = (value: string): ItemOutcome<string> => ({ ok: true, value });

describe('Batcher', () => {
  it('when items are submitted in the same turn, then one run gets them all, in order, and each gets its own result', async () => {
    // Arrange
    const { runs, run } = echoRuns();
    const batcher = new Batcher(run);

    // Act
    const results = await Promise.all([1, 2, 3].map((item) => batcher.submit(item)));

    // Assert
    expect(runs).toEqual([[1, 2, 3]]);
    expect(results).toEqual(['item 1', 'item 2', 'item 3']);
  });

  it('when a lone item is submitted, then it runs in the next turn without waiting for others', async () => {
    // Arrange
    const { runs, run } = echoRuns();
    const batcher = new Batcher(run);

    // Act
    const result = batcher.submit(7);
    await nextTurns(1);

    // Assert
    expect(runs).toEqual([[7]]);
    await expect(result).resolves.toBe('item 7');
  });

  it('when maxRuns runs are busy, then later items wait and then go together in the next run', async () => {
    // Arrange
    const { runs, run } = heldRuns<string>();
    const batcher = new Batcher(run, { maxRuns: 2 });
    const first = batcher.submit('a');
    await nextTurns();
    const second = batcher.submit('b');
    await nextTurns();

    // Act
    const waiting = ['c', 'd', 'e'].map((item) => batcher.submit(item));
    await nextTurns();
    const runsWhileBusy = runs.map((held) => held.items);
    runs[0]?.finish([ok('A')]);
    await nextTurns();

    // Assert
    expect(runsWhileBusy).toEqual([['a'], ['b']]);
    expect(runs.map((held) => held.items)).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    runs[1]?.finish([ok('B')]);
    runs[2]?.finish([ok('C'), ok('D'), ok('E')]);
    expect(await Promise.all([first, second, ...waiting])).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('when more items wait than maxBatch, then each run takes at most maxBatch of them', async () => {
    // Arrange
    const { runs, run } = echoRuns();
    const batcher = new Batcher(run, { maxBatch: 2, maxRuns: 1 });

    // Act
    const results = await Promise.all([1, 2, 3, 4, 5].map((item) => batcher.submit(item)));

    // Assert
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
    expect(results).toEqual(['item 1', 'item 2', 'item 3', 'item 4', 'item 5']);
  });

  it('when the run fails one item, then only that item is rejected and the others get their results', async () => {
    // Arrange
    const refused = new Error('item 2 refused');
    const batcher = new Batcher((items: number[]) =>
      Promise.resolve(
        items.map((item): ItemOutcome<string> =>
          item === 2 ? { ok: false, error: refused } : { ok: true, value: `item ${item}` },
        ),
      ),
    );

    // Act
    const outcomes = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));

    // Assert
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'item 1' },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: 'item 3' },
    ]);
  });

  it('when the run throws, then every item of that run is rejected with its error, and the next run still works', async () => {
    // Arrange
    const failure = new Error('the transaction failed');
    let calls = 0;
    const batcher = new Batcher((items: number[]) => {
      calls += 1;
      return calls === 1
        ? Promise.reject(failure)
        : Promise.resolve(items.map((item) => ok(`item ${item}`)));
    });

    // Act
    const outcomes = await Promise.allSettled([1, 2].map((item) => batcher.submit(item)));
    const later = await batcher.submit(3);

    // Assert
    expect(outcomes).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
    expect(later).toBe('item 3');
  });

  it('when the run answers a different number of outcomes than items, then every item of it is rejected', async () => {
    // Arrange
    const batcher = new Batcher(() => Promise.resolve([ok('only one')]));

    // Act
    const outcomes = await Promise.allSettled([1, 2].map((item) => batcher.submit(item)));

    // Assert
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(outcome.status === 'rejected' && String(outcome.reason)).toContain(
        'batch run answered 1 of 2 items',
      );
    }
  });
});

describe('batchedLookup', () => {
  it('when keys are looked up at once, then one findMany answers them all, undefined for a key it lacks', async () => {
    // Arrange
    const calls: string[][] = [];
    const lookup = batchedLookup((keys: string[]) => {
      calls.push([...keys]);
      return Promise.resolve(
        new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.length])),
      );
    });

    // Act
    const answers = await Promise.all(['a', 'bb', 'missing', 'a'].map((key) => lookup(key)));

    // Assert
    expect(answers).toEqual([1, 2, undefined, 1]);
    expect(calls).toEqual([['a', 'bb', 'missing', 'a']]);
  });
});

describe('onePer', () => {
  it('when asked twice for one owner, then it makes the value once; another owner gets its own', () => {
    // Arrange
    let made = 0;
    const valueOf = onePer((owner: { name: string }) => ({
      owner: owner.name,
      serial: (made += 1),
    }));
    const first = { name: 'first' };
    const second = { name: 'second' };

    // Act
    const values = [valueOf(first), valueOf(first), valueOf(second)];

    // Assert
    expect(values[0]).toBe(values[1]);
    expect(values[2]).toEqual({ owner: 'second', serial: 2 });
    expect(made).toBe(2);
  });
});
