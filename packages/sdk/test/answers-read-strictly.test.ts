import { afterEach, describe, expect, it } from 'vitest';
import { createTrustpointClient, TrustpointRefusedAnswerError, verifier } from '../src/index.js';
import { startAnsweringServer } from './support/answering-server.js';
import { rejectionOf } from './support/rejection.js';

const CERT_ID = 'did:trustpoint:certid:0194a1b2-0000-7000-8000-00000000000a';
const OTHER_CERT_ID = 'did:trustpoint:certid:0194a1b2-0000-7000-8000-00000000000b';
const TRACK_ID = 'did:trustpoint:trackid:0194a1b2-0000-7000-8000-00000000000c';
const HASH = 'a'.repeat(64);

/** A certificate answer as a forger's service writes it: `name` twice, the genuine value last. */
const doubledName = (certID: string) =>
  `{"data":{"certID":"${certID}","data":{"name":"Forged Mallory","name":"Diploma Alice"}}}`;

let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serviceAnswering(text: string) {
  const server = await startAnsweringServer(() => text);
  close = server.close;
  return createTrustpointClient({ certUrl: server.url, trackUrl: server.url, token: 't' });
}

describe('records read to be verified', () => {
  it('when the service answers a certificate naming a member twice, then getCertificate refuses it, naming the member, as the verifier refuses the same bytes given as a file', async () => {
    // Arrange
    const client = await serviceAnswering(doubledName(CERT_ID));

    // Act
    const error = await rejectionOf(client.cert.getCertificate(CERT_ID));

    // Assert
    expect(error).toBeInstanceOf(TrustpointRefusedAnswerError);
    expect(error).toMatchObject({ reason: 'duplicateMember' });
    expect((error as Error).message).toContain('$.data.data.name is given twice');
    expect(() => verifier.parseJsonStrict(doubledName(CERT_ID))).toThrow(
      verifier.DuplicateMemberError,
    );
  });

  it('when the service answers a certificate writing a number with more digits than its value holds, then getCertificate refuses it, naming the number', async () => {
    // Arrange: issuedOn read as 1767225600000 here, as itself by a decimal reader.
    const client = await serviceAnswering(
      `{"data":{"certID":"${CERT_ID}","data":{"name":"Diploma","issuedOn":1767225600000.0000001}}}`,
    );

    // Act
    const error = await rejectionOf(client.cert.getCertificate(CERT_ID));

    // Assert
    expect(error).toBeInstanceOf(TrustpointRefusedAnswerError);
    expect(error).toMatchObject({ reason: 'inexactNumber' });
    expect((error as Error).message).toContain('$.data.data.issuedOn is written');
  });

  it('when the service answers another certificate than the certID asked for, then getCertificate refuses it, naming both', async () => {
    // Arrange
    const client = await serviceAnswering(
      JSON.stringify({ data: { certID: OTHER_CERT_ID, data: { name: 'Diploma Alice' } } }),
    );

    // Act
    const error = await rejectionOf(client.cert.getCertificate(CERT_ID));

    // Assert
    expect(error).toBeInstanceOf(TrustpointRefusedAnswerError);
    expect(error).toMatchObject({
      reason: 'otherRecord',
      asked: CERT_ID,
      answered: OTHER_CERT_ID,
      message: `the service answered certificate ${OTHER_CERT_ID} when asked for ${CERT_ID}: not the certificate asked for`,
    });
  });

  it('when the service answers the certificate asked for, once, then getCertificate returns it', async () => {
    // Arrange
    const client = await serviceAnswering(
      JSON.stringify({ data: { certID: CERT_ID, data: { name: 'Diploma Alice' } } }),
    );

    // Act
    const certificate = await client.cert.getCertificate(CERT_ID);

    // Assert
    expect(certificate).toEqual({ certID: CERT_ID, data: { name: 'Diploma Alice' } });
  });

  it('when the service answers an asset naming a member twice, then getAsset refuses it, naming the member', async () => {
    // Arrange
    const client = await serviceAnswering(
      `{"data":{"trackID":"${TRACK_ID}","data":{"weightKg":12,"weightKg":1200}}}`,
    );

    // Act
    const error = await rejectionOf(client.track.getAsset(TRACK_ID));

    // Assert
    expect(error).toBeInstanceOf(TrustpointRefusedAnswerError);
    expect(error).toMatchObject({ reason: 'duplicateMember' });
    expect((error as Error).message).toContain('$.data.data.weightKg is given twice');
  });

  it('when the service answers another asset or evidence than the one asked for, then getAsset and getEvidence refuse it', async () => {
    // Arrange
    const client = await serviceAnswering(
      JSON.stringify({ data: { trackID: `${TRACK_ID}0`, hash: 'b'.repeat(64) } }),
    );

    // Act
    const asset = await rejectionOf(client.track.getAsset(TRACK_ID));
    const evidence = await rejectionOf(client.track.getEvidence(HASH));

    // Assert
    expect(asset).toMatchObject({ reason: 'otherRecord', answered: `${TRACK_ID}0` });
    expect(evidence).toMatchObject({ reason: 'otherRecord', answered: 'b'.repeat(64) });
  });

  it('when the service answers an evidence naming a member twice, then getEvidence refuses it', async () => {
    // Arrange
    const client = await serviceAnswering(`{"data":{"hash":"${HASH}","hash":"${'b'.repeat(64)}"}}`);

    // Act
    const error = await rejectionOf(client.track.getEvidence(HASH));

    // Assert
    expect(error).toMatchObject({ reason: 'duplicateMember' });
    expect((error as Error).message).toContain('$.data.hash is given twice');
  });
});
