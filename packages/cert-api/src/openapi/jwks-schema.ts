import { z } from 'zod';

/** One public key of the service (RFC 7517); which members it has depends on the key type. */
const publicJwkSchema = z
  .looseObject({
    kty: z.string().meta({ example: 'OKP' }),
    kid: z.string().meta({ description: 'RFC 7638 thumbprint; the `kid` of every JWS it signs' }),
    alg: z.string().meta({ example: 'EdDSA' }),
    use: z.literal('sig'),
    crv: z.string().optional(),
    x: z.string().optional(),
    y: z.string().optional(),
    n: z.string().optional(),
    e: z.string().optional(),
  })
  .meta({ id: 'PublicJwk' });

/** GET /.well-known/jwks.json: a plain JWK Set, not the success envelope, for JOSE libraries. */
export const jwksSchema = z.object({ keys: z.array(publicJwkSchema) }).meta({ id: 'Jwks' });
