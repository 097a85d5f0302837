import type { CreditSpendPurpose } from '@trustpoint/db';

/** What a credit paid for, as the APIs show it (`CreditSpend`): only the fields that apply. */
export function creditSpendView(purpose: CreditSpendPurpose | null) {
  if (purpose === null) return null;
  return {
    operation: purpose.operation,
    ...(purpose.certId === null ? {} : { certID: purpose.certId }),
    ...(purpose.trackId === null ? {} : { trackID: purpose.trackId }),
    ...(purpose.evidenceHash === null ? {} : { evidenceHash: purpose.evidenceHash }),
    ...(purpose.timestamp === null ? {} : { timestamp: purpose.timestamp }),
  };
}
