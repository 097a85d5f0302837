import { describe, expect, it } from 'vitest';
import {
  GENERATED_FROM,
  readCommittedTypes,
  renderGeneratedTypes,
} from '../scripts/generate-types.mjs';

describe('generated types', () => {
  it('when rendered again from the committed OpenAPI documents, then they equal the committed types', async () => {
    // Arrange / Act
    const rendered = await renderGeneratedTypes();
    const committed = await readCommittedTypes(Object.keys(rendered));

    // Assert: on a difference, run `pnpm --filter @trustpoint/sdk generate` and commit the result.
    expect(Object.keys(rendered).sort()).toEqual([
      'admin-api.d.ts',
      'cert-api.d.ts',
      'track-api.d.ts',
    ]);
    for (const [name, text] of Object.entries(rendered)) {
      expect(
        committed[name],
        `src/generated/${name} is stale: regenerate it from packages/openapi/documents/${GENERATED_FROM[name] ?? '?'} with \`pnpm --filter @trustpoint/sdk generate\``,
      ).toBe(text);
    }
  });
});
