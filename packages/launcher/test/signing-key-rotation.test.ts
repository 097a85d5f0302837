import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { launch } from '../src/launcher.js';
import { readLauncherConfig } from '../src/launcher-config.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });

interface Jwks {
  keys: { kid: string }[];
}

describe('Signing-key rotation through the launcher', () => {
  it('when restarted with a new SIGNING_KEY and the old JWKS as SIGNING_KEYS_RETIRED, then an earlier signature stays valid and both keys are served', async () => {
    // Arrange: a qualified certificate signed with the key the first start made.
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-rotation-'));
    const first = await launch('all', await testLaunchConfig(dataDir), silent);
    let certID: string;
    let oldJwks: Jwks;
    try {
      const created = await fetch(
        `${first.certApiUrl}/certificates?type=content&networkId=31337&qualified=true`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Signed', description: '', content: { rotation: 1 } }),
        },
      );
      expect(created.status).toBe(201);
      certID = ((await created.json()) as { data: { certID: string } }).data.certID;
      oldJwks = (await (await fetch(`${first.certApiUrl}/.well-known/jwks.json`)).json()) as Jwks;
    } finally {
      await first.stop();
    }
    const newKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const env = { SIGNING_KEY: newKey, SIGNING_KEYS_RETIRED: JSON.stringify(oldJwks) };

    // Act
    const { signingKey, retiredSigningKeys } = readLauncherConfig(env);
    const second = await launch(
      'all',
      await testLaunchConfig(dataDir, { signingKey, retiredSigningKeys }),
      silent,
    );
    try {
      const verification = await fetch(`${second.certApiUrl}/trustpoints/certID/${certID}`, {
        headers: { Authorization: `Bearer ${second.token}` },
      });
      const served = (await (
        await fetch(`${second.certApiUrl}/.well-known/jwks.json`)
      ).json()) as Jwks;

      // Assert
      const body = (await verification.json()) as {
        data: { verified: boolean; trustpoints: { type: string; signatureValid?: boolean }[] };
      };
      expect(body.data.verified).toBe(true);
      expect(body.data.trustpoints.find((item) => item.type === 'Signature')).toMatchObject({
        signatureValid: true,
      });
      expect(served.keys).toHaveLength(2);
      expect(served.keys[0]?.kid).not.toBe(oldJwks.keys[0]?.kid);
      expect(served.keys[1]?.kid).toBe(oldJwks.keys[0]?.kid);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
