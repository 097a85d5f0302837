import { Client } from 'pg';

import type { Queryable } from './queryable.js';

/** What one process tells the others sharing its PostgreSQL database. */
export type AnchoringEvent = 'queued' | 'settled';

/**
 * The channel of an event, after the schema of the service's tables (`<schema>.anchor_queued`):
 * databases in schemas of one server (tests) do not hear each other.
 */
function channelOf(schema: string, event: AnchoringEvent): string {
  return `${schema}.anchor_${event}`;
}

/**
 * Tells the processes listening (`listenForAnchoring`) that records were queued or settled. Sent
 * outside a transaction, after the commit it announces: PostgreSQL serialises the commits of every
 * transaction that notified (a lock on the database), which the group commits and the anchorers'
 * transactions must not wait on.
 */
export async function notifyAnchoring(db: Queryable, event: AnchoringEvent): Promise<void> {
  await db.raw(`select pg_notify(current_schema() || '.anchor_' || ?, '')`, [event]);
}

/** Announces events, at most one notification of each kind in flight (`anchoringAnnouncer`). */
export interface AnchoringAnnouncer {
  queued(): void;
  settled(): void;
}

/**
 * `notifyAnchoring` for a process that commits often: an event announced while its last
 * notification is still being sent is sent once more after it (so every commit is followed by a
 * notification sent after it), however many came meanwhile. A failure is given to `onError` and
 * not retried: the listeners look on their own schedule anyway.
 */
export function anchoringAnnouncer(
  db: Queryable,
  onError: (error: unknown) => void = () => undefined,
): AnchoringAnnouncer {
  const announce = (event: AnchoringEvent) => {
    let sending = false;
    let again = false;
    const send = () => {
      sending = true;
      again = false;
      notifyAnchoring(db, event)
        .catch(onError)
        .finally(() => {
          sending = false;
          if (again) send();
        });
    };
    return () => {
      if (sending) again = true;
      else send();
    };
  };
  return { queued: announce('queued'), settled: announce('settled') };
}

/** What a process does when another (or itself) queued or settled records; either may be left out. */
export interface AnchoringNotificationHandlers {
  /** Records were queued: look at the queue now. */
  queued?(): void;
  /** Records were anchored or refused for good: answer the requests waiting on them now. */
  settled?(): void;
}

export interface AnchoringNotificationOptions {
  /** The PostgreSQL server, as `DATABASE_URL`. */
  url: string;
  /** The schema of the service's tables; `public` by default. */
  schema?: string | undefined;
  /** Shown in `pg_stat_activity`. */
  applicationName?: string | undefined;
  /** Told when the connection is lost and each time it is made again. */
  onConnectionChange?: (state: 'lost' | 'listening', error?: unknown) => void;
  /** First wait before connecting again; doubles up to 5 s. Default 100 ms. */
  reconnectMs?: number;
}

/** How long `close()` waits for a connection being made to be made and ended. */
const CLOSE_WAIT_MS = 2_000;

/** A listening connection; `close()` ends it and stops reconnecting. */
export interface AnchoringNotifications {
  close(): Promise<void>;
}

const MAX_RECONNECT_MS = 5_000;

/**
 * Listens, on a connection of its own, for the events other processes announce
 * (`notifyAnchoring`), on the channels of the handlers given. A lost connection is made again
 * (100 ms, doubling up to 5 s); once it listens again the handlers are called, since
 * notifications sent meanwhile are not delivered; a first connection that fails is tried again the
 * same way. The notifications only make a process look sooner: it still looks on its own
 * schedule, so none is ever needed for correctness.
 */
export async function listenForAnchoring(
  options: AnchoringNotificationOptions,
  handlers: AnchoringNotificationHandlers,
): Promise<AnchoringNotifications> {
  const schema = options.schema ?? 'public';
  const channels = new Map<string, () => void>();
  if (handlers.queued !== undefined) {
    channels.set(channelOf(schema, 'queued'), () => handlers.queued?.());
  }
  if (handlers.settled !== undefined) {
    channels.set(channelOf(schema, 'settled'), () => handlers.settled?.());
  }
  const callAll = () => {
    for (const handler of channels.values()) handler();
  };
  const firstWaitMs = options.reconnectMs ?? 100;
  let closed = false;
  let client: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let waitMs = firstWaitMs;
  /** A connection being made: `close()` waits for it, which ends it once made. */
  let connecting: Promise<boolean> | undefined;

  const connect = async (): Promise<boolean> => {
    const next = new Client({
      connectionString: options.url,
      application_name: options.applicationName ?? 'trustpoint-notifications',
    });
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      next.removeAllListeners('notification');
      if (client === next) client = undefined;
      void next.end().catch(() => undefined);
      if (closed) return;
      options.onConnectionChange?.('lost', error);
      scheduleReconnect();
    };
    next.on('error', onLost);
    next.on('end', () => {
      onLost();
    });
    next.on('notification', (message) => {
      channels.get(message.channel)?.();
    });
    try {
      await next.connect();
      for (const channel of channels.keys()) {
        await next.query(`listen ${next.escapeIdentifier(channel)}`);
      }
    } catch (error) {
      onLost(error);
      return false;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return false;
    }
    client = next;
    waitMs = firstWaitMs;
    options.onConnectionChange?.('listening');
    return true;
  };

  const scheduleReconnect = () => {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connectOnce().then((listening) => {
        // Whatever was sent while no connection listened.
        if (listening) callAll();
      });
    }, waitMs);
    retry.unref();
    waitMs = Math.min(MAX_RECONNECT_MS, waitMs * 2);
  };

  const connectOnce = (): Promise<boolean> => {
    const made = connect().finally(() => {
      if (connecting === made) connecting = undefined;
    });
    connecting = made;
    return made;
  };

  await connectOnce();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      // A connection made after close() began is ended by connect() itself: waited for (a
      // server that does not answer is not waited for long), so that none outlives close().
      if (connecting !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          connecting,
          new Promise((resolve) => {
            timer = setTimeout(resolve, CLOSE_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
      }
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
