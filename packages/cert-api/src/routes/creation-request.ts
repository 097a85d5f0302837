import {
  assetCertificateBodySchema,
  certificateTypeSchema,
  contentCertificateBodySchema,
  createCertificateQuerySchema,
  fieldErrorsFromZod,
  networkIdSchema,
  urlCertificateBodySchema,
  type CreateCertificateQuery,
  type FieldError,
  type UrlCertificateBody,
} from '@trustpoint/domain';
import { validateRequest } from '@trustpoint/http';
import type { Request } from 'express';
import { z } from 'zod';
import type { JsonCertificateBody } from '../certificates/certificate-drafts.js';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { expiresProblem } from '../certificates/certificate-expiry.js';

/** A creation with a JSON body, its query and body validated together. */
export type JsonCreation = { query: CreateCertificateQuery } & (
  JsonCertificateBody | { type: 'url'; body: UrlCertificateBody }
);

const JSON_BODY_SCHEMAS = {
  content: contentCertificateBodySchema,
  asset: assetCertificateBodySchema,
  url: urlCertificateBodySchema,
} as const;

/** A network the query names that this service does not anchor on, on `query.networkId`. */
function unknownNetworkProblem(services: CertificateServices, query: Request['query']) {
  const networkId = networkIdSchema.safeParse(query['networkId']);
  return networkId.success
    ? services.networks.unknownNetworkProblem(String(networkId.data), 'query.networkId')
    : undefined;
}

/** An `expires` already past, as a body (a JSON object, or not yet known to be one) sends it. */
function pastExpiresProblem(services: CertificateServices, body: unknown) {
  const expires: unknown =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)['expires']
      : undefined;
  return expiresProblem(expires, services.now());
}

const present = (problem: FieldError | undefined): problem is FieldError => problem !== undefined;

/**
 * The query of `POST /certificates?type=file`, with every problem it has (`query.<name>`): the
 * upload's own problems are reported together with them once its parts are read.
 */
export function fileCreationQuery(
  services: CertificateServices,
  req: Request,
): { query: CreateCertificateQuery | undefined; problems: FieldError[] } {
  const parsed = createCertificateQuerySchema.safeParse(req.query);
  const problems = [
    ...(parsed.success ? [] : fieldErrorsFromZod(parsed.error, 'query')),
    unknownNetworkProblem(services, req.query),
  ].filter(present);
  return { query: problems.length === 0 ? parsed.data : undefined, problems };
}

/** What an `expires` of a file certificate's `body` part is told, with the query's problems. */
export function fileCreationProblems(
  services: CertificateServices,
  queryProblems: readonly FieldError[],
  body: { expires?: number | undefined },
): FieldError[] {
  return [...queryProblems, pastExpiresProblem(services, body)].filter(present);
}

/**
 * `POST /certificates` with a JSON body (content, asset, URL): its query and body validated
 * together, or one 400 listing every problem of both (spec 7.2, rule 1), an unconfigured network
 * and an `expires` already past among them. The body is judged by the schema of the query's
 * `type`; while the type itself is wrong, only the query's problems are known.
 */
export function jsonCreation(services: CertificateServices, req: Request): JsonCreation {
  const type = certificateTypeSchema.safeParse(req.query['type']).data;
  const bodySchema = type === undefined || type === 'file' ? z.unknown() : JSON_BODY_SCHEMAS[type];
  const { query, body } = validateRequest(
    { query: [createCertificateQuerySchema, req.query], body: [bodySchema, req.body] },
    [unknownNetworkProblem(services, req.query), pastExpiresProblem(services, req.body)].filter(
      present,
    ),
  );
  // The body passed the schema of `query.type`.
  return { query, type: query.type, body } as JsonCreation;
}
