import { successEnvelopeSchema, type ApiScope, type ErrorCode } from '@trustpoint/domain';
import { z } from 'zod';
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { MAX_ISSUER_DOMAINS, type IssuerDomainView } from '../issuer-domains/issuer-domains.js';
import {
  claimIssuerDomainBodySchema,
  issuerDomainParamsSchema,
} from '../routes/issuer-domains-router.js';

export const ISSUER_DOMAINS_TAG = 'Issuer Domains';

export const ISSUER_DOMAINS_TAG_DESCRIPTION =
  'The domains a customer proves to issue in the name of, as OpenAttestation proves a document ' +
  "store's domain: the customer publishes a DNS TXT record at `_trustpoint.<domain>` naming " +
  "this service's origin and their account, and asks the service to check it. Certificates the " +
  'account issues afterwards name the domain in `data.issuerDomain` (covered by the version 2 ' +
  'hash); every verifier looks the record up itself and shows the domain as the proven issuer ' +
  "only when it names that origin and account. The operator is not the issuer: without a proof, a certificate's names are the issuer's claims.";

const claimSchema = z
  .object({
    domain: z.string().meta({ description: 'Lowercase, punycode' }),
    status: z.enum(['pending', 'proven']).meta({
      description: '`proven`: the last check found the record; `pending`: not yet, or not any more',
    }),
    record: z
      .object({
        name: z.string().meta({ description: '`_trustpoint.<domain>`' }),
        type: z.literal('TXT'),
        value: z.string().meta({
          description: '`trustpoint-issuer v=1 origin=<this origin> account=did:user:<you>`',
        }),
      })
      .meta({ description: 'The DNS record to publish, exactly' }),
    claimedAt: z.number().int(),
    provenAt: z.number().int().nullable(),
    checkedAt: z.number().int().nullable(),
    checkDetail: z.string().nullable().meta({ description: 'What the last check found' }),
  })
  .meta({ id: 'IssuerDomain' });

/** Fails to compile when the view and the schema drift apart. */
export const issuerDomainSchemaMatchesView: z.infer<typeof claimSchema> extends IssuerDomainView
  ? IssuerDomainView extends z.infer<typeof claimSchema>
    ? true
    : never
  : never = true;

const checkSchema = claimSchema
  .extend({
    check: z.object({
      domain: z.string(),
      recordName: z.string(),
      outcome: z.enum(['proven', 'unproven', 'unchecked']),
      records: z.array(z.string()).optional(),
      detail: z.string(),
    }),
  })
  .meta({ id: 'IssuerDomainCheck' });

const EXAMPLE = {
  domain: 'university.example',
  status: 'pending',
  record: {
    name: '_trustpoint.university.example',
    type: 'TXT',
    value: 'trustpoint-issuer v=1 origin=https://certs.example.org account=did:user:auth0%7C42',
  },
  claimedAt: 1767225600000,
  provenAt: null,
  checkedAt: null,
  checkDetail: null,
};

export interface IssuerDomainsPathsOptions {
  security: oas31.SecurityRequirementObject[];
  errors: (...codes: ErrorCode[]) => ZodOpenApiResponsesObject;
  scoped: (operation: ZodOpenApiOperationObject, scope: ApiScope) => ZodOpenApiOperationObject;
}

export function issuerDomainsPaths(options: IssuerDomainsPathsOptions): ZodOpenApiPathsObject {
  const auth: ErrorCode[] = ['missingToken', 'expiredToken', 'invalidToken', 'wrongCredentials'];
  const ok = (
    status: 200 | 201,
    description: string,
    schema: z.ZodType,
    message: string,
    data: unknown,
  ): ZodOpenApiResponsesObject => ({
    [status]: {
      description,
      content: {
        'application/json': {
          schema: successEnvelopeSchema(schema),
          examples: { example: { summary: message, value: { statusCode: status, message, data } } },
        },
      },
    },
  });
  const operation = (scope: ApiScope, op: ZodOpenApiOperationObject): ZodOpenApiOperationObject =>
    options.scoped({ tags: [ISSUER_DOMAINS_TAG], security: options.security, ...op }, scope);
  const path = { path: issuerDomainParamsSchema };
  return {
    '/issuer-domains': {
      post: operation('certify', {
        operationId: 'claimIssuerDomain',
        summary: 'Claim a domain to issue in the name of',
        description:
          'Records the claim (unproven) and answers the DNS TXT record to publish. Claiming a ' +
          'domain already claimed answers it as it is (200). 400 for what is not a domain ' +
          '(an address, a URL, one label), when the service has no public origin, or when the ' +
          `user holds ${String(MAX_ISSUER_DOMAINS)} claims already (withdraw one first).`,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: claimIssuerDomainBodySchema } },
        },
        responses: {
          ...ok(201, 'Claimed', claimSchema, 'Domain claimed', EXAMPLE),
          ...ok(200, 'Claimed before', claimSchema, 'Domain already claimed', EXAMPLE),
          ...options.errors('validation', ...auth, 'insufficientScope'),
        },
      }),
      get: operation('read', {
        operationId: 'listIssuerDomains',
        summary: 'Your claimed domains',
        description: `Every claim, the most recent first: at most ${String(MAX_ISSUER_DOMAINS)}.`,
        responses: {
          ...ok(200, 'The claims', z.array(claimSchema), 'Retrieved 1 domain(s)', [EXAMPLE]),
          ...options.errors('validation', ...auth, 'insufficientScope'),
        },
      }),
    },
    '/issuer-domains/{domain}': {
      get: operation('read', {
        operationId: 'getIssuerDomain',
        summary: 'One claimed domain, with the record to publish',
        requestParams: path,
        responses: {
          ...ok(200, 'The claim', claimSchema, 'Domain retrieved', EXAMPLE),
          ...options.errors('validation', ...auth, 'insufficientScope', 'notFound'),
        },
      }),
      delete: operation('certify', {
        operationId: 'releaseIssuerDomain',
        summary: 'Withdraw a claim',
        description:
          'Certificates made afterwards no longer name the domain; those made before keep it ' +
          '(their hash covers it), and verifiers keep checking its record.',
        requestParams: path,
        responses: {
          ...ok(200, 'Released', z.object({ domain: z.string() }), 'Domain released', {
            domain: 'university.example',
          }),
          ...options.errors('validation', ...auth, 'insufficientScope', 'notFound'),
        },
      }),
    },
    '/issuer-domains/{domain}/check': {
      post: operation('certify', {
        operationId: 'checkIssuerDomain',
        summary: 'Have the service look the DNS record up',
        description:
          "The service asks its DNS (the setting `TRUSTPOINT_DNS_SERVERS`, else the system's) for " +
          'the TXT records of `_trustpoint.<domain>`: `proven` when one names this origin and your ' +
          'account, from which moment your new certificates name the domain (the one proven ' +
          'last, when several are); `pending` otherwise, saying why (no record, another account, ' +
          'another origin). 503 when the DNS does not answer.',
        requestParams: path,
        responses: {
          ...ok(
            200,
            'What the check found',
            checkSchema,
            'Domain proven: new certificates name it',
            {
              ...EXAMPLE,
              status: 'proven',
              provenAt: 1767225660000,
              checkedAt: 1767225660000,
              checkDetail: 'university.example proves it: ...',
              check: {
                domain: 'university.example',
                recordName: '_trustpoint.university.example',
                outcome: 'proven',
                records: [EXAMPLE.record.value],
                detail: 'university.example proves it: ...',
              },
            },
          ),
          ...options.errors(
            'validation',
            ...auth,
            'insufficientScope',
            'notFound',
            'networkUnavailable',
          ),
        },
      }),
    },
  };
}
