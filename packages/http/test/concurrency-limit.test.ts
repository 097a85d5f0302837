import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit, ServiceBusyError } from '../src/index.js';

/** A task that runs until the test lets it finish, recording that it started. */
function heldTask(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    run: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => {
      finish();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const limitOf = (options: Partial<ConstructorParameters<typeof ConcurrencyLimit>[0]> = {}) =>
  new ConcurrencyLimit({
    name: 'verifications',
    running: 2,
    waiting: 1,
    maxWaitMs: 10_000,
    retryAfterSeconds: 3,
    ...options,
  });

describe('ConcurrencyLimit', () => {
  it('when more tasks come than run and wait, then the extra one is refused at once, and a waiting one starts when a turn frees', async () => {
    // Arrange
    const limit = limitOf();
    const started: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldTask(started, name)) as [
      ReturnType<typeof heldTask>,
      ReturnType<typeof heldTask>,
      ReturnType<typeof heldTask>,
    ];

    // Act
    const runs = [limit.run(a.run), limit.run(b.run), limit.run(c.run)];
    const refused = await limit.run(() => Promise.resolve('d')).catch((error: unknown) => error);
    await settle();
    const whileFull = [...started];
    const loadWhileFull = limit.load;
    a.finish();
    await settle();

    // Assert
    expect(refused).toBeInstanceOf(ServiceBusyError);
    expect((refused as ServiceBusyError).retryAfterSeconds).toBe(3);
    expect((refused as Error).message).toBe('busy: verifications: 2 running and 1 waiting');
    expect(whileFull).toEqual(['a', 'b']);
    expect(loadWhileFull).toEqual({ running: 2, waiting: 1 });
    expect(started).toEqual(['a', 'b', 'c']);
    expect(limit.load).toEqual({ running: 2, waiting: 0 });
    b.finish();
    c.finish();
    await expect(Promise.all(runs)).resolves.toEqual(['a', 'b', 'c']);
    expect(limit.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when no turn comes within maxWaitMs, then the waiting task is refused and never runs', async () => {
    // Arrange
    const limit = limitOf({ running: 1, maxWaitMs: 30 });
    const started: string[] = [];
    const holder = heldTask(started, 'holder');
    const late = heldTask(started, 'late');

    // Act
    const held = limit.run(holder.run);
    const refused = await limit.run(late.run).catch((error: unknown) => error);
    holder.finish();
    await held;

    // Assert
    expect(refused).toBeInstanceOf(ServiceBusyError);
    expect((refused as Error).message).toBe('busy: verifications: no turn within 30 ms');
    expect(started).toEqual(['holder']);
    expect(limit.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when the caller goes away while waiting, or before, then its task never runs and its place is freed', async () => {
    // Arrange
    const limit = limitOf({ running: 1 });
    const started: string[] = [];
    const holder = heldTask(started, 'holder');
    const gone = new AbortController();

    // Act
    const held = limit.run(holder.run);
    const waiting = limit.run(() => Promise.resolve('never'), gone.signal).catch((e: unknown) => e);
    gone.abort();
    const refused = await waiting;
    const already = await limit
      .run(() => Promise.resolve('never'), gone.signal)
      .catch((e: unknown) => e);
    const loadAfter = limit.load;
    holder.finish();
    await held;

    // Assert
    expect(refused).toBeInstanceOf(ServiceBusyError);
    expect((refused as Error).message).toBe('busy: verifications: the caller went away');
    expect(already).toBeInstanceOf(ServiceBusyError);
    expect(loadAfter).toEqual({ running: 1, waiting: 0 });
    expect(limit.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when a task fails, then its turn is freed all the same', async () => {
    // Arrange
    const limit = limitOf({ running: 1, waiting: 0 });

    // Act
    const failed = await limit
      .run(() => Promise.reject(new Error('node down')))
      .catch((e: unknown) => e);
    const next = await limit.run(() => Promise.resolve('next'));

    // Assert
    expect((failed as Error).message).toBe('node down');
    expect(next).toBe('next');
  });

  it.each([
    [{ running: 0 }, 'verifications: running must be an integer >= 1'],
    [{ waiting: -1 }, 'verifications: waiting must be an integer >= 0'],
    [{ maxWaitMs: 1.5 }, 'verifications: maxWaitMs must be an integer >= 0'],
    [{ retryAfterSeconds: 0 }, 'verifications: retryAfterSeconds must be an integer >= 1'],
  ])('when a setting is out of range (%o), then it is refused', (given, message) => {
    expect(() => limitOf(given)).toThrow(new RangeError(message));
  });
});
