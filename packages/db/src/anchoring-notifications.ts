import { Client } from 'pg';

import {
  ANCHOR_QUEUED_CHANNEL,
  ANCHOR_SETTLED_CHANNEL,
} from './migrations/0027-anchoring-notifications.js';

/** What a process does when another (or itself) queued or settled records. */
export interface AnchoringNotificationHandlers {
  /** Records were queued: look at the queue now. */
  queued(): void;
  /** Records were anchored or refused for good: answer the requests waiting on them now. */
  settled(): void;
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

/** A listening connection; `close()` ends it and stops reconnecting. */
export interface AnchoringNotifications {
  close(): Promise<void>;
}

const MAX_RECONNECT_MS = 5_000;

/**
 * Listens, on a connection of its own, for the notifications the queue's triggers send when
 * records are queued or settled (migration 0027) by any process sharing the database. A lost
 * connection is made again (100 ms, doubling up to 5 s); once it listens again both handlers are
 * called, since notifications sent meanwhile are not delivered; a first connection that fails is
 * tried again the same way. The notifications only make a process look sooner: it still looks on
 * its own schedule, so none is ever needed for correctness.
 */
export async function listenForAnchoring(
  options: AnchoringNotificationOptions,
  handlers: AnchoringNotificationHandlers,
): Promise<AnchoringNotifications> {
  const schema = options.schema ?? 'public';
  const channels = {
    [`${schema}.${ANCHOR_QUEUED_CHANNEL}`]: () => {
      handlers.queued();
    },
    [`${schema}.${ANCHOR_SETTLED_CHANNEL}`]: () => {
      handlers.settled();
    },
  };
  const firstWaitMs = options.reconnectMs ?? 100;
  let closed = false;
  let client: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let waitMs = firstWaitMs;

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
      channels[message.channel]?.();
    });
    try {
      await next.connect();
      for (const channel of Object.keys(channels)) {
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
      void connect().then((listening) => {
        if (!listening) return;
        // Whatever was sent while no connection listened.
        handlers.queued();
        handlers.settled();
      });
    }, waitMs);
    retry.unref();
    waitMs = Math.min(MAX_RECONNECT_MS, waitMs * 2);
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
