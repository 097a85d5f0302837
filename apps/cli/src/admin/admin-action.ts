import type { Output } from '../output.js';
import type { AdminClient } from './admin-client.js';

type AdminHandler<A extends unknown[], O> = (
  client: AdminClient,
  args: A,
  options: O,
) => Promise<Output>;

/** Turns a handler into a commander action: connects, calls it, prints text or `--json`. */
export type AdminAction = <A extends unknown[], O = object>(
  handler: AdminHandler<A, O>,
) => (...params: unknown[]) => Promise<void>;
