import {
  assetCertificateBodySchema,
  assetCertificateHash,
  contentCertificateBodySchema,
  contentCertificateHash,
  DomainError,
  type CreateCertificateQuery,
} from '@trustpoint/domain';
import { validate } from '@trustpoint/http';
import type { CertificateDraft } from './create-certificate.js';

type CommonFields = Pick<
  CertificateDraft,
  'name' | 'description' | 'expires' | 'public' | 'certificatePin' | 'externalId'
>;

function common(body: {
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

/** Validates a JSON creation body and hashes it by the rule of its certificate type. */
export function jsonCertificateDraft(
  query: CreateCertificateQuery,
  body: unknown,
): CertificateDraft {
  const networkId = String(query.networkId);
  switch (query.type) {
    case 'content': {
      const parsed = validate(contentCertificateBodySchema, body, 'body');
      return {
        ...common(parsed),
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
        ...common(parsed),
        type: 'asset',
        networkId,
        content: hashed,
        hash: assetCertificateHash(hashed),
        fileHash: null,
      };
    }
    case 'file':
    case 'url':
      throw new DomainError('validation', {
        detail: `certificate type ${query.type} is not served by this version`,
        errors: [
          { field: 'type', error: `Certificates of type ${query.type} are not available yet` },
        ],
      });
  }
}
