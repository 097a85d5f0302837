import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server (dns2, UDP) on a local port answering A and AAAA queries from a zone the test
 * sets, as `TRUSTPOINT_DNS_SERVERS` would name it. A name the zone does not hold is NXDOMAIN.
 */
export interface AddressDns {
  /**
   * name → addresses (IPv4 ones answer A queries, IPv6 ones AAAA), or a function giving them at
   * each query (a rebinding DNS answers differently each time)
   */
  zone: Map<string, string[] | (() => string[])>;
  /** Every question asked, as `A name` or `AAAA name`. */
  asked: string[];
  /** `127.0.0.1:<port>` */
  server: string;
  close(): Promise<void>;
}

export async function startAddressDns(): Promise<AddressDns> {
  const zone = new Map<string, string[] | (() => string[])>();
  const asked: string[] = [];
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
      const entry = question === undefined ? undefined : zone.get(question.name.toLowerCase());
      const addresses = typeof entry === 'function' ? entry() : entry;
      if (question !== undefined) {
        asked.push(`${question.type === Packet.TYPE.AAAA ? 'AAAA' : 'A'} ${question.name}`);
      }
      if (question === undefined || addresses === undefined) {
        response.header.rcode = 3; // NXDOMAIN
      } else {
        const v6 = question.type === Packet.TYPE.AAAA;
        for (const address of addresses.filter((entry) => entry.includes(':') === v6)) {
          response.answers.push({
            name: question.name,
            type: v6 ? Packet.TYPE.AAAA : Packet.TYPE.A,
            class: Packet.CLASS.IN,
            ttl: 1,
            address,
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
    asked,
    server: `127.0.0.1:${String(port)}`,
    close: async () => {
      await dns.close();
    },
  };
}
