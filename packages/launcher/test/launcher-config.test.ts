import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLauncherConfig } from '../src/launcher-config.js';
import { RoleConfigError } from '../src/role-config-error.js';

describe('readLauncherConfig: OpenID Connect providers', () => {
  it('when OIDC_ISSUERS is not set, then no provider is trusted', () => {
    expect(readLauncherConfig({}).oidcIssuers).toEqual([]);
  });

  it('when OIDC_ISSUERS lists a provider, then it is read with its defaults', () => {
    // Act
    const config = readLauncherConfig({
      OIDC_ISSUERS: JSON.stringify([
        {
          issuer: 'https://login.example.org/realms/acme',
          audience: 'trustpoint',
          algorithms: ['ES256'],
          provision: { planId: 'basic', credits: 100 },
        },
      ]),
    });

    // Assert
    expect(config.oidcIssuers).toEqual([
      {
        issuer: 'https://login.example.org/realms/acme',
        audience: 'trustpoint',
        userClaim: 'sub',
        userIdPrefix: '',
        algorithms: ['ES256'],
        provision: { planId: 'basic', credits: 100, qualified: false },
      },
    ]);
  });

  it.each([
    ['{', /OIDC_ISSUERS must be a JSON array/],
    ['[{"issuer":"https://login.example.org"}]', /OIDC_ISSUERS: issuer 1 audience/],
    ['[{"issuer":"https://a.example","audience":"x","algorithms":["none"]}]', /OIDC_ISSUERS/],
  ])('when OIDC_ISSUERS is %s, then the start stops with a message naming it', (value, message) => {
    expect(() => readLauncherConfig({ OIDC_ISSUERS: value })).toThrow(message);
  });
});

describe('readLauncherConfig: the public origin', () => {
  it.each([
    [{}, 'http://127.0.0.1:8080'],
    [{ API_HOST: '0.0.0.0' }, 'http://127.0.0.1:8080'],
    [{ API_HOST: '::', CERT_API_PORT: '9000' }, 'http://127.0.0.1:9000'],
    [{ API_HOST: '::1' }, 'http://[::1]:8080'],
    [{ API_HOST: '10.0.0.5' }, 'http://10.0.0.5:8080'],
    [
      { API_HOST: '0.0.0.0', TRUSTPOINT_PUBLIC_URL: 'https://certs.example.org/' },
      'https://certs.example.org',
    ],
  ])('when %j, then certificates name %s', (env, origin) => {
    expect(readLauncherConfig(env).publicUrl).toBe(origin);
  });
});

describe('readLauncherConfig: DATABASE_URL', () => {
  it.each(['postgres://u:p@db:5432/trustpoint', 'postgresql://db/trustpoint'])(
    'when it is the PostgreSQL URL %s, then it is kept',
    (url) => {
      expect(readLauncherConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    },
  );

  it.each([
    ['notaurl', 'not text that is no URL'],
    ['mysql://root:S3CRET@db/trustpoint', 'not a mysql:// URL'],
  ])('when it is %s, then the start stops naming the variable, never the value', (url, said) => {
    const error = (() => {
      try {
        readLauncherConfig({ DATABASE_URL: url });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();

    expect(error).toBeInstanceOf(RoleConfigError);
    expect((error as Error).message).toMatch(/^DATABASE_URL must be a PostgreSQL URL/);
    expect((error as Error).message).toContain(said);
    expect((error as Error).message).not.toContain('S3CRET');
  });
});

describe('readLauncherConfig: files and URL fetching', () => {
  it('when nothing is set, then uploads are limited to 2 GiB and no private address may be fetched', () => {
    // Act
    const config = readLauncherConfig({});

    // Assert
    expect(config.maxFileBytes).toBe(2 * 1024 ** 3);
    expect(config.urlFetchAllow).toEqual([]);
    expect(config.urlFetchAllowPrivate).toBe(false);
  });

  it('when the variables are set, then they are read', () => {
    // Act
    const config = readLauncherConfig({
      MAX_FILE_BYTES: '1048576',
      URL_FETCH_ALLOW: ' 10.1.2.3, 192.168.0.0/16,fd00::/8 ',
      URL_FETCH_ALLOW_PRIVATE: 'true',
      TRUSTPOINT_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[::1]:53',
    });

    // Assert
    expect(config.dnsServers).toEqual(['1.1.1.1', '127.0.0.1:5353', '[::1]:53']);
    expect(config.maxFileBytes).toBe(1_048_576);
    expect(config.urlFetchAllow).toEqual(['10.1.2.3', '192.168.0.0/16', 'fd00::/8']);
    expect(config.urlFetchAllowPrivate).toBe(true);
  });

  it.each([
    [{ MAX_FILE_BYTES: '2GB' }, /MAX_FILE_BYTES/],
    [{ URL_FETCH_ALLOW: 'intranet.local' }, /URL_FETCH_ALLOW must list/],
    [{ URL_FETCH_ALLOW: '10.0.0.0/33' }, /URL_FETCH_ALLOW must list/],
    [{ URL_FETCH_ALLOW_PRIVATE: 'yes' }, /URL_FETCH_ALLOW_PRIVATE must be true or false/],
    [{ TRUSTPOINT_DNS_SERVERS: 'dns.example' }, /TRUSTPOINT_DNS_SERVERS must list/],
    [{ TRUSTPOINT_DNS_SERVERS: '10.0.0.1:70000' }, /TRUSTPOINT_DNS_SERVERS must list/],
  ])('when %o is set, then the start stops with a message naming the variable', (env, message) => {
    // Act / Assert
    expect(() => readLauncherConfig(env)).toThrow(message);
  });
});

describe('readLauncherConfig: retired signing keys', () => {
  const p256 = () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const ed25519 = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });

  it('when SIGNING_KEYS_RETIRED is unset or empty, then no key is retired', () => {
    // Act / Assert
    expect(readLauncherConfig({}).retiredSigningKeys).toEqual([]);
    expect(readLauncherConfig({ SIGNING_KEYS_RETIRED: ' ' }).retiredSigningKeys).toEqual([]);
  });

  it('when it is a JSON array of public JWKs, then they are read', () => {
    // Arrange
    const keys = [p256(), { ...ed25519(), kid: 'old', alg: 'EdDSA', use: 'sig' }];

    // Act
    const config = readLauncherConfig({ SIGNING_KEYS_RETIRED: JSON.stringify(keys) });

    // Assert
    expect(config.retiredSigningKeys).toEqual(keys);
  });

  it('when it is a JWK Set such as the served JWKS, then its keys are read', () => {
    // Arrange
    const keys = [p256(), ed25519()];

    // Act
    const config = readLauncherConfig({ SIGNING_KEYS_RETIRED: JSON.stringify({ keys }) });

    // Assert
    expect(config.retiredSigningKeys).toEqual(keys);
  });

  it.each([
    [
      'invalid JSON',
      () => '[{"kty":',
      /SIGNING_KEYS_RETIRED must be a JSON array .* not valid JSON/,
    ],
    ['a lone JWK', () => JSON.stringify(p256()), /SIGNING_KEYS_RETIRED must be a JSON array/],
    ['a string entry', () => JSON.stringify(['-----BEGIN PUBLIC KEY-----']), /key 1 is not a JWK/],
    [
      'an RSA key',
      () =>
        JSON.stringify([
          p256(),
          generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }),
        ]),
      /SIGNING_KEYS_RETIRED: key 2 is not usable: .*EC P-256 \(ES256\) or Ed25519/,
    ],
    [
      'a P-384 key',
      () =>
        JSON.stringify([
          generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' }),
        ]),
      /SIGNING_KEYS_RETIRED: key 1 is not usable/,
    ],
    [
      'a key for encryption',
      () => JSON.stringify([{ ...p256(), use: 'enc' }]),
      /SIGNING_KEYS_RETIRED: key 1 is not usable: .*use "enc"/,
    ],
    [
      'a symmetric key',
      () => JSON.stringify([{ kty: 'oct', k: 'c2VjcmV0' }]),
      /SIGNING_KEYS_RETIRED: key 1 holds a private or secret key/,
    ],
  ])(
    'when it holds %s, then the start stops with a message naming the variable',
    (_name, value, message) => {
      // Act / Assert
      expect(() => readLauncherConfig({ SIGNING_KEYS_RETIRED: value() })).toThrow(message);
    },
  );

  it('when it holds a private key, then the start stops without echoing the key', () => {
    // Arrange
    const privateJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      format: 'jwk',
    });

    // Act
    let message = '';
    try {
      readLauncherConfig({ SIGNING_KEYS_RETIRED: JSON.stringify({ keys: [privateJwk] }) });
    } catch (error) {
      message = (error as Error).message;
    }

    // Assert
    expect(message).toContain('SIGNING_KEYS_RETIRED: key 1 holds a private or secret key');
    expect(message).not.toContain(String(privateJwk.d));
  });
});

describe('readLauncherConfig: failed PIN attempts', () => {
  it('when nothing is set, then 10 wrong PINs per certificate and 50 per address in an hour', () => {
    // Act
    const config = readLauncherConfig({});

    // Assert
    expect(config.pinAttempts).toEqual({ perCertificate: 10, perAddress: 50, windowMs: 3_600_000 });
  });

  it('when the variables are set, then they are read, the window in seconds', () => {
    // Act
    const config = readLauncherConfig({
      PIN_ATTEMPTS_PER_CERTIFICATE: '5',
      PIN_ATTEMPTS_PER_ADDRESS: '20',
      PIN_ATTEMPTS_WINDOW_SECONDS: '86400',
    });

    // Assert
    expect(config.pinAttempts).toEqual({ perCertificate: 5, perAddress: 20, windowMs: 86_400_000 });
  });

  it.each([
    [{ PIN_ATTEMPTS_PER_CERTIFICATE: '0' }, /PIN_ATTEMPTS_PER_CERTIFICATE must be a positive/],
    [{ PIN_ATTEMPTS_PER_ADDRESS: 'many' }, /PIN_ATTEMPTS_PER_ADDRESS must be a positive/],
    [{ PIN_ATTEMPTS_WINDOW_SECONDS: '1.5' }, /PIN_ATTEMPTS_WINDOW_SECONDS must be a positive/],
  ])('when %o is set, then the start stops with a message naming the variable', (env, message) => {
    // Act / Assert
    expect(() => readLauncherConfig(env)).toThrow(message);
  });
});

describe('readLauncherConfig: posted certificate copies', () => {
  it('when nothing is set, then 30 copies per address a minute and 4 checked at once', () => {
    // Act
    const config = readLauncherConfig({});

    // Assert
    expect(config.postedVerifications).toEqual({ perMinute: 30, atOnce: 4 });
  });

  it('when the variables are set, then they are read', () => {
    // Act
    const config = readLauncherConfig({
      VERIFICATIONS_PER_MINUTE: '120',
      VERIFICATIONS_AT_ONCE: '8',
    });

    // Assert
    expect(config.postedVerifications).toEqual({ perMinute: 120, atOnce: 8 });
  });

  it.each([
    [{ VERIFICATIONS_PER_MINUTE: '0' }, /VERIFICATIONS_PER_MINUTE must be a positive/],
    [{ VERIFICATIONS_AT_ONCE: 'all' }, /VERIFICATIONS_AT_ONCE must be a positive/],
  ])('when %o is set, then the start stops with a message naming the variable', (env, message) => {
    // Act / Assert
    expect(() => readLauncherConfig(env)).toThrow(message);
  });
});

describe('readLauncherConfig: CORS_ORIGINS', () => {
  it('when CORS_ORIGINS is not set, then pages of any origin may read the public routes', () => {
    expect(readLauncherConfig({}).corsOrigins).toBe('*');
  });

  it('when CORS_ORIGINS lists origins, then only those are allowed', () => {
    const config = readLauncherConfig({
      CORS_ORIGINS: 'https://verify.example,http://127.0.0.1:5173',
    });

    expect(config.corsOrigins).toEqual(['https://verify.example', 'http://127.0.0.1:5173']);
  });

  it('when CORS_ORIGINS holds something that is not an origin, then the start stops naming it', () => {
    expect(() => readLauncherConfig({ CORS_ORIGINS: 'https://verify.example/' })).toThrow(
      'CORS_ORIGINS: "https://verify.example/" is not an origin',
    );
  });
});

describe('readLauncherConfig: secrets shared by every process', () => {
  it('when TRUSTPOINT_JWT_SECRET and TRUSTPOINT_PIN_KEY are set, then they are read; unset, the secrets file serves', () => {
    const pinKey = Buffer.alloc(32, 1).toString('base64url');

    expect(readLauncherConfig({}).sharedSecrets).toEqual({});
    expect(
      readLauncherConfig({ TRUSTPOINT_JWT_SECRET: 'x'.repeat(32), TRUSTPOINT_PIN_KEY: pinKey })
        .sharedSecrets,
    ).toEqual({ jwtSecret: 'x'.repeat(32), pinKey });
  });

  it('when the JWT secret is short or the PIN key is not 32 bytes of base64url, then the start stops saying which', () => {
    expect(() => readLauncherConfig({ TRUSTPOINT_JWT_SECRET: 'short' })).toThrow(
      /TRUSTPOINT_JWT_SECRET/,
    );
    expect(() => readLauncherConfig({ TRUSTPOINT_PIN_KEY: 'abc' })).toThrow(/TRUSTPOINT_PIN_KEY/);
    expect(() =>
      readLauncherConfig({ TRUSTPOINT_PIN_KEY: `${Buffer.alloc(32).toString('base64')}!` }),
    ).toThrow(/TRUSTPOINT_PIN_KEY/);
  });
});

describe('readLauncherConfig: the web verifier public endpoints', () => {
  const chains = {
    chains: [
      {
        name: 'Stand-in chain',
        chainId: 31337,
        genesisHash: `0x${'6e'.repeat(32)}`,
        endpoints: [
          { url: 'http://127.0.0.1:18545', operator: 'A' },
          { url: 'http://127.0.0.1:28545', operator: 'B' },
        ],
      },
    ],
  };
  const file = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'trustpoint-endpoints-')), 'endpoints.json');
    writeFileSync(path, content);
    return path;
  };

  it('when TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS is unset, then the page keeps the built-in list; none, then it asks none', () => {
    expect(readLauncherConfig({}).verifierPublicEndpoints).toBeUndefined();
    expect(
      readLauncherConfig({ TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: 'none' }).verifierPublicEndpoints,
    ).toEqual([]);
  });

  it('when it names a file of chains, then they are read', () => {
    const config = readLauncherConfig({
      TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: file(JSON.stringify(chains)),
    });

    expect(config.verifierPublicEndpoints).toEqual(chains.chains);
  });

  it('when the file is missing or not such a list, then the start stops naming the setting and the fault', () => {
    const bad = file(JSON.stringify({ chains: [{ ...chains.chains[0], genesisHash: '0x12' }] }));

    expect(() =>
      readLauncherConfig({ TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: '/nonexistent/endpoints.json' }),
    ).toThrow(/^TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: \/nonexistent\/endpoints.json: ENOENT/);
    expect(() => readLauncherConfig({ TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: bad })).toThrow(
      `TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: ${bad}: $.chains[0].genesisHash must be 0x and 64 hex characters`,
    );
  });
});

describe('readLauncherConfig: a setting the service cannot start with', () => {
  /** What `readLauncherConfig` threw, for a look at its kind and message. */
  function refusal(env: NodeJS.ProcessEnv): unknown {
    try {
      readLauncherConfig(env);
    } catch (error) {
      return error;
    }
    throw new Error('the configuration was accepted');
  }

  it.each([
    ['RATE_LIMIT_PER_MINUTE', 'abc'],
    ['TRUST_PROXY', 'banana'],
    ['MAX_FILE_BYTES', '-5'],
    ['CERT_API_PORT', 'abc'],
    ['CERT_API_PORT', '99999'],
    ['TRACK_API_PORT', 'abc'],
    ['MIGRATE_AT_START', 'maybe'],
    ['OIDC_ISSUERS', '[{bad'],
    ['TRUSTPOINT_PUBLIC_URL', 'notaurl'],
    ['TRUSTPOINT_DNS_SERVERS', 'dns.google'],
    ['TRUSTPOINT_JWT_SECRET', 'short'],
    ['TRUSTPOINT_PIN_KEY', 'notbase64'],
    ['SHUTDOWN_TIMEOUT_SECONDS', 'ten'],
    ['IDEMPOTENCY_KEY_RETENTION_HOURS', '0'],
    ['EVIDENCE_MAX_AHEAD_SECONDS', '-1'],
    ['CORS_ORIGINS', 'not an origin'],
    ['FILES_S3_BUCKET', 'Not_A_Bucket'],
    ['TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS', '/nonexistent/endpoints.json'],
    ['LOG_LEVEL', 'loud'],
  ])(
    'when %s is %j, then the start stops with a configuration error that names it',
    (name, value) => {
      // Act
      const error = refusal({ [name]: value });

      // Assert: the kind `trustpoint serve` and `start` print in one line with exit 2.
      expect(error).toBeInstanceOf(RoleConfigError);
      expect((error as Error).message).toMatch(new RegExp(`^${name}\\b`));
    },
  );

  it("when LOG_LEVEL is not one of pino's levels, then the message lists them", () => {
    expect(() => readLauncherConfig({ LOG_LEVEL: 'loud' })).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    );
  });

  it('when LOG_LEVEL is unset, then the logs are at info; set, at its level', () => {
    expect(readLauncherConfig({}).logLevel).toBe('info');
    expect(readLauncherConfig({ LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(readLauncherConfig({ LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
  });
});
