import { checkCommittedDocument } from '@trustpoint/openapi';
import { describe, expect, it } from 'vitest';
import { adminApiDocument } from '../src/admin-openapi.js';

describe('the committed OpenAPI document', () => {
  it('when the document the API serves is built, then packages/openapi/documents/admin-api.json holds it', async () => {
    // Arrange: as `trustpoint start` serves it at /admin/v1/openapi.json, beside the certificate API.
    const served = adminApiDocument();

    // Act
    const check = await checkCommittedDocument('admin-api', served);

    // Assert: `write-openapi` runs this test with --update, which rewrites the file.
    await expect(check.text, check.message).toMatchFileSnapshot(check.path);
  });
});
