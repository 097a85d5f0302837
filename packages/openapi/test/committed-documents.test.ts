import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  checkCommittedDocument,
  COMMITTED_DOCUMENTS,
  documentPath,
  firstDifference,
  type DocumentName,
} from '../src/index.js';

const DOCUMENT = {
  openapi: '3.1.0',
  paths: { '/users/{id}': { get: { summary: 'A user', tags: ['Users'] } } },
};

describe('the first difference', () => {
  it('when the documents hold the same values, then there is none', () => {
    expect(firstDifference(structuredClone(DOCUMENT), DOCUMENT)).toBeUndefined();
  });

  it('when a value changed under a path with a slash, then it is named by its JSON pointer', () => {
    // Arrange
    const served = structuredClone(DOCUMENT);
    served.paths['/users/{id}'].get.summary = 'One user';

    // Act / Assert
    expect(firstDifference(DOCUMENT, served)).toBe('/paths/~1users~1{id}/get/summary (changed)');
  });

  it('when the API serves a member the file lacks, or no longer serves one it holds, then it says which', () => {
    const served = { ...DOCUMENT, servers: [{ url: '/admin/v1' }] };

    expect(firstDifference(DOCUMENT, served)).toBe('/servers (served, not in the file)');
    expect(firstDifference(served, DOCUMENT)).toBe('/servers (in the file, no longer served)');
  });

  it('when a member the API serves is undefined, then it counts as absent, as in the JSON it sends', () => {
    expect(firstDifference(DOCUMENT, { ...DOCUMENT, info: undefined })).toBeUndefined();
  });
});

describe('the committed documents', () => {
  const names = Object.keys(COMMITTED_DOCUMENTS) as DocumentName[];

  it.each(names)(
    'when %s.json is read, then it is an OpenAPI 3.1 document served where it says',
    async (name) => {
      // Act
      const document = JSON.parse(await readFile(documentPath(name), 'utf8')) as {
        openapi: string;
        servers: { url: string }[];
        paths: object;
      };

      // Assert
      expect(document.openapi).toBe('3.1.0');
      const [, basePath] = COMMITTED_DOCUMENTS[name].served.split(' ');
      expect(`${document.servers[0]?.url ?? ''}/openapi.json`).toBe(basePath);
      expect(Object.keys(document.paths).length).toBeGreaterThan(5);
    },
  );

  it('when a served document differs from the file, then the check names the file, the first difference and the command that rewrites it', async () => {
    // Arrange
    const committed = JSON.parse(await readFile(documentPath('admin-api'), 'utf8')) as {
      info: { title: string };
    };
    const served = { ...committed, info: { ...committed.info, title: 'Another API' } };

    // Act
    const check = await checkCommittedDocument('admin-api', served);

    // Assert
    expect(check.message).toBe(
      'packages/openapi/documents/admin-api.json differs from the document the API serves ' +
        '(GET /admin/v1/openapi.json), first at /info/title (changed): rewrite it with ' +
        '`pnpm --filter @trustpoint/admin write-openapi`',
    );
    expect(check.text).toBe(`${JSON.stringify(served, null, 2)}\n`);
  });
});
