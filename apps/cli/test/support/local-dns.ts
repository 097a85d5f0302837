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
