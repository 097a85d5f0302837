import { Resolver } from 'node:dns/promises';
import type { TxtResolver } from '../../src/index.js';

/** Node's resolver asking `servers` only: a name without records resolves to none. */
export function nodeTxtResolver(servers: readonly string[]): TxtResolver {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers(servers);
  return async (name) => {
    try {
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
      throw error;
    }
  };
}
