import { createHash } from 'node:crypto';

/** What one upload of `trustpoint certify` sends: the same for a retry and for a rerun. */
export interface CertifyRequest {
  fileHash: string;
  /** The file's path in the folder: the certificate's name. */
  path: string;
  description: string;
  public: boolean;
  networkId: string;
}

/**
 * The upload's `Idempotency-Key`, made from what it sends rather than drawn at random, so that a
 * rerun after a stop (the CLI killed mid-upload) sends the key its first run did and gets the
 * certificate that run made. Another description or network makes another key, as it makes
 * another request.
 */
export function certifyKey(request: CertifyRequest): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        request.fileHash,
        request.path,
        request.description,
        request.public,
        request.networkId,
      ]),
    )
    .digest('hex');
  return `trustpoint-certify-${digest}`;
}
