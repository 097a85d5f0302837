import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

/**
 * Shape of test-vectors.json. Parsing the file with this schema in the tests keeps the documented
 * format (README "Test vectors") and the file in step: a renamed or missing field fails loudly.
 */

const described = { description: z.string().min(1) };
const hash = z.string().regex(/^[0-9a-f]{64}$/);
const hex0x = z.string().regex(/^0x[0-9a-f]*$/);

type BytesInput = { utf8: string } | { hex: string } | { repeat: BytesInput & { count: number } };

const bytesInputSchema: z.ZodType<BytesInput> = z.union([
  z.strictObject({ utf8: z.string() }),
  z.strictObject({ hex: z.string().regex(/^(?:[0-9a-f]{2})*$/) }),
  z.strictObject({
    repeat: z.union([
      z.strictObject({ utf8: z.string(), count: z.number().int().positive() }),
      z.strictObject({ hex: z.string(), count: z.number().int().positive() }),
    ]),
  }),
]);

const jsonObject = z.record(z.string(), z.json());

const hashVector = z.strictObject({ ...described, input: bytesInputSchema, expected: hash });

const fileSchema = z.strictObject({
  about: z.string(),
  version: z.literal(1),
  conventions: z.record(z.string(), z.string()),
  sha256: z.array(hashVector).min(1),
  doubleHash: z.array(hashVector.extend({ innerDigestHex: hash })).min(1),
  canonicalJson: z.strictObject({
    values: z
      .array(
        z.strictObject({
          ...described,
          inputJsonText: z.string(),
          expected: z.string(),
          expectedUtf8Hex: z.string(),
          expectedSha256: hash,
        }),
      )
      .min(1),
    numbers: z
      .array(
        z.union([
          z.strictObject({ ...described, ieee754Hex: z.string().length(16), expected: z.string() }),
          z.strictObject({
            ...described,
            ieee754Hex: z.string().length(16),
            rejected: z.literal(true),
          }),
        ]),
      )
      .min(1),
  }),
  certificateHash: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({
          ...described,
          type: z.literal('file'),
          input: z.strictObject({ file: bytesInputSchema }),
          expected: z.strictObject({ hash, fileHash: hash, size: z.number().int().nonnegative() }),
        }),
        z.strictObject({
          ...described,
          type: z.literal('content'),
          input: z.strictObject({ content: jsonObject }),
          canonical: z.string(),
          expected: z.strictObject({ hash }),
        }),
        z.strictObject({
          ...described,
          type: z.literal('asset'),
          input: z.strictObject({
            assetId: z.string(),
            from: z.union([z.number(), z.string()]).optional(),
            to: z.union([z.number(), z.string()]).optional(),
            content: jsonObject.optional(),
          }),
          canonical: z.string(),
          expected: z.strictObject({ hash }),
        }),
        z.strictObject({
          ...described,
          type: z.literal('url'),
          input: z.strictObject({ bytesReceived: bytesInputSchema }),
          expected: z.strictObject({ hash }),
        }),
      ]),
    )
    .min(4),
  trustPointHash: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({
          ...described,
          type: z.literal('Evidence'),
          input: z.strictObject({ certificateHash: hash }),
          expected: hash,
        }),
        z.strictObject({
          ...described,
          type: z.literal('Revocation'),
          input: z.strictObject({ certId: z.string() }),
          sentence: z.string(),
          expected: hash,
        }),
        z.strictObject({
          ...described,
          type: z.literal('Signature'),
          input: z.strictObject({ signature: bytesInputSchema }),
          expected: hash,
        }),
      ]),
    )
    .min(3),
  assetHash: z
    .array(
      z.strictObject({
        ...described,
        input: z.strictObject({ assetId: z.string(), data: jsonObject }),
        canonical: z.string(),
        expected: hash,
      }),
    )
    .min(1),
  evidenceHash: z
    .array(
      z.strictObject({
        ...described,
        input: z.strictObject({
          metadata: jsonObject,
          timestamp: z.number().int(),
          userOwner: z.string(),
        }),
        canonical: z.string(),
        expected: hash,
      }),
    )
    .min(1),
  recordKey: z
    .array(
      z.strictObject({
        ...described,
        kind: z.enum(['trustPoint', 'evidence']),
        input: z.strictObject({ id: z.string(), timestamp: z.number().int().nonnegative() }),
        packedHex: z.string(),
        expected: hex0x.length(66),
      }),
    )
    .min(2),
  callData: z
    .array(
      z.discriminatedUnion('function', [
        z.strictObject({
          ...described,
          function: z.literal('getTrustPoint'),
          input: z.strictObject({ certId: z.string(), timestamp: z.number().int() }),
          selector: hex0x.length(10),
          expected: hex0x,
        }),
        z.strictObject({
          ...described,
          function: z.literal('getEvidence'),
          input: z.strictObject({ assetHash: hash, timestamp: z.number().int() }),
          selector: hex0x.length(10),
          expected: hex0x,
        }),
      ]),
    )
    .min(2),
  ethCallRequest: z
    .array(
      z.strictObject({
        ...described,
        function: z.literal('getTrustPoint'),
        input: z.strictObject({
          smartContract: z.string(),
          certId: z.string(),
          timestamp: z.number().int(),
          id: z.number().int(),
        }),
        expected: z.unknown(),
      }),
    )
    .min(1),
  ethCallResponse: z
    .array(
      z.strictObject({
        ...described,
        function: z.enum(['getTrustPoint', 'getEvidence']),
        response: z.unknown(),
        expected: z.union([
          z.strictObject({
            found: z.literal(true),
            hash,
            type: z.enum(['Evidence', 'Revocation', 'Signature']).optional(),
          }),
          z.strictObject({ found: z.literal(false) }),
          z.strictObject({ unexpected: z.literal(true) }),
        ]),
      }),
    )
    .min(3),
});

export type TestVectorFile = z.infer<typeof fileSchema>;

export function loadTestVectors(): TestVectorFile {
  const text = readFileSync(join(__dirname, '..', 'test-vectors.json'), 'utf8');
  return fileSchema.parse(JSON.parse(text));
}

/** Materializes a byte input descriptor of the vector file. */
export function bytesOf(input: BytesInput): Uint8Array {
  if ('utf8' in input) {
    return new TextEncoder().encode(input.utf8);
  }
  if ('hex' in input) {
    return Buffer.from(input.hex, 'hex');
  }
  const { count, ...unit } = input.repeat;
  const chunk = bytesOf(unit);
  const bytes = new Uint8Array(chunk.byteLength * count);
  for (let index = 0; index < count; index += 1) {
    bytes.set(chunk, index * chunk.byteLength);
  }
  return bytes;
}
