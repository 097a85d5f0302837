import {
  assetCertificateBodySchema,
  assetCertificateHash,
  contentCertificateBodySchema,
  contentCertificateHash,
  type CreateCertificateQuery,
} from '@trustpoint/domain';
import { validate } from '@trustpoint/http';
import type { CertificateDraft } from './create-certificate.js';

type CommonFields = Pick<
  CertificateDraft,
  'name' | 'description' | 'expires' | 'public' | 'certificatePin' | 'externalId'
>;

/** The fields every kind of creation body shares, as a draft holds them. */
export function commonDraftFields(body: {
  name: string;
  description: string;
  expires?: number | undefined;
  public?: boolean | undefined;
  certificatePin?: string | undefined;
  externalId?: string | undefined;
}): CommonFields {
  return {
    name: body.name,
    description: body.description,
    expires: body.expires ?? null,
    public: body.public ?? false,
    certificatePin: body.certificatePin ?? null,
    externalId: body.externalId ?? null,
  };
}

/**
 * Validates a JSON creation body and hashes it by the rule of its certificate type. File and URL
 * certificates have drafts of their own (file-certificate-draft.ts, url-certificate-draft.ts).
 */
export function jsonCertificateDraft(
  query: CreateCertificateQuery,
  body: unknown,
): CertificateDraft {
  const networkId = String(query.networkId);
  switch (query.type) {
    case 'content': {
      const parsed = validate(contentCertificateBodySchema, body, 'body');
      return {
        ...commonDraftFields(parsed),
        type: 'content',
        networkId,
        content: parsed.content,
        hash: contentCertificateHash(parsed.content),
        fileHash: null,
      };
    }
    case 'asset': {
      const parsed = validate(assetCertificateBodySchema, body, 'body');
      // The certificate shows exactly the object that was hashed, so anyone can hash it again.
      const hashed = {
        assetId: parsed.assetId,
        ...(parsed.from === undefined ? {} : { from: parsed.from }),
        ...(parsed.to === undefined ? {} : { to: parsed.to }),
        ...(parsed.content === undefined ? {} : { content: parsed.content }),
      };
      return {
        ...commonDraftFields(parsed),
        type: 'asset',
        networkId,
        content: hashed,
        hash: assetCertificateHash(hashed),
        fileHash: null,
      };
    }
    case 'file':
    case 'url':
      // The router sends these to their own handlers; reaching here is a programming error.
      throw new Error(`${query.type} certificates are not created from a JSON draft`);
  }
}
