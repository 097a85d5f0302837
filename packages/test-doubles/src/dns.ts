import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on a local port, what `TRUSTPOINT_DNS_SERVERS` or
 * `Resolver.setServers` points at: TXT queries answer from `zone`, A and AAAA queries from
 * `addresses`; a name neither holds is NXDOMAIN. Beside it, a DNS-over-HTTPS endpoint with the
 * JSON API the pages use, which asks this server with a real DNS query: it stands in for a public
 * resolver (Google's `/resolve`), which this machine cannot reach.
 */
export interface LocalDns {
  /** name → TXT texts */
  zone: Map<string, string[]>;
  /**
   * name → addresses (IPv4 ones answer A queries, IPv6 ones AAAA), or a function giving them at
   * each query (a rebinding DNS answers differently each time)
   */
  addresses: Map<string, string[] | (() => string[])>;
  /** Every question asked over DNS, in order, as `<type> <name>`: `TXT _trustpoint.example.org`, `A example.org`. */
  questions: string[];
  /** `127.0.0.1:<port>` */
  server: string;
  /** The DNS-over-HTTPS JSON endpoint, `http://127.0.0.1:<port>/resolve` (`?name=&type=TXT`). */
  dohUrl: string;
  close(): Promise<void>;
}

type Question = { name: string; type: number } | undefined;

function typeName(type: number): string {
  if (type === Packet.TYPE.A) return 'A';
  if (type === Packet.TYPE.AAAA) return 'AAAA';
  if (type === Packet.TYPE.TXT) return 'TXT';
  return String(type);
}

export async function startLocalDns(): Promise<LocalDns> {
  const zone = new Map<string, string[]>();
  const addresses = new Map<string, string[] | (() => string[])>();
  const questions: string[] = [];
  const dns = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      // dns2's types leave out the header and a question's type, which it has.
      const response = Packet.createResponseFromRequest(request) as ReturnType<
        typeof Packet.createResponseFromRequest
      > & { header: { rcode: number } };
      const [question] = request.questions as Question[];
      if (question === undefined) {
        response.header.rcode = 3; // NXDOMAIN
        send(response);
        return;
      }
      const name = question.name.toLowerCase();
      questions.push(`${typeName(question.type)} ${name}`);
      const texts = zone.get(name);
      const entry = addresses.get(name);
      const ofName = typeof entry === 'function' ? entry() : entry;
      if (texts === undefined && ofName === undefined) {
        response.header.rcode = 3; // NXDOMAIN
      } else if (question.type === Packet.TYPE.A || question.type === Packet.TYPE.AAAA) {
        const v6 = question.type === Packet.TYPE.AAAA;
        for (const address of (ofName ?? []).filter((each) => each.includes(':') === v6)) {
          response.answers.push({
            name: question.name,
            type: question.type,
            class: Packet.CLASS.IN,
            ttl: 1,
            address,
          });
        }
      } else if (question.type === Packet.TYPE.TXT) {
        for (const data of texts ?? []) {
          response.answers.push({
            name: question.name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 60,
            data,
          });
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
  const { port } = dns.addresses().udp as AddressInfo;
  const server = `127.0.0.1:${String(port)}`;
  const doh = await startDoh(port);
  return {
    zone,
    addresses,
    questions,
    server,
    dohUrl: doh.url,
    close: async () => {
      await doh.close();
      await dns.close();
    },
  };
}

/** The DNS-over-HTTPS JSON API (`/resolve?name=&type=TXT`, CORS for any page) over the server on `port`. */
async function startDoh(port: number): Promise<{ url: string; close: () => Promise<void> }> {
  const client = new dns2({ nameServers: ['127.0.0.1'], port, recursive: false });
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
    url: `http://127.0.0.1:${String(dohPort)}/resolve`,
    close: () =>
      new Promise<void>((resolve) => {
        doh.close(() => {
          resolve();
        });
        doh.closeAllConnections();
      }),
  };
}
