import { afterEach, describe, expect, it } from 'vitest';
import {
  createTrustpointClient,
  TrustpointUnsendableValueError,
  type TrustpointClient,
} from '../src/index.js';
import { startAnsweringServer, type ReceivedRequest } from './support/answering-server.js';
import { rejectionOf } from './support/rejection.js';

let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A client of a service of its own that answers every creation 201 and records what reached it. */
async function recordingService(): Promise<{
  client: TrustpointClient;
  received: ReceivedRequest[];
}> {
  const server = await startAnsweringServer((request) =>
    JSON.stringify({ data: { certID: 'did:trustpoint:certid:x', echo: request.body } }),
  );
  close = server.close;
  return {
    client: createTrustpointClient({ certUrl: server.url, trackUrl: server.url, token: 't' }),
    received: server.received,
  };
}

const certify = (client: TrustpointClient, content: Record<string, unknown>) =>
  client.cert.createContentCertificate(
    { name: 'Reading', description: 'sensor', content },
    { networkId: 31337 },
  );

describe('request bodies JSON cannot carry', () => {
  it.each([
    ['NaN', { x: Number.NaN }, 'body.content.x', 'NaN has no JSON form'],
    ['Infinity', { x: [1, Number.POSITIVE_INFINITY] }, 'body.content.x[1]', 'Infinity'],
    ['a BigInt', { reading: { total: 10n } }, 'body.content.reading.total', 'a BigInt'],
    ['undefined in an array', { x: [undefined] }, 'body.content.x[0]', 'undefined in an array'],
    ['a function', { x: () => 1 }, 'body.content.x', 'a function'],
    ['a Map', { x: new Map([['a', 1]]) }, 'body.content.x', 'a Map is not a plain JSON object'],
  ])(
    'when a content holds %s, then the SDK refuses it naming the field, and nothing reaches the service',
    async (_what, content, path, problem) => {
      // Arrange
      const { client, received } = await recordingService();

      // Act
      const error = await rejectionOf(certify(client, content));

      // Assert
      expect(error).toBeInstanceOf(TrustpointUnsendableValueError);
      expect(error).toMatchObject({ path });
      expect((error as Error).message).toContain(problem);
      expect((error as Error).message).toContain('nothing was sent');
      expect(received).toEqual([]);
    },
  );

  it('when a content refers to itself, then it is refused as circular, and nothing is sent', async () => {
    // Arrange
    const { client, received } = await recordingService();
    const content: Record<string, unknown> = { a: 1 };
    content.self = content;

    // Act
    const error = await rejectionOf(certify(client, content));

    // Assert
    expect(error).toMatchObject({ path: 'body.content.self' });
    expect((error as Error).message).toContain('circular');
    expect(received).toEqual([]);
  });

  it('when an asset, an evidence or a file certificate body holds NaN, then each is refused before any request', async () => {
    // Arrange
    const { client, received } = await recordingService();

    // Act
    const asset = await rejectionOf(
      client.track.createAsset({ assetId: 'a', data: { weightKg: Number.NaN }, networkId: 31337 }),
    );
    const evidence = await rejectionOf(
      client.track.addEvidence('did:trustpoint:trackid:x', { metadata: { n: Number.NaN } }),
    );
    const file = await rejectionOf(
      client.cert.createFileCertificate(
        { file: new Uint8Array([1]), body: { name: 'n', description: '', x: 1n } as never },
        { networkId: 31337 },
      ),
    );

    // Assert
    expect(asset).toMatchObject({ path: 'body.data.weightKg' });
    expect(evidence).toMatchObject({ path: 'body.metadata.n' });
    expect(file).toMatchObject({ path: 'body.x' });
    expect(received).toEqual([]);
  });

  it('when a content holds -0, an undefined member or a Date, then it is sent as JSON always sends it (0, left out, the ISO text)', async () => {
    // Arrange: -0 and 0 are one JSON number (RFC 8785 hashes both as 0), as the verifier has it.
    const { client, received } = await recordingService();
    const at = new Date('2026-01-02T03:04:05.000Z');

    // Act
    await certify(client, { zero: -0, gone: undefined, at });

    // Assert
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]?.body ?? '')).toEqual({
      name: 'Reading',
      description: 'sensor',
      content: { zero: 0, at: '2026-01-02T03:04:05.000Z' },
    });
  });
});
