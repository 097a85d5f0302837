import { InvalidIdentifierError } from './invalid-identifier-error.js';

/**
 * The `<ns>` of `did:<ns>:certid:<id>`: lowercase letters and digits only, which is the DID
 * method-name grammar, so every id the service mints is a syntactically valid DID.
 */
export const DID_NAMESPACE_PATTERN = /^[a-z0-9]+$/;

export const DEFAULT_DID_NAMESPACE = 'trustpoint';

export function isDidNamespace(value: string): boolean {
  return DID_NAMESPACE_PATTERN.test(value);
}

export function assertDidNamespace(value: string): void {
  if (!isDidNamespace(value)) {
    throw new InvalidIdentifierError(
      `Invalid DID namespace "${value}": use lowercase letters and digits only`,
    );
  }
}
