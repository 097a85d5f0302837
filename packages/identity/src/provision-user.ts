import {
  constraintViolation,
  createUser,
  findUser,
  recordAudit,
  type Queryable,
} from '@trustpoint/db';
import { DomainError, newAccountIdProblem } from '@trustpoint/domain';

import type { OidcIssuerConfig } from './oidc-issuer-config.js';

/**
 * Creates the user of a provider's token on the issuer's plan with its credits, unless the user
 * exists, and records it in the audit log (`user.create` by the service, `provisionedBy` the
 * issuer). A user that exists but is disabled stays as it is (the insert conflicts and is left
 * alone), so authentication then finds no user and answers "User credentials are wrong".
 * A user is made only with an id an administrator could give it (`newAccountIdProblem`: printable
 * ASCII, not only dots, without /, \ or %): another is refused with that same 401, as an unknown
 * user is when provisioning is off, and nothing is made. A user that exists keeps signing in.
 */
export async function provisionUser(
  db: Queryable,
  userId: string,
  provision: NonNullable<OidcIssuerConfig['provision']>,
  issuer: string,
): Promise<void> {
  if ((await findUser(db, userId)) !== undefined) return;
  const problem = newAccountIdProblem(userId);
  if (problem !== undefined) {
    throw new DomainError('wrongCredentials', {
      detail: `${issuer} names a user the service does not know whose id cannot be provisioned (${problem}): ${JSON.stringify(userId)}`,
    });
  }
  try {
    // The user and its audit entry (the service's, naming the provider) commit together.
    await db.transaction(async (trx) => {
      await createUser(trx, {
        id: userId,
        displayName: userId,
        planId: provision.planId,
        qualified: provision.qualified,
        initialCredits: provision.credits,
      });
      await recordAudit(trx, [
        {
          actorId: null,
          requestId: null,
          action: 'user.create',
          target: `user:${userId}`,
          changes: {
            provisionedBy: issuer,
            planId: provision.planId,
            qualified: provision.qualified,
            credits: provision.credits,
          },
        },
      ]);
    });
  } catch (error) {
    // Two first requests at once, or a disabled user: either way the row is there.
    if (constraintViolation(error)?.kind === 'unique') return;
    if (constraintViolation(error)?.kind === 'foreign-key') {
      throw new Error(
        `users of ${issuer} are provisioned on plan ${provision.planId}, which does not exist`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}
