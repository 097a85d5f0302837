import { z } from 'zod';

import { assertDidNamespace, isDidNamespace } from './did-namespace.js';
import { InvalidIdentifierError } from './invalid-identifier-error.js';
import { isUuidV7 } from './uuid-v7.js';

/** The DID segment naming what a service identifier points at. */
export type ResourceIdKind = 'certid' | 'trackid';

export interface ParsedResourceId {
  namespace: string;
  /** The UUIDv7 part. */
  id: string;
}

/** `did:<namespace>:<kind>:<uuidv7>`; shared by certID and trackID. */
export function formatResourceId(kind: ResourceIdKind, namespace: string, id: string): string {
  assertDidNamespace(namespace);
  if (!isUuidV7(id)) {
    throw new InvalidIdentifierError(`Invalid ${kind} "${id}": expected a lowercase UUIDv7`);
  }
  return `did:${namespace}:${kind}:${id}`;
}

/**
 * Parses `did:<namespace>:<kind>:<uuidv7>`. With `expectedNamespace`, an id minted by another
 * deployment is rejected rather than looked up.
 */
export function parseResourceId(
  kind: ResourceIdKind,
  value: string,
  expectedNamespace?: string,
): ParsedResourceId {
  const parts = value.split(':');
  const [scheme, namespace, foundKind, id] = parts;
  if (
    parts.length !== 4 ||
    scheme !== 'did' ||
    namespace === undefined ||
    !isDidNamespace(namespace) ||
    foundKind !== kind ||
    id === undefined ||
    !isUuidV7(id)
  ) {
    throw new InvalidIdentifierError(`Invalid ${kind}: expected did:<namespace>:${kind}:<uuidv7>`);
  }
  if (expectedNamespace !== undefined && namespace !== expectedNamespace) {
    throw new InvalidIdentifierError(
      `Invalid ${kind}: namespace "${namespace}" is not "${expectedNamespace}"`,
    );
  }
  return { namespace, id };
}

export function isResourceId(
  kind: ResourceIdKind,
  value: string,
  expectedNamespace?: string,
): boolean {
  try {
    parseResourceId(kind, value, expectedNamespace);
    return true;
  } catch {
    return false;
  }
}

export function resourceIdSchema(kind: ResourceIdKind, expectedNamespace?: string) {
  const namespaceHint = expectedNamespace ?? '<namespace>';
  return z.string().refine((value) => isResourceId(kind, value, expectedNamespace), {
    message: `Expected did:${namespaceHint}:${kind}:<uuidv7>`,
  });
}
