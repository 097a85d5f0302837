import { describe, expect, it } from 'vitest';

import {
  createErrorCatalogue,
  DEFAULT_SUPPORT_CONTACT,
  defaultErrorCatalogue,
  ERROR_CODES,
  ERROR_TYPES,
} from './error-catalogue.js';

describe('error catalogue', () => {
  it('when reading the spec 7.2 entries, then statuses, types and messages are exact', () => {
    const spec = {
      validation: [400, 'Validation Error', 'Request parameters are wrong, check requirements'],
      wrongCredentials: [401, 'Authentication Error', 'User credentials are wrong'],
      invalidToken: [401, 'Authentication Error', 'Token is invalid'],
      expiredToken: [401, 'Authentication Error', 'Token is expired'],
      missingToken: [401, 'Authentication Error', 'Token is not provided'],
      userNotQualified: [
        403,
        'Forbidden Error',
        'User is not qualified, please try again with a qualified user',
      ],
      pinRequired: [403, 'Forbidden Error', 'This certificate requires a PIN, please provide it'],
      providerNotInPlan: [
        403,
        'Forbidden Error',
        'Provider not available in your plan. Please, contact the support team to include it',
      ],
      certificateAlreadyRegistered: [
        409,
        'Existing certificate error',
        'The certificate is already registered, please try again with a different content',
      ],
      externalIdAlreadyRegistered: [
        409,
        'Existing certificate error',
        'The provided externalId is already registered, please try again with a different one',
      ],
      assetIdAlreadyRegistered: [
        409,
        'Existing certificate error',
        'The provided assetId is already registered, please try again with a different one',
      ],
      outOfCredits: [
        429,
        'Out of Credits Error',
        'User has run out of credits. Please, contact the support team to increase the limit',
      ],
      internal: [
        500,
        'Internal Server Error',
        'Oops! Something went wrong, please try again later',
      ],
      notFound: [404, 'Not Found Error', 'The requested resource was not found'],
      payloadTooLarge: [
        413,
        'Payload Too Large Error',
        'The request payload exceeds the configured limit',
      ],
      adminRequired: [403, 'Forbidden Error', 'This operation requires an administrator'],
      insufficientScope: [
        403,
        'Forbidden Error',
        'The credential does not have the scope this operation requires',
      ],
      alreadyExists: [
        409,
        'Conflict Error',
        'The resource already exists, please try again with a different id',
      ],
      idempotencyKeyInUse: [
        409,
        'Conflict Error',
        'A request with this Idempotency-Key is still being processed, please retry later',
      ],
      idempotencyKeyReused: [
        422,
        'Unprocessable Content Error',
        'This Idempotency-Key was used for a different request, please use a new key for this one',
      ],
      networkUnavailable: [
        503,
        'Service Unavailable Error',
        'The blockchain network is not available, please try again later',
      ],
      networkBusy: [
        503,
        'Service Unavailable Error',
        'The blockchain network has more records waiting than it can take now, please try again later',
      ],
      identityProviderUnavailable: [
        503,
        'Service Unavailable Error',
        'The identity provider is not available, please try again later',
      ],
      databaseUnavailable: [
        503,
        'Service Unavailable Error',
        'The service is temporarily unavailable, please try again later',
      ],
    } as const;

    for (const code of ERROR_CODES) {
      const [statusCode, type, message] = spec[code];
      expect(defaultErrorCatalogue[code]).toEqual({ statusCode, type, message });
    }
    expect(Object.keys(spec).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('when a support contact is configured, then it replaces <support_team> in both messages', () => {
    // Arrange
    const contact = 'support@example.org';

    // Act
    const catalogue = createErrorCatalogue({ supportContact: contact });

    // Assert
    expect(catalogue.providerNotInPlan.message).toBe(
      'Provider not available in your plan. Please, contact support@example.org to include it',
    );
    expect(catalogue.outOfCredits.message).toBe(
      'User has run out of credits. Please, contact support@example.org to increase the limit',
    );
    expect(DEFAULT_SUPPORT_CONTACT).toBe('the support team');
  });

  it('when counting messages per status, then 401 has four, 403 five (three of spec 7.2, one for admins, one for a missing scope) and 409 five (two of spec 7.2, one for assetId, one for admin ids, one for an Idempotency-Key in use)', () => {
    const count = (status: number) =>
      ERROR_CODES.filter((code) => defaultErrorCatalogue[code].statusCode === status).length;

    expect([count(401), count(403), count(409)]).toEqual([4, 5, 5]);
  });

  it('when an entry is read, then its type is the one of its status, but for the conflicts that are not about certificates', () => {
    const conflicts = ['alreadyExists', 'idempotencyKeyInUse'];
    for (const code of ERROR_CODES.filter((code) => !conflicts.includes(code))) {
      const { statusCode, type } = defaultErrorCatalogue[code];
      expect(ERROR_TYPES[statusCode as keyof typeof ERROR_TYPES]).toBe(type);
    }
  });

  it('when someone tries to change an entry, then the catalogue stays frozen', () => {
    expect(Object.isFrozen(defaultErrorCatalogue)).toBe(true);
    expect(Object.isFrozen(defaultErrorCatalogue.internal)).toBe(true);
  });
});
