import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

import type { JsonObject } from '../src/index.js';

/** Shape of test/vectors/disclosure-v2.json (README, "Certificate hash, version 2"). */

const described = { description: z.string().min(1) };
const hash = z.string().regex(/^[0-9a-f]{64}$/);
const digest = z.string().regex(/^[A-Za-z0-9_-]{43}$/);
const path = z.array(z.union([z.string(), z.number().int().nonnegative()]));
const jsonObject = z.custom<JsonObject>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
);
const certificate = z.object({ certID: z.string(), data: jsonObject });

const withheldField = z.union([
  z.strictObject({ kind: z.literal('member'), objectPath: path, digest }),
  z.strictObject({ kind: z.literal('element'), path, digest }),
]);

const vector = z.strictObject({
  ...described,
  input: z.strictObject({
    certificate,
    inClear: z.array(path),
    salts: z.array(z.strictObject({ path, salt: z.string() })),
  }),
  expected: z.strictObject({
    disclosures: z.array(
      z.strictObject({
        path,
        encoded: z.string(),
        digest,
        decoded: z.array(z.json()).min(2).max(3),
      }),
    ),
    payload: jsonObject,
    canonicalPayload: z.string(),
    hash,
    certificate,
  }),
  withhold: z.array(
    z.strictObject({
      ...described,
      paths: z.array(path),
      expected: z.strictObject({
        disclosures: z.array(z.string()),
        content: jsonObject,
        withheld: z.array(withheldField),
      }),
    }),
  ),
  tampered: z.array(
    z.strictObject({
      ...described,
      /** The members of `data` changed; `null` removes one. */
      data: z.record(z.string(), z.json()),
      expectedHash: hash,
    }),
  ),
});

const vectorFile = z.strictObject({
  ...described,
  rule: z.strictObject({ version: z.literal(2), domain: z.string(), sdAlg: z.literal('sha-256') }),
  vectors: z.array(vector).min(1),
});

export type DisclosureVector = z.infer<typeof vector>;

export function loadDisclosureVectors(): z.infer<typeof vectorFile> {
  const text = readFileSync(join(__dirname, 'vectors', 'disclosure-v2.json'), 'utf8');
  return vectorFile.parse(JSON.parse(text));
}
