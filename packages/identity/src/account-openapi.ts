import type { ApiScope, ErrorCode } from '@trustpoint/domain';
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';

import { ACCOUNT_PATH } from './account-router.js';
import {
  accountCreditMovementsQuerySchema,
  accountCreditMovementsResponse,
  accountResponse,
} from './account-schemas.js';

export interface AccountPathsOptions {
  tag: string;
  security: oas31.SecurityRequirementObject[];
  errors: (...codes: ErrorCode[]) => ZodOpenApiResponsesObject;
  scoped: (operation: ZodOpenApiOperationObject, scope: ApiScope) => ZodOpenApiOperationObject;
}

export const ACCOUNT_TAG_DESCRIPTION =
  "The caller's own account, read-only: balance, plan and networks, the credential's scopes " +
  'and expiry, and the ledger of the balance. The same from either API.';

/** The account operations, for the documents of both APIs. */
export function accountPaths(options: AccountPathsOptions): ZodOpenApiPathsObject {
  const auth = ['missingToken', 'expiredToken', 'invalidToken', 'wrongCredentials'] as const;
  const operation = (op: ZodOpenApiOperationObject): ZodOpenApiOperationObject =>
    options.scoped({ tags: [options.tag], security: options.security, ...op }, 'read');
  return {
    [ACCOUNT_PATH]: {
      get: operation({
        operationId: 'getAccount',
        summary: "The caller's account",
        description:
          'Credits left, the plan and the networks it allows, and what the credential of this ' +
          'request may do (its scopes) and until when.',
        responses: {
          200: {
            description: 'The account',
            content: { 'application/json': { schema: accountResponse } },
          },
          ...options.errors(...auth),
        },
      }),
    },
    [`${ACCOUNT_PATH}/credit-movements`]: {
      get: operation({
        operationId: 'listAccountCreditMovements',
        summary: "The ledger of the caller's credits",
        description:
          'Every change of the balance, newest first by default (`order=asc`: from the start): ' +
          "the starting balance, an administrator's grants and sets, a `spend` of one credit " +
          'for each certificate, signature, re-anchoring, asset and evidence the caller made ' +
          '(`spentOn` names the operation and what it made), and refunds for records never ' +
          'delivered (`refundOf` names the spend given back). Each row has the balance after ' +
          "it, the previous row's plus its amount; the newest row's is the balance now. Only " +
          "the caller's own: an evidence the caller added to an asset shared with them is " +
          "theirs, not the asset owner's. A page is read in one snapshot, so the rows, their " +
          'balances and `pagination.total` agree even while credits are being spent.',
        requestParams: { query: accountCreditMovementsQuerySchema },
        responses: {
          200: {
            description: 'A page of movements',
            content: { 'application/json': { schema: accountCreditMovementsResponse } },
          },
          ...options.errors('validation', ...auth),
        },
      }),
    },
  };
}
