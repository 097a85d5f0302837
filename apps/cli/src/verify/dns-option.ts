import { Resolver } from 'node:dns/promises';
import type { TxtResolver } from '@trustpoint/verifier';

/**
 * The DNS servers `trustpoint verify` asks: `--dns-server` (repeatable) or `TRUSTPOINT_DNS_SERVERS`
 * (comma-separated, `host` or `host:port`); none means the system's resolver.
 */
export function dnsServersOf(given: readonly string[], env: NodeJS.ProcessEnv): string[] {
  return [...given, ...(given.length > 0 ? [] : (env.TRUSTPOINT_DNS_SERVERS ?? '').split(','))]
    .map((server) => server.trim())
    .filter((server) => server !== '');
}

/**
 * The DNS the CLI asks for the TXT record of the domain a certificate names as its issuer's
 * identity, on `servers` (`dnsServersOf`), else the system's resolver. A name without records
 * resolves to none; a DNS that does not answer rejects (the identity is then unchecked).
 */
export function dnsResolverOf(servers: readonly string[]): TxtResolver {
  const resolver = new Resolver({ timeout: 5000, tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
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
