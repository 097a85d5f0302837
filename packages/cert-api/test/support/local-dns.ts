import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on a local port, answering TXT queries from a zone the test sets,
 * and A and AAAA queries from its addresses: what `TRUSTPOINT_DNS_SERVERS` points the service at.
 * A name neither holds is NXDOMAIN.
 */
export interface LocalDns {
  /** name → TXT texts */
  zone: Map<string, string[]>;
  /** name → addresses (IPv4 ones answer A queries, IPv6 ones AAAA) */
  addresses: Map<string, string[]>;
  /** Every A or AAAA question asked, as `A name` or `AAAA name`. */
  addressQuestions: string[];
  /** `127.0.0.1:<port>` */
  server: string;
  close(): Promise<void>;
}

export async function startLocalDns(): Promise<LocalDns> {
  const zone = new Map<string, string[]>();
  const addresses = new Map<string, string[]>();
  const addressQuestions: string[] = [];
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
      const name = question?.name.toLowerCase() ?? '';
      const texts = zone.get(name);
      const ofName = addresses.get(name);
      const asksAddress = question?.type === Packet.TYPE.A || question?.type === Packet.TYPE.AAAA;
      if (asksAddress) {
        addressQuestions.push(`${question.type === Packet.TYPE.A ? 'A' : 'AAAA'} ${name}`);
      }
      if (question === undefined || (texts === undefined && ofName === undefined)) {
        response.header.rcode = 3; // NXDOMAIN
      } else if (asksAddress) {
        const v6 = question.type === Packet.TYPE.AAAA;
        for (const address of (ofName ?? []).filter((entry) => entry.includes(':') === v6)) {
          response.answers.push({
            name: question.name,
            type: question.type,
            class: Packet.CLASS.IN,
            ttl: 1,
            address,
          });
        }
      } else if (question.type === Packet.TYPE.TXT && texts !== undefined) {
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
  return {
    zone,
    addresses,
    addressQuestions,
    server: `127.0.0.1:${String(port)}`,
    close: async () => {
      await dns.close();
    },
  };
}

/**
 * A DNS-over-HTTPS endpoint with the JSON API the pages use (`/resolve?name=&type=TXT`, CORS for
 * any page), which asks `server` with a real DNS query: it stands in for a public resolver such
 * as Google's, which this machine cannot reach.
 */
export async function startLocalDoh(
  server: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const [address = '127.0.0.1', port = '53'] = server.split(':');
  const client = new dns2({ nameServers: [address], port: Number(port), recursive: false });
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
