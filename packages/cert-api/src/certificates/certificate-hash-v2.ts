import type { CertificateHashV2, CertificateRecord } from '@trustpoint/db';
import {
  createDisclosableCertificate,
  DomainError,
  formatDisclosurePath,
  formatUserDid,
  SelectiveDisclosureError,
  type DisclosurePath,
  type JsonObject,
} from '@trustpoint/domain';

/** What the version 2 root covers of a certificate, besides its certID. */
export type HashedFields = Pick<
  CertificateRecord,
  'type' | 'name' | 'description' | 'content' | 'issuedOn' | 'expires' | 'fileHash' | 'userId'
>;

/**
 * The content fields the service itself recorded, kept in clear so that no copy can hide what the
 * hash is of: a file's name, media type and size (`content.file`), everything a URL certificate
 * records of its fetch, and an asset certificate's `assetId`. The rest of the content is the
 * caller's: each member and element can be withheld by a holder.
 */
function inClearOf(fields: HashedFields): DisclosurePath[] {
  switch (fields.type) {
    case 'file':
      return [['content', 'file']];
    case 'url':
      return Object.keys(fields.content).map((name) => ['content', name]);
    case 'asset':
      return [['content', 'assetId']];
    case 'content':
      return [];
  }
}

/**
 * The most bytes a certificate as the service issues it may take, and what `POST
 * /trustpoints/verification` accepts, so that every copy the service issues can be posted back: 4
 * MiB, for content up to the 1 MiB of a JSON request shows twice in its certificate (in clear and
 * disclosed) and each field adds a salted disclosure.
 */
export const ISSUED_CERTIFICATE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * What an issued certificate holds besides its content and disclosures, at most: name, description,
 * externalId and the other shown fields with every character escaped, its PIN encrypted, 64
 * trustpoints of metadata, the envelope, the content members the service keeps in clear.
 */
const ISSUED_CERTIFICATE_ALLOWANCE_BYTES = 128 * 1024;

/** A digest in the hashed content's `_sd`, with its quotes and comma. */
const DIGEST_REFERENCE_BYTES = 46;

/**
 * The size of the issued certificate at most: its disclosures (each with quotes and a comma in
 * `selectiveDisclosure.disclosures`, their lengths summed without serialising anything again), the
 * digests of the top-level members in the hashed content (nested ones are inside their parent's
 * disclosure), and `data.content` as JSON, the one serialisation this adds.
 */
function issuedBytesAtMost(
  disclosures: readonly string[],
  hashedContent: JsonObject,
  content: unknown,
): number {
  let bytes = ISSUED_CERTIFICATE_ALLOWANCE_BYTES;
  for (const disclosure of disclosures) bytes += disclosure.length + 3;
  const topLevel = Array.isArray(hashedContent._sd) ? hashedContent._sd.length : 0;
  bytes += topLevel * DIGEST_REFERENCE_BYTES;
  // In-clear members (a file's name, a URL's fetch, an assetId) are bounded by their schemas and
  // counted in the allowance.
  bytes += Buffer.byteLength(JSON.stringify(content));
  return bytes;
}

/**
 * The certificate hash, version 2 (issue #24, `@trustpoint/verifier`'s README): the root over
 * every shown field, with fresh 128-bit salts, to anchor as the Evidence and show as `data.hash`;
 * and what to store with it. `issuerOrigin` is the service's configured public origin, when it has
 * one; `issuerDomain` the domain the issuing account had proven, when it had one. Content JSON
 * cannot carry interoperably (an integer beyond 2^53 − 1) or a member named
 * `_sd` or `...` is a 400 on the field, before anything is stored or spent; so is content whose
 * certificate would take more than `ISSUED_CERTIFICATE_MAX_BYTES` (every member and element is a
 * disclosure of its own, so 60,000 small numbers make megabytes).
 */
export function certificateHashV2(
  certId: string,
  fields: HashedFields,
  issuerOrigin: string | undefined,
  issuerDomain?: string,
  /**
   * Whether to refuse content too large to post back (creation). A certificate issued before this
   * bound was kept is re-anchored as it is: its holders already have it.
   */
  { boundIssuedSize = false }: { boundIssuedSize?: boolean } = {},
): CertificateHashV2 {
  try {
    const { hash, certificate } = createDisclosableCertificate(
      {
        certID: certId,
        data: {
          type: fields.type,
          name: fields.name,
          description: fields.description,
          issuer: formatUserDid(fields.userId),
          ...(issuerOrigin === undefined ? {} : { issuerOrigin }),
          ...(issuerDomain === undefined ? {} : { issuerDomain }),
          issuedOn: fields.issuedOn,
          ...(fields.expires === null ? {} : { expires: fields.expires }),
          ...(fields.fileHash === null ? {} : { fileHash: fields.fileHash }),
          content: fields.content as JsonObject,
        },
      },
      { inClear: inClearOf(fields) },
    );
    const { disclosures, content } = certificate.data.selectiveDisclosure;
    if (
      boundIssuedSize &&
      issuedBytesAtMost(disclosures, content, fields.content) > ISSUED_CERTIFICATE_MAX_BYTES
    ) {
      throw new DomainError('validation', {
        detail: `the issued certificate would take more than ${String(ISSUED_CERTIFICATE_MAX_BYTES)} bytes`,
        errors: [
          {
            field: 'body.content',
            error:
              `Too large to certify: its ${String(disclosures.length)} fields (every member and ` +
              'array element, each disclosed with its own salt) would make a certificate larger ' +
              'than POST /trustpoints/verification accepts (4 MiB); certify fewer or smaller ' +
              'fields, or the data as a file (type=file)',
          },
        ],
      });
    }
    return {
      hash,
      issuerOrigin: issuerOrigin ?? null,
      issuerDomain: issuerDomain ?? null,
      selectiveDisclosure: certificate.data.selectiveDisclosure,
    };
  } catch (error) {
    if (!(error instanceof SelectiveDisclosureError)) throw error;
    throw new DomainError('validation', {
      detail: `certificate hash version 2 refused the certificate: ${error.message}`,
      errors: [{ field: requestFieldOf(fields.type, error.path), error: messageOf(error) }],
      cause: error,
    });
  }
}

/** Where a refused field came from in the creation request. */
function requestFieldOf(type: HashedFields['type'], path: DisclosurePath | undefined): string {
  if (path === undefined || path.length === 0) return 'body';
  // An asset certificate's content is the body's assetId, from, to and content.
  const inBody = type === 'asset' && path[0] === 'content' ? path.slice(1) : path;
  if (inBody.length === 0) return 'body';
  // `data.name` and the like were `name` in the request.
  const [first, ...rest] = inBody;
  return `body.${formatDisclosurePath(first === 'data' ? rest : inBody)}`;
}

function messageOf(error: SelectiveDisclosureError): string {
  switch (error.code) {
    case 'notIJson':
      return 'Numbers must be integers within ±(2^53 − 1) or finite decimals (I-JSON, RFC 7493)';
    case 'reservedName':
      return 'Reserved: members named _sd or ... would read as selective-disclosure syntax';
    default:
      return error.message;
  }
}
