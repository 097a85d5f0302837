import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { apiBaseOf, fetchCertificate, readJsonFile } from '../src/page/certificate-source.js';

const CERT_ID = 'did:trustpoint:certid:0194a1b2-0000-7000-8000-00000000000a';

/** A certificate answer as a forger's service writes it: `name` twice, the genuine value last. */
const DOUBLED_NAME = `{"statusCode":200,"data":{"certID":"${CERT_ID}","data":{"name":"Forged Mallory","name":"Diploma Alice"}}}`;

let server: Server | undefined;

afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A service of its own answering every request 200 with `text` as written; its API base. */
async function serviceAnswering(text: string): Promise<URL> {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(text);
  });
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return apiBaseOf(`http://127.0.0.1:${String((listening.address() as AddressInfo).port)}`);
}

describe('a certificate read from a service by certID', () => {
  it('when the answer names a member twice, then it is refused as the same bytes given as a file are, naming the member', async () => {
    // Arrange
    const apiBase = await serviceAnswering(DOUBLED_NAME);

    // Act
    const fetched = await fetchCertificate(apiBase, CERT_ID).catch((error: unknown) => error);
    const asFile = await readJsonFile(new Blob([DOUBLED_NAME])).catch((error: unknown) => error);

    // Assert
    expect(fetched).toBeInstanceOf(Error);
    expect((fetched as Error).message).toBe(
      'The certificate the service answered is refused: $.data.data.name is given twice: a JSON object must name each member once, and another reader could show another value',
    );
    expect((asFile as Error).message).toContain('$.data.data.name is given twice');
  });

  it('when the answer is the certificate asked for, once, then it is returned as answered', async () => {
    // Arrange
    const answer = { statusCode: 200, data: { certID: CERT_ID, data: { name: 'Diploma Alice' } } };
    const apiBase = await serviceAnswering(JSON.stringify(answer));

    // Act
    const certificate = await fetchCertificate(apiBase, CERT_ID);

    // Assert
    expect(certificate).toEqual(answer);
  });

  it('when the answer is not JSON, then nothing is verified and the page says it is not a certificate', async () => {
    // Arrange
    const apiBase = await serviceAnswering('<html>hello</html>');

    // Act
    const fetched = fetchCertificate(apiBase, CERT_ID);

    // Assert
    await expect(fetched).rejects.toThrow(
      `The service answered something else than a certificate when asked for ${CERT_ID}`,
    );
  });
});
