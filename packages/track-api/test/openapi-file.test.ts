import { checkCommittedDocument } from '@trustpoint/openapi';
import { describe, expect, it } from 'vitest';
import { trackApiDocument } from '../src/openapi/track-api-document.js';

describe('the committed OpenAPI document', () => {
  it('when the document the API serves is built, then packages/openapi/documents/track-api.json holds it', async () => {
    // Arrange: as `trustpoint start` serves it at /track/v2/openapi.json, with the webhook routes.
    const served = trackApiDocument({ webhooks: true });

    // Act
    const check = await checkCommittedDocument('track-api', served);

    // Assert: `write-openapi` runs this test with --update, which rewrites the file.
    await expect(check.text, check.message).toMatchFileSnapshot(check.path);
  });
});
