import { z } from 'zod';
import { describe, expect, it } from 'vitest';

import {
  addEvidenceBodySchema,
  assetCertificateBodySchema,
  assetListQuerySchema,
  assetListSchema,
  certificateListQuerySchema,
  certificateListSchema,
  certificateSchema,
  contentCertificateBodySchema,
  createAssetBodySchema,
  createCertificateQuerySchema,
  errorBodySchema,
  fileCertificateBodySchema,
  urlCertificateBodySchema,
} from '../src/index.js';

/** The schema itself: one named with `.meta({ id })` is exported as a `$ref` into `$defs`. */
function rootOf(jsonSchema: z.core.JSONSchema.BaseSchema): z.core.JSONSchema.BaseSchema {
  const name = jsonSchema.$ref?.replace('#/$defs/', '');
  const root = name === undefined ? jsonSchema : jsonSchema.$defs?.[name];
  if (typeof root !== 'object') throw new Error(`unresolved root ${String(jsonSchema.$ref)}`);
  return root;
}

// The apps build their OpenAPI documents from these schemas (DESIGN.md section 7).
describe('JSON Schema export', () => {
  it.each([
    ['addEvidenceBody', addEvidenceBodySchema],
    ['assetCertificateBody', assetCertificateBodySchema],
    ['assetListQuery', assetListQuerySchema],
    ['certificateListQuery', certificateListQuerySchema],
    ['contentCertificateBody', contentCertificateBodySchema],
    ['createAssetBody', createAssetBodySchema],
    ['createCertificateQuery', createCertificateQuerySchema],
    ['fileCertificateBody', fileCertificateBodySchema],
    ['urlCertificateBody', urlCertificateBodySchema],
  ] as const)(
    'when exporting the %s request schema, then it is a closed object schema',
    (_, schema) => {
      const jsonSchema = rootOf(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));

      expect(jsonSchema.type).toBe('object');
      expect(jsonSchema.additionalProperties).toBe(false);
    },
  );

  it.each([
    ['certificate', certificateSchema],
    ['certificateList', certificateListSchema],
    ['assetList', assetListSchema],
    ['errorBody', errorBodySchema],
  ] as const)('when exporting the %s response schema, then it converts', (_, schema) => {
    expect(rootOf(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })).type).toBe(
      'object',
    );
  });
});
