import {
  certificateAccessChangesBodySchema,
  certificateListQuerySchema,
  networkQuerySchema,
  reanchorQuerySchema,
} from '@trustpoint/domain';
import { findCertificate, type CertificateRecord } from '@trustpoint/db';
import type { Trust } from '@trustpoint/verifier';
import {
  acknowledge,
  acknowledgementFor,
  authenticate,
  currentUser,
  idempotencyClaimOf,
  idempotent,
  optionalAuthenticate,
  requestIdOf,
  requireScope,
  sendSuccess,
  validate,
  type AuthenticateOptions,
  type IdempotencyKeys,
} from '@trustpoint/http';
import { Router, type Request, type Response } from 'express';
import { jsonCertificateDraft } from '../certificates/certificate-drafts.js';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { serviceVerdictOf, verifyCertificateJson } from '../certificates/verify-certificate.js';
import { certificateView } from '../certificates/certificate-view.js';
import { changeCertificateAccess } from '../certificates/change-certificate-access.js';
import { createCertificate } from '../certificates/create-certificate.js';
import { reanchorCertificate } from '../certificates/reanchor-certificate.js';
import { revokeCertificate } from '../certificates/revoke-certificate.js';
import { signCertificate } from '../certificates/sign-certificate.js';
import { listUserCertificates } from '../certificates/list-certificates.js';
import { certificateAskedFor, lookupParamsSchema } from './certificate-lookup-params.js';
import {
  createCertificateFromUpload,
  createCertificateFromUrl,
} from './file-and-url-certificates.js';
import { jsonCreation } from './creation-request.js';
import { certificatePdfLimit } from './certificate-pdf-limits.js';

/** 201 with the anchored certificate, or 202 with it pending and where to follow it. */
function answerCreated(req: Request, res: Response, record: CertificateRecord): void {
  const view = certificateView(record);
  const status = acknowledge(req, res, {
    anchored: view.status === 'anchored',
    location: `${req.baseUrl}/certificates/certID/${encodeURIComponent(view.certID)}`,
  });
  sendSuccess(
    res,
    status,
    status === 201 ? 'Certificate created successfully' : 'Certificate accepted, anchoring pending',
    view,
  );
}

/**
 * The certificate a request committed under its `Idempotency-Key` (its certID), read back for a
 * retry after the request died before answering: false when it is gone (withdrawn after a 503).
 */
async function ownCertificate(
  services: CertificateServices,
  res: Response,
  certId: string,
): Promise<CertificateRecord | undefined> {
  const record = await findCertificate(services.knex, 'certId', certId);
  return record?.userId === currentUser(res).id ? record : undefined;
}

export function certificatesRouter(
  services: CertificateServices,
  auth: AuthenticateOptions,
  /** The service's public origin, where the PDF's QR code sends its reader. */
  publicUrl: () => string,
  keys: IdempotencyKeys,
  /** The service's own trust (`serviceTrust`), for the verdict its PDFs print. */
  trust: () => Promise<Trust>,
  /** PDFs made at once in this process; `DEFAULT_CERTIFICATE_PDFS_AT_ONCE` by default. */
  pdfsAtOnce?: number,
): Router {
  const router = Router();
  const pdfs = certificatePdfLimit(pdfsAtOnce);
  // Before `idempotent`: a credential without the scope leaves no key behind. A public read
  // needs no token, but a token sent must hold `read`.
  const certify = requireScope('certify');
  const read = requireScope('read');

  const creation = idempotent(keys, {
    multipart: true,
    async recover(certId, req, res) {
      const record = await ownCertificate(services, res, certId);
      if (record === undefined) return false;
      answerCreated(req, res, record);
      return true;
    },
  });
  router.post('/certificates', authenticate(auth), certify, creation, async (req, res) => {
    if (req.query['type'] === 'file') {
      const record = await createCertificateFromUpload(services, req, res);
      // Undefined: the upload's key had an answer already, and it was sent.
      if (record !== undefined) answerCreated(req, res, record);
      return;
    }
    const creation = jsonCreation(services, req);
    const { query } = creation;
    if (creation.type === 'url') {
      answerCreated(
        req,
        res,
        await createCertificateFromUrl(services, query, creation.body, req, res),
      );
      return;
    }
    const draft = jsonCertificateDraft(String(query.networkId), creation);
    const record = await createCertificate(services, currentUser(res), draft, {
      qualified: query.qualified,
      acknowledgement: acknowledgementFor(req, services.networks.get(draft.networkId)),
      requestId: requestIdOf(res),
      idempotency: idempotencyClaimOf(res),
    });
    answerCreated(req, res, record);
  });

  router.get('/certificates', authenticate(auth), read, async (req, res) => {
    const query = validate(certificateListQuerySchema, req.query, 'query');
    const page = await listUserCertificates(services, currentUser(res).id, query);
    sendSuccess(
      res,
      200,
      `Retrieved ${String(page.certificates.length)} certificate(s) out of a total of ${String(page.pagination.total)}`,
      page,
    );
  });

  router.get('/certificates/:type/:id', optionalAuthenticate(auth), read, async (req, res) => {
    const record = await certificateAskedFor(services, req, res);
    sendSuccess(res, 200, 'Certificate retrieved successfully', certificateView(record));
  });

  router.get('/certificates/:type/:id/pdf', optionalAuthenticate(auth), read, async (req, res) => {
    const record = await certificateAskedFor(services, req, res);
    const view = certificateView(record);
    // The web verifier of the configured public origin, never one built from the request's Host
    // header: a printed QR code must not send its reader wherever a request said it came from.
    const verifyUrl = `${publicUrl()}${req.baseUrl}/verify/#certID=${encodeURIComponent(view.certID)}`;
    // A caller gone before its turn costs nothing more.
    const gone = new AbortController();
    res.once('close', () => {
      gone.abort();
    });
    const pdf = await pdfs.run(async () => {
      // The service's verifier on the JSON this PDF shows: the same verdict the page and CLI give.
      const checkedAt = services.now();
      const verdict = serviceVerdictOf(await verifyCertificateJson(services, view, await trust()));
      // pdf-lib and qrcode load with the first PDF asked for, not with the service.
      const { certificatePdf } = await import('../certificates/certificate-pdf.js');
      return certificatePdf({
        certificate: view,
        verifyUrl,
        verification: { verdict, checkedAt },
      });
    }, gone.signal);
    const name = `certificate-${view.certID.replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;
    res
      .status(200)
      .type('application/pdf')
      .set('Content-Disposition', `attachment; filename="${name}"`)
      .set('Cache-Control', 'private, no-store')
      .send(Buffer.from(pdf));
  });

  // Changing access and revoking are idempotent by themselves (the same request again makes the
  // same change, or none): the key only replays the first answer.
  router.patch(
    '/certificates/:type/:id',
    authenticate(auth),
    certify,
    idempotent(keys),
    async (req, res) => {
      const { type: lookup, id } = validate(lookupParamsSchema, req.params, 'path');
      const changes = validate(certificateAccessChangesBodySchema, req.body, 'body');
      const record = await changeCertificateAccess(
        services,
        currentUser(res),
        lookup,
        id,
        changes,
        requestIdOf(res),
      );
      sendSuccess(res, 200, 'Certificate updated successfully', certificateView(record));
    },
  );

  router.patch(
    '/certificates/:type/:id/revoke',
    authenticate(auth),
    certify,
    idempotent(keys),
    async (req, res) => {
      const { type: lookup, id } = validate(lookupParamsSchema, req.params, 'path');
      const { networkId } = validate(networkQuerySchema, req.query, 'query');
      const record = await revokeCertificate(
        services,
        currentUser(res),
        lookup,
        id,
        String(networkId),
        requestIdOf(res),
      );
      sendSuccess(res, 200, 'Certificate revoked successfully', certificateView(record));
    },
  );

  /**
   * The key of a change to an existing certificate: a retry after a crash between the commit and
   * the answer is answered with the certificate as it now is, as the first request would have been.
   */
  const changingOwn = (message: string) =>
    idempotent(keys, {
      async recover(certId, _req, res) {
        const record = await ownCertificate(services, res, certId);
        if (record === undefined) return false;
        sendSuccess(res, 201, message, certificateView(record));
        return true;
      },
    });
  const signing = changingOwn('Certificate signed successfully');
  router.post(
    '/certificates/:type/:id/signature',
    authenticate(auth),
    certify,
    signing,
    async (req, res) => {
      const { type: lookup, id } = validate(lookupParamsSchema, req.params, 'path');
      const { networkId } = validate(networkQuerySchema, req.query, 'query');
      const { certificate, created } = await signCertificate(
        services,
        currentUser(res),
        lookup,
        id,
        String(networkId),
        requestIdOf(res),
        idempotencyClaimOf(res),
      );
      // A repeated request creates nothing: 200 with the signature made the first time.
      sendSuccess(
        res,
        created ? 201 : 200,
        created ? 'Certificate signed successfully' : 'Certificate already signed',
        certificateView(certificate),
      );
    },
  );

  const reanchoring = changingOwn('Certificate re-anchored successfully');
  router.post(
    '/certificates/:type/:id/reanchor',
    authenticate(auth),
    certify,
    reanchoring,
    async (req, res) => {
      const { type: lookup, id } = validate(lookupParamsSchema, req.params, 'path');
      const { networkId } = validate(reanchorQuerySchema, req.query, 'query');
      const { certificate, created } = await reanchorCertificate(
        services,
        currentUser(res),
        lookup,
        id,
        networkId === undefined ? undefined : String(networkId),
        requestIdOf(res),
        idempotencyClaimOf(res),
      );
      // Already under version 2: 200 with the certificate as it is, nothing spent.
      sendSuccess(
        res,
        created ? 201 : 200,
        created
          ? 'Certificate re-anchored successfully'
          : 'Certificate already under hash version 2',
        certificateView(certificate),
      );
    },
  );

  return router;
}
