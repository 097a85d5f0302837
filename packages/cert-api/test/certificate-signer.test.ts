import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
} from 'node:crypto';
import { CompactSign, decodeProtectedHeader, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { createCertificateSigner, generateSigningKey } from '../src/server.js';

function ed25519Key(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function spkiOf(privatePem: string): string {
  return createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }).toString();
}

describe('createCertificateSigner: one key', () => {
  it('when a JWS is signed, then it verifies and its header names the key', async () => {
    // Arrange
    const signer = await createCertificateSigner(generateSigningKey());

    // Act
    const jws = await signer.sign('{"a":1}');

    // Assert
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'ES256', kid: signer.kid });
    expect(await signer.verify(jws)).toBe('{"a":1}');
    expect(signer.jwks.keys).toEqual([signer.publicJwk]);
  });
});

describe('createCertificateSigner: rotation with retired keys', () => {
  it('when a JWS was signed by a retired key, then the new signer verifies it by its kid', async () => {
    // Arrange
    const oldKey = generateSigningKey();
    const old = await createCertificateSigner(oldKey);
    const jws = await old.sign('{"signed":"before"}');

    // Act
    const fromJwk = await createCertificateSigner(ed25519Key(), { retired: [old.publicJwk] });
    const fromPem = await createCertificateSigner(generateSigningKey(), {
      retired: [spkiOf(oldKey)],
    });
    const fromJson = await createCertificateSigner(generateSigningKey(), {
      retired: [JSON.stringify(old.publicJwk)],
    });

    // Assert
    expect(await fromJwk.verify(jws)).toBe('{"signed":"before"}');
    expect(await fromPem.verify(jws)).toBe('{"signed":"before"}');
    expect(await fromJson.verify(jws)).toBe('{"signed":"before"}');
  });

  it('when the signer signs after a rotation, then it uses the current key only', async () => {
    // Arrange
    const old = await createCertificateSigner(ed25519Key());
    const signer = await createCertificateSigner(generateSigningKey(), {
      retired: [old.publicJwk],
    });

    // Act
    const jws = await signer.sign('{"signed":"after"}');

    // Assert
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'ES256', kid: signer.kid });
    await expect(old.verify(jws)).rejects.toThrow();
    expect(await signer.verify(jws)).toBe('{"signed":"after"}');
  });

  it('when retired keys are given, then the key set lists the current key first, then each retired key once', async () => {
    // Arrange
    const currentKey = generateSigningKey();
    const first = await createCertificateSigner(ed25519Key());
    const second = await createCertificateSigner(generateSigningKey());

    // Act
    const signer = await createCertificateSigner(currentKey, {
      retired: [first.publicJwk, spkiOf(currentKey), second.publicJwk, first.publicJwk],
    });

    // Assert
    expect(signer.jwks.keys.map((key) => key.kid)).toEqual([signer.kid, first.kid, second.kid]);
    expect(signer.jwks.keys[0]).toEqual(signer.publicJwk);
    expect(signer.jwks.keys[1]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(signer.jwks.keys[2]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    for (const key of signer.jwks.keys) expect(key.use).toBe('sig');
  });

  it('when a retired JWK carries another kid, then the key set and verification use its thumbprint', async () => {
    // Arrange
    const old = await createCertificateSigner(generateSigningKey());
    const jws = await old.sign('{"n":2}');

    // Act
    const signer = await createCertificateSigner(generateSigningKey(), {
      retired: [{ ...old.publicJwk, kid: 'my-old-key' }],
    });

    // Assert
    expect(signer.jwks.keys[1]?.kid).toBe(old.kid);
    expect(await signer.verify(jws)).toBe('{"n":2}');
  });

  it('when a JWS names a kid the signer does not know, then verify rejects it', async () => {
    // Arrange
    const stranger = await createCertificateSigner(generateSigningKey());
    const signer = await createCertificateSigner(generateSigningKey(), {
      retired: [(await createCertificateSigner(generateSigningKey())).publicJwk],
    });
    const jws = await stranger.sign('{"n":3}');

    // Act / Assert
    await expect(signer.verify(jws)).rejects.toThrow(/names no key of this service/);
  });

  it('when a JWS has no kid, then verify rejects it', async () => {
    // Arrange
    const key = generateSigningKey();
    const signer = await createCertificateSigner(key);
    const jws = await new CompactSign(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'ES256' })
      .sign(createPrivateKey(key));

    // Act / Assert
    await expect(signer.verify(jws)).rejects.toThrow(/names no key of this service/);
  });

  it('when a JWS names a retired kid but was signed by another key, then verify rejects it', async () => {
    // Arrange
    const old = await createCertificateSigner(generateSigningKey());
    const signer = await createCertificateSigner(generateSigningKey(), {
      retired: [old.publicJwk],
    });
    const { privateKey: forger } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = await new CompactSign(new TextEncoder().encode('{"forged":true}'))
      .setProtectedHeader({ alg: 'ES256', kid: old.kid })
      .sign(forger);

    // Act / Assert
    await expect(signer.verify(forged)).rejects.toThrow(/signature verification failed/);
  });

  it('when a JWS names an Ed25519 key but another algorithm, then verify rejects it', async () => {
    // Arrange
    const old = await createCertificateSigner(ed25519Key());
    const signer = await createCertificateSigner(generateSigningKey(), {
      retired: [old.publicJwk],
    });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const confused = await new CompactSign(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'ES256', kid: old.kid })
      .sign(privateKey);

    // Act / Assert
    await expect(signer.verify(confused)).rejects.toThrow(/"alg" \(Algorithm\) Header Parameter/);
  });

  it('when a private key is given as retired, then only its public half is kept and published', async () => {
    // Arrange
    const oldKey = generateSigningKey();
    const old = await createCertificateSigner(oldKey);
    const privateJwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as JWK;
    const jws = await old.sign('{"n":4}');

    // Act
    const signer = await createCertificateSigner(generateSigningKey(), {
      retired: [oldKey, privateJwk, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey],
    });

    // Assert
    expect(signer.jwks.keys).toHaveLength(4);
    expect(signer.jwks.keys[1]).toEqual(old.publicJwk);
    expect(signer.jwks.keys[2]).toMatchObject({ kty: 'OKP', x: privateJwk.x });
    for (const key of signer.jwks.keys) expect(key).not.toHaveProperty('d');
    expect(JSON.stringify(signer)).not.toContain(String(privateJwk.d));
    expect(await signer.verify(jws)).toBe('{"n":4}');
  });

  it.each([
    ['an RSA key', () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey],
    ['a P-384 key', () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey],
    ['an X25519 key', () => generateKeyPairSync('x25519').publicKey],
    [
      'an RSA JWK',
      () =>
        generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
          format: 'jwk',
        }) as JWK,
    ],
    ['a secret key', () => createSecretKey(randomBytes(32))],
    ['a symmetric JWK', () => ({ kty: 'oct', k: randomBytes(32).toString('base64url') })],
    ['text that is no key', () => 'not a key'],
  ])('when %s is given as retired, then the signer is not made', async (_name, retired) => {
    // Act / Assert
    await expect(
      createCertificateSigner(generateSigningKey(), { retired: [retired()] }),
    ).rejects.toThrow();
  });

  it('when a retired JWK names another alg or use, then the signer is not made', async () => {
    // Arrange
    const old = await createCertificateSigner(generateSigningKey());

    // Act / Assert
    await expect(
      createCertificateSigner(generateSigningKey(), {
        retired: [{ ...old.publicJwk, alg: 'ES384' }],
      }),
    ).rejects.toThrow(/names alg "ES384" but is an ES256 key/);
    await expect(
      createCertificateSigner(generateSigningKey(), {
        retired: [{ ...old.publicJwk, use: 'enc' }],
      }),
    ).rejects.toThrow(/for use "enc"/);
  });

  it('when a retired key is of another type, then the message says which keys are accepted', async () => {
    // Act / Assert
    await expect(
      createCertificateSigner(generateSigningKey(), {
        retired: [generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey],
      }),
    ).rejects.toThrow('A verification key must be an EC P-256 (ES256) or Ed25519 (EdDSA) key');
  });
});
