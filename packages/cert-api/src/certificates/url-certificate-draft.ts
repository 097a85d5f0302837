import type { UrlCertificateBody } from '@trustpoint/domain';
import type { FetchedUrl } from '../url-fetch/fetch-url.js';
import { commonDraftFields } from './certificate-drafts.js';
import type { CertificateDraft } from './create-certificate.js';

/**
 * A URL certificate: its unsalted digest is `doubleHash(bytes received)`, `fileHash` their
 * sha256; `data.content` records what was
 * fetched (DESIGN.md 3): `url`, `finalUrl` when redirected, `mediaType`, `size` and `fetchedAt`
 * (milliseconds since the epoch), so a reader can fetch it again and compare.
 */
export function urlCertificateDraft(
  networkId: string,
  body: UrlCertificateBody,
  fetched: FetchedUrl,
  fetchedAt: number,
): CertificateDraft {
  const redirected = fetched.finalUrl !== new URL(body.url).href;
  return {
    ...commonDraftFields(body),
    type: 'url',
    networkId,
    content: {
      url: body.url,
      ...(redirected ? { finalUrl: fetched.finalUrl } : {}),
      mediaType: fetched.mediaType,
      size: fetched.size,
      fetchedAt,
    },
    hash: fetched.hash,
    // Version 2 covers the bytes through their sha256 (`data.fileHash`).
    fileHash: fetched.fileHash,
  };
}
