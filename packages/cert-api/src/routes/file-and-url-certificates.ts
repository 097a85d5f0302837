import type { CertificateRecord } from '@trustpoint/db';
import {
  DomainError,
  type CreateCertificateQuery,
  type FieldError,
  type UrlCertificateBody,
} from '@trustpoint/domain';
import {
  acknowledgementFor,
  beginIdempotentRequest,
  currentUser,
  idempotencyClaimOf,
  jsonBodyDigest,
  requestIdOf,
} from '@trustpoint/http';
import type { Request, Response } from 'express';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { createFileCertificate } from '../certificates/create-file-certificate.js';
import { createUrlCertificate } from '../certificates/create-url-certificate.js';
import { fileCertificateDraft } from '../certificates/file-certificate-draft.js';
import { fileCreationProblems, fileCreationQuery } from './creation-request.js';
import { receiveFileUpload } from './receive-file-upload.js';
import { publishedFileStoreOf } from '../files/files-settings.js';

/**
 * `POST /certificates?type=file`: the multipart upload is hashed while it streams (and kept in the
 * store's incoming directory when `publish=true`); what was kept is always removed afterwards
 * unless it was published. An `Idempotency-Key` is claimed once the parts are read, by their
 * digest (the body part's fields and the file's bytes, as their SHA-256, its name and type);
 * undefined when the key had an answer already, which was sent.
 */
export async function createCertificateFromUpload(
  services: CertificateServices,
  req: Request,
  res: Response,
): Promise<CertificateRecord | undefined> {
  const user = currentUser(res);
  // A wrong query is reported with the parts' problems, so the parts are read all the same.
  const { query, problems: queryProblems } = fileCreationQuery(services, req);
  let upload;
  try {
    upload = await receiveFileUpload(req, res, {
      maxFileBytes: services.files.maxFileBytes,
      keepInStore: query?.publish ? publishedFileStoreOf(services.files) : null,
    });
  } catch (error) {
    // Refused before the upload ended: the rest is discarded, and the connection is not reused.
    if (!req.complete) res.setHeader('Connection', 'close');
    throw withQueryProblems(error, queryProblems);
  }
  try {
    const problems = fileCreationProblems(services, queryProblems, upload.body);
    if (query === undefined || problems.length > 0) {
      throw new DomainError('validation', {
        detail: 'invalid file certificate request',
        errors: problems,
      });
    }
    const { file } = upload;
    const parts = jsonBodyDigest({
      body: upload.body,
      file: { sha256: file.fileHash, size: file.size, name: file.name, mediaType: file.mediaType },
    });
    if (!(await beginIdempotentRequest(req, res, parts))) return undefined;
    const draft = fileCertificateDraft(String(query.networkId), upload.body, upload.file);
    return await createFileCertificate(services, user, draft, {
      qualified: query.qualified,
      acknowledgement: acknowledgementFor(req, services.networks.get(String(query.networkId))),
      requestId: requestIdOf(res),
      idempotency: idempotencyClaimOf(res),
      publish:
        upload.incomingPath === null
          ? null
          : { file: upload.file, incomingPath: upload.incomingPath },
    });
  } finally {
    await upload.discard();
  }
}

/** An upload's 400 with the query's problems listed first; any other failure as it is. */
function withQueryProblems(error: unknown, queryProblems: readonly FieldError[]): unknown {
  if (
    queryProblems.length === 0 ||
    !(error instanceof DomainError) ||
    error.code !== 'validation'
  ) {
    return error;
  }
  return new DomainError('validation', {
    detail: error.message,
    errors: [...queryProblems, ...(error.errors ?? [])],
    cause: error,
  });
}

/** `POST /certificates?type=url`: a JSON body whose `url` the service fetches once. */
export function createCertificateFromUrl(
  services: CertificateServices,
  query: CreateCertificateQuery,
  body: UrlCertificateBody,
  req: Request,
  res: Response,
): Promise<CertificateRecord> {
  const networkId = String(query.networkId);
  return createUrlCertificate(services, currentUser(res), networkId, body, {
    qualified: query.qualified,
    acknowledgement: acknowledgementFor(req, services.networks.get(networkId)),
    requestId: requestIdOf(res),
    idempotency: idempotencyClaimOf(res),
  });
}
