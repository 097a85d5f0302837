import {
  assetCertificateHash,
  contentCertificateHash,
  type AssetCertificateBody,
  type ContentCertificateBody,
} from '@trustpoint/domain';
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

/** A JSON creation body, once validated (`creationRequest`), by its certificate type. */
export type JsonCertificateBody =
  { type: 'content'; body: ContentCertificateBody } | { type: 'asset'; body: AssetCertificateBody };

/**
 * Hashes a validated JSON creation body by the rule of its certificate type. File and URL
 * certificates have drafts of their own (file-certificate-draft.ts, url-certificate-draft.ts).
 */
export function jsonCertificateDraft(
  networkId: string,
  { type, body }: JsonCertificateBody,
): CertificateDraft {
  switch (type) {
    case 'content':
      return {
        ...commonDraftFields(body),
        type: 'content',
        networkId,
        content: body.content,
        hash: contentCertificateHash(body.content),
        fileHash: null,
      };
    case 'asset': {
      // The certificate shows exactly the object that was hashed, so anyone can hash it again.
      const hashed = {
        assetId: body.assetId,
        ...(body.from === undefined ? {} : { from: body.from }),
        ...(body.to === undefined ? {} : { to: body.to }),
        ...(body.content === undefined ? {} : { content: body.content }),
      };
      return {
        ...commonDraftFields(body),
        type: 'asset',
        networkId,
        content: hashed,
        hash: assetCertificateHash(hashed),
        fileHash: null,
      };
    }
  }
}
