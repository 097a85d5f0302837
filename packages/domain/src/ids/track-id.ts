import {
  formatResourceId,
  isResourceId,
  parseResourceId,
  resourceIdSchema,
  type ParsedResourceId,
} from './resource-id.js';
import { newUuidV7, type UuidV7Generator } from './uuid-v7.js';

/** Asset record identifier `did:<ns>:trackid:<uuidv7>` (DESIGN.md section 4). */

export function newTrackId(namespace: string, generate: UuidV7Generator = newUuidV7): string {
  return formatTrackId(namespace, generate());
}

export function formatTrackId(namespace: string, id: string): string {
  return formatResourceId('trackid', namespace, id);
}

export function parseTrackId(value: string, expectedNamespace?: string): ParsedResourceId {
  return parseResourceId('trackid', value, expectedNamespace);
}

export function isTrackId(value: string, expectedNamespace?: string): boolean {
  return isResourceId('trackid', value, expectedNamespace);
}

/** Validates a trackID; pass the deployment's namespace to accept only its own ids. */
export function trackIdSchema(expectedNamespace?: string) {
  return resourceIdSchema('trackid', expectedNamespace);
}
