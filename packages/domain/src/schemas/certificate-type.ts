import { z } from 'zod';

/** What a certificate certifies; each type has its own hash rule. */
export const CERTIFICATE_TYPES = ['content', 'file', 'asset', 'url'] as const;
export const certificateTypeSchema = z.enum(CERTIFICATE_TYPES);
export type CertificateType = z.infer<typeof certificateTypeSchema>;
