import { randomBytes, randomUUID } from 'node:crypto';
import { ADMIN_API_BASE_PATH } from '@trustpoint/admin';
import { databaseDigest } from '@trustpoint/test-database';
import { checkedRequest, type OpenApiDocument } from '@trustpoint/test-kit/openapi';
import {
  documentedOperations,
  expectRefusedAndUnchanged,
  SHARED_ISOLATION_CASES,
  webhookEventOf,
  type IsolationCase,
  type IsolationWorld,
  type Party,
} from '@trustpoint/test-kit/security';
import { isolationTests } from '@trustpoint/test-kit/suites';
import { beforeAll, describe, expect, it } from 'vitest';

import type { CertApiFixture } from '../support/cert-api-fixture.js';
import { request } from '../support/checked-request.js';
import type { SecurityApi } from './shared-api.js';

// Two users: every route of the certificate API (from the document it serves) is tried by the
// other user on the owner's records, under every lookup kind; and every admin route by a user who
// is not an administrator. Reading a public certificate by certID is what public means, and is
// tested with the certificates (get-certificate.test.ts), as PIN guessing is (pin-attempts.test.ts).

const BASE = '/cert/v2';
const adminRequest = checkedRequest(ADMIN_API_BASE_PATH);

interface CertWorld extends IsolationWorld {
  api: CertApiFixture;
}

/** A certificate of the owner under each lookup kind. */
interface OwnedCertificate {
  certID: string;
  externalId: string;
  fileHash: string;
  hash: string;
}

const LOOKUPS = ['certID', 'externalId', 'fileHash', 'hash'] as const;

/** A private file certificate of the owner with an externalId (or public, with a PIN). */
async function ownerCertificate(
  world: CertWorld,
  access = { public: false },
): Promise<OwnedCertificate> {
  const externalId = `ext-${randomUUID()}`;
  const response = await request(world.app)
    .post(`${BASE}/certificates?type=file&networkId=31337`)
    .set('Authorization', `Bearer ${world.owner.token}`)
    .attach('fileInput', randomBytes(64), 'owner.bin')
    .field('body', JSON.stringify({ name: 'Owner file', description: '', externalId, ...access }));
  if (response.status !== 201) {
    throw new Error(`certify: ${String(response.status)} ${JSON.stringify(response.body)}`);
  }
  const data = response.body.data as { certID: string; data: { hash: string; fileHash: string } };
  return { certID: data.certID, externalId, fileHash: data.data.fileHash, hash: data.data.hash };
}

/** A domain the owner claimed (a new one each time). */
async function ownerDomain(world: CertWorld): Promise<string> {
  const domain = `owner-${randomUUID().slice(0, 8)}.example`;
  const response = await request(world.app)
    .post(`${BASE}/issuer-domains`)
    .set('Authorization', `Bearer ${world.owner.token}`)
    .send({ domain });
  if (response.status !== 201) {
    throw new Error(`claim: ${String(response.status)} ${JSON.stringify(response.body)}`);
  }
  return domain;
}

/** The same refused request under each lookup kind of the owner's certificate. */
function everyLookup(
  operation: string,
  name: string,
  send: (world: CertWorld, path: string) => PromiseLike<import('supertest').Response>,
  status = 404,
): IsolationCase<CertWorld> {
  return {
    operation,
    name,
    async run(world) {
      for (const access of [{ public: false }, { public: true, certificatePin: '4921' }]) {
        const certificate = await ownerCertificate(world, access);
        for (const lookup of LOOKUPS) {
          await expectRefusedAndUnchanged(world, status, () =>
            send(
              world,
              `${BASE}/certificates/${lookup}/${encodeURIComponent(certificate[lookup])}`,
            ),
          );
        }
      }
    },
  };
}

const other = (world: CertWorld) => `Bearer ${world.other.token}`;

const CERT_CASES: readonly IsolationCase<CertWorld>[] = [
  {
    operation: 'POST /certificates',
    name: "the other user certifying the same file with the same externalId gets a certificate of their own; the owner's is unchanged",
    async run(world) {
      const file = randomBytes(64);
      const externalId = `ext-${randomUUID()}`;
      const certify = (party: Party) =>
        request(world.app)
          .post(`${BASE}/certificates?type=file&networkId=31337`)
          .set('Authorization', `Bearer ${party.token}`)
          .attach('fileInput', file, 'same.bin')
          .field('body', JSON.stringify({ name: 'Same', description: '', externalId }));
      const owners = await certify(world.owner);
      const ownerView = () =>
        request(world.app)
          .get(`${BASE}/certificates/externalId/${externalId}`)
          .set('Authorization', `Bearer ${world.owner.token}`);
      const before = (await ownerView()).body as unknown;

      const theirs = await certify(world.other);

      expect(owners.status).toBe(201);
      expect(theirs.status).toBe(201);
      expect(theirs.body.data.certID).not.toBe(owners.body.data.certID);
      expect((await ownerView()).body).toEqual(before);
    },
  },
  {
    operation: 'GET /certificates',
    name: "the other user's list holds none of the owner's certificates, private or public",
    async run(world) {
      const owned = [
        await ownerCertificate(world),
        await ownerCertificate(world, { public: true }),
      ].map((certificate) => certificate.certID);
      const list = await request(world.app)
        .get(`${BASE}/certificates?limit=100`)
        .set('Authorization', other(world));
      const certIDs = (list.body.data.certificates as { certID: string }[]).map((c) => c.certID);
      expect(list.status).toBe(200);
      expect(certIDs.filter((certID) => owned.includes(certID))).toEqual([]);
    },
  },
  {
    operation: 'GET /certificates/{type}/{id}',
    name: "the owner's certificate is 404 to the other user by every lookup (private; public without its PIN by the owner's lookups)",
    async run(world) {
      const priv = await ownerCertificate(world);
      const pub = await ownerCertificate(world, { public: true });
      for (const lookup of LOOKUPS) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .get(`${BASE}/certificates/${lookup}/${encodeURIComponent(priv[lookup])}`)
            .set('Authorization', other(world)),
        );
        // A public certificate is anyone's to read by certID; the other lookups are the owner's.
        if (lookup === 'certID') continue;
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .get(`${BASE}/certificates/${lookup}/${encodeURIComponent(pub[lookup])}`)
            .set('Authorization', other(world)),
        );
      }
    },
  },
  everyLookup(
    'PATCH /certificates/{type}/{id}',
    "the other user cannot change the owner's certificate's access by any lookup",
    (world, path) =>
      request(world.app)
        .patch(path)
        .set('Authorization', other(world))
        .send({ public: true, externalId: `taken-${randomUUID()}` }),
  ),
  {
    operation: 'GET /certificates/{type}/{id}/pdf',
    name: "the owner's private certificate's PDF is 404 to the other user by every lookup",
    async run(world) {
      const certificate = await ownerCertificate(world);
      for (const lookup of LOOKUPS) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .get(`${BASE}/certificates/${lookup}/${encodeURIComponent(certificate[lookup])}/pdf`)
            .set('Authorization', other(world)),
        );
      }
    },
  },
  everyLookup(
    'PATCH /certificates/{type}/{id}/revoke',
    "the other user cannot revoke the owner's certificate by any lookup",
    (world, path) =>
      request(world.app).patch(`${path}/revoke?networkId=31337`).set('Authorization', other(world)),
  ),
  everyLookup(
    'POST /certificates/{type}/{id}/signature',
    "the other user (qualified) cannot sign the owner's certificate by any lookup",
    (world, path) =>
      request(world.app)
        .post(`${path}/signature?networkId=31337`)
        .set('Authorization', other(world)),
  ),
  everyLookup(
    'POST /certificates/{type}/{id}/reanchor',
    "the other user cannot re-anchor the owner's certificate by any lookup",
    (world, path) =>
      request(world.app)
        .post(`${path}/reanchor?networkId=31337`)
        .set('Authorization', other(world)),
  ),
  {
    operation: 'POST /trustpoints/verification',
    name: "a posted copy of the owner's private certificate gets the same verdict whoever posts it, and shows nothing the copy does not hold",
    async run(world) {
      const certificate = await ownerCertificate(world);
      const copy = (
        await request(world.app)
          .get(`${BASE}/certificates/certID/${encodeURIComponent(certificate.certID)}`)
          .set('Authorization', `Bearer ${world.owner.token}`)
      ).body.data as object;
      const post = (authorization?: string) => {
        const call = request(world.app).post(`${BASE}/trustpoints/verification`).send(copy);
        return authorization === undefined ? call : call.set('Authorization', authorization);
      };
      const before = await world.digest();
      const [owners, theirs, anonymous] = await Promise.all([
        post(`Bearer ${world.owner.token}`),
        post(other(world)),
        post(),
      ]);
      expect(theirs.status).toBe(owners.status);
      expect(anonymous.body).toEqual(theirs.body);
      expect(await world.digest()).toBe(before);
    },
  },
  {
    operation: 'GET /trustpoints/{type}/{id}',
    name: "the other user cannot verify the owner's private certificate as its owner, by any lookup",
    async run(world) {
      const certificate = await ownerCertificate(world);
      for (const lookup of LOOKUPS) {
        await expectRefusedAndUnchanged(world, 404, () =>
          request(world.app)
            .get(`${BASE}/trustpoints/${lookup}/${encodeURIComponent(certificate[lookup])}`)
            .set('Authorization', other(world)),
        );
      }
    },
  },
  {
    operation: 'GET /files/{fileHash}',
    name: "the owner's certified but unpublished file is 404 to the other user",
    async run(world) {
      const certificate = await ownerCertificate(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        request(world.app)
          .get(`${BASE}/files/${certificate.fileHash}`)
          .set('Authorization', other(world)),
      );
    },
  },
  {
    operation: 'GET /.well-known/jwks.json',
    name: 'the key set is the same for every caller (no user data in it)',
    async run(world) {
      const mine = await request(world.app)
        .get(`${BASE}/.well-known/jwks.json`)
        .set('Authorization', `Bearer ${world.owner.token}`);
      const theirs = await request(world.app)
        .get(`${BASE}/.well-known/jwks.json`)
        .set('Authorization', other(world));
      expect(theirs.body).toEqual(mine.body);
    },
  },
  {
    operation: 'POST /issuer-domains',
    name: "the other user claiming the owner's domain gets a claim of their own, naming their account; the owner's is unchanged",
    async run(world) {
      const domain = await ownerDomain(world);
      const ownerView = () =>
        request(world.app)
          .get(`${BASE}/issuer-domains/${domain}`)
          .set('Authorization', `Bearer ${world.owner.token}`);
      const before = (await ownerView()).body as unknown;

      const theirs = await request(world.app)
        .post(`${BASE}/issuer-domains`)
        .set('Authorization', other(world))
        .send({ domain });

      expect(theirs.status).toBe(201);
      expect(theirs.body.data.record.value).toContain(`account=did:user:${world.other.id}`);
      expect(theirs.body.data.record.value).not.toContain(world.owner.id);
      expect((await ownerView()).body).toEqual(before);
    },
  },
  {
    operation: 'GET /issuer-domains',
    name: "the other user's list holds none of the owner's domains",
    async run(world) {
      const domain = await ownerDomain(world);
      const list = await request(world.app)
        .get(`${BASE}/issuer-domains`)
        .set('Authorization', other(world));
      expect(list.status).toBe(200);
      expect((list.body.data as { domain: string }[]).map((claim) => claim.domain)).not.toContain(
        domain,
      );
    },
  },
  {
    operation: 'GET /issuer-domains/{domain}',
    name: "the owner's domain is 404 to the other user",
    async run(world) {
      const domain = await ownerDomain(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        request(world.app)
          .get(`${BASE}/issuer-domains/${domain}`)
          .set('Authorization', other(world)),
      );
    },
  },
  {
    operation: 'POST /issuer-domains/{domain}/check',
    name: "the other user cannot have the owner's domain checked",
    async run(world) {
      const domain = await ownerDomain(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        request(world.app)
          .post(`${BASE}/issuer-domains/${domain}/check`)
          .set('Authorization', other(world)),
      );
    },
  },
  {
    operation: 'DELETE /issuer-domains/{domain}',
    name: "the other user cannot release the owner's domain",
    async run(world) {
      const domain = await ownerDomain(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        request(world.app)
          .delete(`${BASE}/issuer-domains/${domain}`)
          .set('Authorization', other(world)),
      );
    },
  },
];

/** Every documented route tried by another user on the owner's records; admin routes by a user. */
export function isolationSuite(shared: () => SecurityApi): void {
  describe('isolation of users', () => {
    let world: CertWorld;
    let certDocument: OpenApiDocument;
    let adminDocument: OpenApiDocument;

    beforeAll(async () => {
      const { api } = shared();
      const owner = await api.user({ credits: 1_000 });
      // Qualified, so that a refused signature is the isolation's doing, not the qualification's.
      const otherUser = await api.user({ credits: 1_000, qualified: true });
      world = {
        api,
        app: api.app,
        request,
        basePath: BASE,
        owner,
        other: otherUser,
        digest: () => databaseDigest(api.db.knex),
        async ownerEvent(endpointId) {
          await api.certify(owner.token);
          return webhookEventOf(api.db.knex, endpointId, owner.id);
        },
      };
      certDocument = (await request(api.app).get(`${BASE}/openapi.json`)).body as OpenApiDocument;
      adminDocument = (await adminRequest(api.app).get(`${ADMIN_API_BASE_PATH}/openapi.json`))
        .body as OpenApiDocument;
    });

    const cases: readonly IsolationCase<CertWorld>[] = [...CERT_CASES, ...SHARED_ISOLATION_CASES];

    isolationTests(cases, () => ({ world, document: certDocument }));

    it('when a user who is not an administrator calls any admin route, then 403 and nothing changes', async () => {
      // Arrange: path parameters name real records of the owner.
      const key = (
        await request(world.app)
          .post(`${BASE}/api-keys`)
          .set('Authorization', `Bearer ${world.owner.token}`)
          .send({ name: 'k' })
      ).body.data as { id: string };
      const values: Record<string, string> = { id: world.owner.id, keyId: key.id };
      const operations = documentedOperations(adminDocument);

      // Act and assert
      expect(operations.length).toBeGreaterThan(10);
      for (const operation of operations) {
        const [method = '', template = ''] = operation.split(' ');
        const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? 'x');
        const call = adminRequest(world.app)[method.toLowerCase() as 'get'](
          `${ADMIN_API_BASE_PATH}${path}`,
        );
        const response = await expectRefusedAndUnchanged(world, 403, () =>
          call.set('Authorization', other(world)).send({}),
        ).catch((error: unknown) => {
          throw new Error(`${operation}: ${String(error)}`);
        });
        expect(response.body.type).toBe('Forbidden Error');
      }
    });
  });
}
