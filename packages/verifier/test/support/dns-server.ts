import { createServer, type Server } from 'node:http';
import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';
import type { TxtResolver } from '../../src/index.js';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on a local port, answering TXT queries from a zone the test sets,
 * and a DNS-over-HTTPS endpoint beside it with the JSON API the pages use, which asks that server
 * with a real DNS query: it stands in for a public resolver (Google's `/resolve`). A name the zone
 * does not hold answers NXDOMAIN.
 */
export interface LocalDns {
  /** name → TXT texts */
  zone: Map<string, string[]>;
  /** `127.0.0.1:<port>`, what `Resolver.setServers` takes. */
  server: string;
  /** The DoH JSON endpoint, `http://127.0.0.1:<port>/resolve`. */
  dohUrl: string;
  /** The names asked over DNS, in order. */
  queries: string[];
  close(): Promise<void>;
}

export async function startLocalDns(): Promise<LocalDns> {
  const zone = new Map<string, string[]>();
  const queries: string[] = [];
  const dns = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      // dns2's types leave out the header and a question's type, which it has.
      const response = Packet.createResponseFromRequest(request) as ReturnType<
        typeof Packet.createResponseFromRequest
      > & { header: { rcode: number } };
      const [question] = request.questions as ((typeof request.questions)[number] & {
        type: number;
      })[];
      if (question !== undefined) {
        queries.push(question.name);
        const texts = zone.get(question.name.toLowerCase());
        if (texts === undefined) {
          response.header.rcode = 3; // NXDOMAIN
        } else if (question.type === Packet.TYPE.TXT) {
          for (const data of texts) {
            response.answers.push({
              name: question.name,
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: 60,
              data,
            });
          }
        }
      }
      send(response);
    },
  });
  const listening = new Promise<void>((resolve) => {
    dns.once('listening', () => {
      resolve();
    });
  });
  await dns.listen({ udp: { port: 0, address: '127.0.0.1' } });
  await listening;
  const { port: dnsPort } = dns.addresses().udp as AddressInfo;
  const client = new dns2({ nameServers: ['127.0.0.1'], port: dnsPort, recursive: false });

  const doh: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const name = url.searchParams.get('name');
    if (url.pathname !== '/resolve' || name === null || url.searchParams.get('type') !== 'TXT') {
      response.writeHead(400).end();
      return;
    }
    client
      .resolve(name, 'TXT')
      .then((answer) => {
        response.writeHead(200, {
          'content-type': 'application/dns-json',
          'access-control-allow-origin': '*',
        });
        response.end(
          JSON.stringify({
            Status: (answer as typeof answer & { header: { rcode: number } }).header.rcode,
            Answer: answer.answers.map((record) => ({
              name: record.name,
              type: record.type,
              TTL: record.ttl,
              // As the public resolvers write it: the text quoted.
              data: `"${(record as { data?: string }).data ?? ''}"`,
            })),
          }),
        );
      })
      .catch(() => {
        response.writeHead(502).end();
      });
  });
  await new Promise<void>((resolve) => doh.listen(0, '127.0.0.1', resolve));
  const { port: dohPort } = doh.address() as AddressInfo;

  return {
    zone,
    server: `127.0.0.1:${String(dnsPort)}`,
    dohUrl: `http://127.0.0.1:${String(dohPort)}/resolve`,
    queries,
    close: async () => {
      await new Promise<void>((resolve) => {
        doh.close(() => {
          resolve();
        });
        doh.closeAllConnections();
      });
      await dns.close();
    },
  };
}

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
