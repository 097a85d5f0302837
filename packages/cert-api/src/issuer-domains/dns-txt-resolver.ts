import { Resolver } from 'node:dns/promises';
import type { TxtResolver } from '@trustpoint/verifier';

/**
 * TXT lookups with Node's resolver: the system's DNS servers, or `servers` (`host` or
 * `host:port`, the setting `TRUSTPOINT_DNS_SERVERS`) when given. A name without records (or that
 * does not exist) resolves to none; a DNS that does not answer rejects.
 */
export function dnsTxtResolver(servers?: readonly string[]): TxtResolver {
  const resolver = new Resolver({ timeout: 5000, tries: 2 });
  if (servers !== undefined && servers.length > 0) resolver.setServers(servers);
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
