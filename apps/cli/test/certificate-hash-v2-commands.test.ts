import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import {
  localTrustFile,
  startService,
  trustpoint,
  type RunningService,
} from './support/cli-fixture.js';
import { anchoredVersion1Certificate } from './support/version1-certificate.js';

interface Certificate {
  certID: string;
  data: Record<string, unknown> & { content: Record<string, unknown> };
}

describe.each(testBackends())(
  'certificate hash version 2 on the command line, on %s',
  (backend) => {
    let service: RunningService;
    let dir: string;
    let trustFile: string;

    const api = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${service.running.token}`);
      if (init.body !== undefined) headers.set('Content-Type', 'application/json');
      const response = await fetch(`${service.running.certApiUrl}${path}`, { ...init, headers });
      const body = (await response.json()) as { data: Certificate };
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      return body.data;
    };
    const diploma = () =>
      api('/certificates?type=content&networkId=31337', {
        method: 'POST',
        body: JSON.stringify({
          name: 'Diploma',
          description: 'Mathematics',
          expires: Date.now() + 86_400_000,
          content: {
            student: { name: 'Ada', dateOfBirth: '1815-12-10', id: crypto.randomUUID() },
            grades: ['A', 'B', 'A'],
            honours: false,
          },
        }),
      });
    const saved = async (name: string, value: unknown) => {
      const path = join(dir, name);
      await writeFile(path, JSON.stringify(value, null, 2));
      return path;
    };
    const verify = (args: string[]) =>
      trustpoint(['verify', ...args], { TRUSTPOINT_TRUST_FILE: trustFile });

    beforeAll(async () => {
      service = await startService(backend);
      dir = await mkdtemp(join(tmpdir(), 'trustpoint-withhold-'));
      trustFile = await localTrustFile(service);
    }, 120_000);

    afterAll(async () => {
      await service.running.stop();
    });

    it('when a new certificate is verified, then it is VERIFIED and every shown field is listed as covered, nothing withheld', async () => {
      // Arrange
      const path = await saved('diploma.json', await diploma());

      // Act
      const text = await verify([path]);
      const json = await verify([path, '--json']);

      // Assert
      expect(text.code).toBe(EXIT.ok);
      expect(text.stdout).toContain(
        'Covered by the hash (version 2): hashVersion, certID, type, name, description, issuer, issuerOrigin, issuedOn, expires, content',
      );
      expect(text.stdout).toContain('Withheld by the holder: none');
      const result = JSON.parse(json.stdout) as {
        certified: Record<string, unknown>;
        claims: Record<string, unknown>;
      };
      expect(result.certified).toMatchObject({ name: 'Diploma', description: 'Mathematics' });
      expect(result.certified.issuerOrigin).toBe(service.url);
      expect(result.claims).toEqual({});
    });

    it.each([
      ['renamed', { name: 'Honorary doctorate' }],
      ['re-described', { description: 'Physics' }],
      ['re-issued by another issuer', { issuer: 'did:user:someone-else' }],
      ['re-dated', { issuedOn: 946_684_800_000 }],
    ])('when a copy is %s, then it is a MISMATCH (exit 7)', async (_, change) => {
      // Arrange
      const certificate = await diploma();
      const path = await saved('changed.json', {
        ...certificate,
        data: { ...certificate.data, ...change },
      });

      // Act
      const result = await verify([path]);

      // Assert
      expect(result.code).toBe(EXIT.mismatch);
      expect(result.stdout).toContain('MISMATCH');
      expect(result.stdout).toContain('is not the version 2 root of the fields shown');
      // The origin it names is the one trusted, but nothing of this copy holds: no other verdict
      // on the issuer, no advice to pin or trust anything again.
      expect(result.stdout).toContain('(a claim: this copy does not match its hash)');
      expect(result.stdout).toContain('no record of this copy holds');
      expect(result.stdout).not.toContain('ISSUER NOT TRUSTED');
      expect(result.stdout).not.toContain('trustpoint trust add');
    });

    it('when the holder withholds content fields, then the copy lacks them and verifies with them listed', async () => {
      // Arrange
      const certificate = await diploma();
      const path = await saved('full.json', certificate);
      const out = join(dir, 'withheld.json');

      // Act
      const made = await trustpoint([
        'withhold',
        path,
        '--field',
        'content.student.dateOfBirth',
        '--field',
        '["content","grades",1]',
        '--out',
        out,
      ]);
      const result = await verify([out]);
      const json = await verify([out, '--json']);

      // Assert
      expect(made.code).toBe(EXIT.ok);
      const copy = JSON.parse(await readFile(out, 'utf8')) as Certificate;
      expect(copy.data.content).toEqual({
        student: { name: 'Ada', id: (certificate.data.content.student as { id: string }).id },
        grades: ['A', 'A'],
        honours: false,
      });
      expect(JSON.stringify(copy)).not.toContain('1815-12-10');
      expect(result.code).toBe(EXIT.ok);
      expect(result.stdout).toContain(
        'Withheld by the holder: a member of content.student; content.grades[1]',
      );
      const certified = (JSON.parse(json.stdout) as { certified: { content: unknown } }).certified;
      expect(certified.content).toEqual(copy.data.content);
    });

    it('when a field that cannot be withheld is named, or one the copy does not disclose, then withhold refuses with exit 2 and says why', async () => {
      // Arrange
      const path = await saved('refuse.json', await diploma());

      // Act
      const name = await trustpoint(['withhold', path, '--field', 'name']);
      const whole = await trustpoint(['withhold', path, '--field', 'content']);
      const absent = await trustpoint(['withhold', path, '--field', 'content.nothing']);
      const ambiguous = await trustpoint(['withhold', path, '--field', 'content.a b']);

      // Assert
      expect(name.code).toBe(EXIT.usage);
      expect(name.stderr).toContain('name is always shown in clear');
      expect(whole.code).toBe(EXIT.usage);
      expect(whole.stderr).toContain('the content as a whole cannot be withheld');
      expect(absent.code).toBe(EXIT.usage);
      expect(absent.stderr).toContain('discloses no field there');
      expect(ambiguous.code).toBe(EXIT.usage);
      expect(ambiguous.stderr).toContain('JSON array');
    });

    it('when a copy drops a field that cannot be withheld, then verify refuses it as a MISMATCH (exit 7) with the reason', async () => {
      // Arrange
      const certificate = await diploma();
      const { issuer: _issuer, ...withoutIssuer } = certificate.data;
      const noIssuer = await saved('no-issuer.json', { ...certificate, data: withoutIssuer });
      const { expires: _expires, ...withoutExpiry } = certificate.data;
      const noExpiry = await saved('no-expiry.json', { ...certificate, data: withoutExpiry });

      // Act
      const issuer = await verify([noIssuer]);
      const expiry = await verify([noExpiry]);

      // Assert
      expect(issuer.code).toBe(EXIT.usage);
      expect(issuer.stderr).toContain('issuer');
      expect(expiry.code).toBe(EXIT.mismatch);
    });

    it('when a certificate of the earlier rule is verified, then it is VERIFIED with its coverage stated and --json certifies only its content', async () => {
      // Arrange
      const content = { student: 'Grace', grade: 'A+' };
      const certId = await anchoredVersion1Certificate(service, content);
      const path = await saved('v1.json', await api(`/certificates/certID/${certId}`));

      // Act
      const text = await verify([path]);
      const json = await verify([path, '--json']);

      // Assert
      expect(text.code).toBe(EXIT.ok);
      expect(text.stdout).toContain('Covered by the hash (version 1): content');
      expect(text.stdout).toContain(
        'NOT covered, claims of whoever gave the JSON (unverified): name "Diploma"; description "Made under version 1"; issuer "did:user:local-admin"; issuedOn',
      );
      const result = JSON.parse(json.stdout) as {
        certified: Record<string, unknown>;
        claims: Record<string, unknown>;
      };
      expect(result.certified).toEqual({ content });
      expect(Object.keys(result.claims)).toEqual(['name', 'description', 'issuer', 'issuedOn']);
    });

    it('when the issuer re-anchors a certificate of the earlier rule, then the new JSON verifies under version 2 and the copy saved before still verifies under version 1', async () => {
      // Arrange
      const certId = await anchoredVersion1Certificate(service, { student: 'Alan', grade: 'B' });
      const before = await saved('before.json', await api(`/certificates/certID/${certId}`));

      // Act
      const reanchored = await api(`/certificates/certID/${certId}/reanchor`, { method: 'POST' });
      const after = await saved('after.json', reanchored);
      const newCopy = await verify([after]);
      const oldCopy = await verify([before]);

      // Assert
      expect(reanchored.data.hashVersion).toBe(2);
      expect(newCopy.code).toBe(EXIT.ok);
      expect(newCopy.stdout).toContain('Covered by the hash (version 2)');
      expect(oldCopy.code).toBe(EXIT.ok);
      expect(oldCopy.stdout).toContain('Covered by the hash (version 1)');
      // Its verdict says what version 1 proves: the content, not the name, dates or expiry.
      expect(oldCopy.stdout).toContain('VERIFIED: every record is on chain and matches (version 1');
      expect(newCopy.stdout).not.toContain('(version 1:');
    });
  },
);
