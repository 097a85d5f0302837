import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import diff, { type Difference } from 'microdiff';

/**
 * The documents committed here, by file name (`documents/<name>.json`): where each API serves its
 * own, and the command that writes the file again from the API's code.
 */
export const COMMITTED_DOCUMENTS = {
  'cert-api': {
    served: 'GET /cert/v2/openapi.json',
    rewrite: 'pnpm --filter @trustpoint/cert-api write-openapi',
  },
  'track-api': {
    served: 'GET /track/v2/openapi.json',
    rewrite: 'pnpm --filter @trustpoint/track-api write-openapi',
  },
  'admin-api': {
    served: 'GET /admin/v1/openapi.json',
    rewrite: 'pnpm --filter @trustpoint/admin write-openapi',
  },
} as const;

export type DocumentName = keyof typeof COMMITTED_DOCUMENTS;

/** The committed file of an API's document. */
export function documentPath(name: DocumentName): string {
  return join(__dirname, '..', 'documents', `${name}.json`);
}

/** A document as its file holds it: the JSON the API serves, pretty-printed with two spaces. */
export function documentText(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

const CHANGES: Record<Difference['type'], string> = {
  CREATE: 'served, not in the file',
  REMOVE: 'in the file, no longer served',
  CHANGE: 'changed',
};

/**
 * Where the committed document first differs from the served one, as a JSON pointer (RFC 6901)
 * and what changed there; undefined when they hold the same values.
 */
export function firstDifference(committed: unknown, served: object): string | undefined {
  const normalized = JSON.parse(JSON.stringify(served)) as object;
  if (typeof committed !== 'object' || committed === null) return '/ (no document in the file)';
  const [first] = diff(committed, normalized);
  if (first === undefined) return undefined;
  const pointer = first.path
    .map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
  return `${pointer} (${CHANGES[first.type]})`;
}

export interface DocumentCheck {
  /** The committed file. */
  path: string;
  /** What it should hold. */
  text: string;
  /** What a test says when it holds something else: the first difference and how to rewrite it. */
  message: string;
}

/**
 * What an API's drift test compares: the served document's text with the committed file's
 * (`expect(check.text, check.message).toMatchFileSnapshot(check.path)`, which `--update` rewrites).
 */
export async function checkCommittedDocument(
  name: DocumentName,
  served: object,
): Promise<DocumentCheck> {
  const path = documentPath(name);
  const committed = await readFile(path, 'utf8').then(
    (text): unknown => JSON.parse(text),
    () => undefined,
  );
  const where = firstDifference(committed, served);
  const { served: route, rewrite } = COMMITTED_DOCUMENTS[name];
  return {
    path,
    text: documentText(served),
    message:
      `packages/openapi/documents/${name}.json differs from the document the API serves ` +
      `(${route})${where === undefined ? '' : `, first at ${where}`}: rewrite it with \`${rewrite}\``,
  };
}
