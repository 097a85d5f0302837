import {
  authenticate,
  currentUser,
  requireScope,
  sendSuccess,
  validate,
  type AuthenticateOptions,
} from '@trustpoint/http';
import { textSchema } from '@trustpoint/domain';
import { Router } from 'express';
import { z } from 'zod';
import type { CertificateServices } from '../certificates/certificate-services.js';
import {
  checkDomain,
  claimDomain,
  issuerDomainOf,
  listDomains,
  releaseDomain,
  showDomain,
} from '../issuer-domains/issuer-domains.js';

export const claimIssuerDomainBodySchema = z.object({
  domain: textSchema().min(1).max(253).meta({
    description: 'The domain to issue in the name of, e.g. university.example (any case, Unicode)',
  }),
});

export const issuerDomainParamsSchema = z.object({ domain: textSchema().min(1).max(253) });

/**
 * The domains a customer proves to issue in the name of: claim one (the DNS record to publish is
 * in the answer), list and show them, have the service check the record, withdraw a claim.
 * Reading needs the scope `read`; the rest `certify`, since it changes what certificates name.
 */
export function issuerDomainsRouter(
  services: CertificateServices,
  auth: AuthenticateOptions,
): Router {
  const router = Router();
  const read = requireScope('read');
  const certify = requireScope('certify');
  const domainOf = (params: unknown) =>
    issuerDomainOf(validate(issuerDomainParamsSchema, params, 'path').domain, 'path.domain');

  router.post('/issuer-domains', authenticate(auth), certify, async (req, res) => {
    const body = validate(claimIssuerDomainBodySchema, req.body, 'body');
    const domain = issuerDomainOf(body.domain, 'body.domain');
    const { claim, created } = await claimDomain(services, currentUser(res).id, domain);
    sendSuccess(
      res,
      created ? 201 : 200,
      created
        ? `Domain claimed: publish the TXT record ${claim.record.name}, then ask for a check`
        : 'Domain already claimed',
      claim,
    );
  });

  router.get('/issuer-domains', authenticate(auth), read, async (_req, res) => {
    const claims = await listDomains(services, currentUser(res).id);
    sendSuccess(res, 200, `Retrieved ${String(claims.length)} domain(s)`, claims);
  });

  router.get('/issuer-domains/:domain', authenticate(auth), read, async (req, res) => {
    const claim = await showDomain(services, currentUser(res).id, domainOf(req.params));
    sendSuccess(res, 200, 'Domain retrieved', claim);
  });

  router.post('/issuer-domains/:domain/check', authenticate(auth), certify, async (req, res) => {
    const { claim, check } = await checkDomain(services, currentUser(res).id, domainOf(req.params));
    sendSuccess(
      res,
      200,
      claim.status === 'proven'
        ? 'Domain proven: new certificates name it'
        : `Domain not proven: ${check.detail}`,
      { ...claim, check },
    );
  });

  router.delete('/issuer-domains/:domain', authenticate(auth), certify, async (req, res) => {
    const domain = domainOf(req.params);
    await releaseDomain(services, currentUser(res).id, domain);
    sendSuccess(res, 200, 'Domain released: new certificates no longer name it', { domain });
  });

  return router;
}
