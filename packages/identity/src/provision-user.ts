import { constraintViolation, createUser, findUser, type Queryable } from '@trustpoint/db';

import type { OidcIssuerConfig } from './oidc-issuer-config.js';

/**
 * Creates the user of a provider's token on the issuer's plan with its credits, unless the user
 * exists. A user that exists but is disabled stays as it is (the insert conflicts and is left
 * alone), so authentication then finds no user and answers "User credentials are wrong".
 */
export async function provisionUser(
  db: Queryable,
  userId: string,
  provision: NonNullable<OidcIssuerConfig['provision']>,
  issuer: string,
): Promise<void> {
  if ((await findUser(db, userId)) !== undefined) return;
  try {
    await createUser(db, {
      id: userId,
      displayName: userId,
      planId: provision.planId,
      qualified: provision.qualified,
      initialCredits: provision.credits,
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
