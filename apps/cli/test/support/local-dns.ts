import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on a local port, answering TXT queries from a zone the test sets:
 * what `TRUSTPOINT_DNS_SERVERS` points the service at. A name the zone does not hold is NXDOMAIN.
 */
export interface LocalDns {
  /** name → TXT texts */
  zone: Map<string, string[]>;
  /** `127.0.0.1:<port>` */
  server: string;
  close(): Promise<void>;
}

export async function startLocalDns(): Promise<LocalDns> {
  const zone = new Map<string, string[]>();
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
      const texts = question === undefined ? undefined : zone.get(question.name.toLowerCase());
      if (question === undefined || texts === undefined) {
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
    server: `127.0.0.1:${String(port)}`,
    close: async () => {
      await dns.close();
    },
  };
}
