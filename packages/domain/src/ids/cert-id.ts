import {
  formatResourceId,
  isResourceId,
  parseResourceId,
  resourceIdSchema,
  type ParsedResourceId,
} from './resource-id.js';
import { newUuidV7, type UuidV7Generator } from './uuid-v7.js';

/** Certificate identifier `did:<ns>:certid:<uuidv7>` (DESIGN.md section 4). */

export function newCertId(namespace: string, generate: UuidV7Generator = newUuidV7): string {
  return formatCertId(namespace, generate());
}

export function formatCertId(namespace: string, id: string): string {
  return formatResourceId('certid', namespace, id);
}

export function parseCertId(value: string, expectedNamespace?: string): ParsedResourceId {
  return parseResourceId('certid', value, expectedNamespace);
}

export function isCertId(value: string, expectedNamespace?: string): boolean {
  return isResourceId('certid', value, expectedNamespace);
}

/** Validates a certID; pass the deployment's namespace to accept only its own ids. */
export function certIdSchema(expectedNamespace?: string) {
  return resourceIdSchema('certid', expectedNamespace);
}
