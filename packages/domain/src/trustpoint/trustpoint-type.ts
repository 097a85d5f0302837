import { TRUST_POINT_TYPE_NAMES } from '@trustpoint/verifier';
import { z } from 'zod';

// The codes are a rule every verifier needs, so they live in @trustpoint/verifier; the domain adds
// the schema its request and resource schemas are built from.
export {
  isTrustPointTypeCode,
  TRUST_POINT_TYPE_CODES,
  TRUST_POINT_TYPE_NAMES,
  trustPointTypeCode,
  trustPointTypeName,
  type TrustPointTypeCode,
  type TrustPointTypeName,
} from '@trustpoint/verifier';

export const trustPointTypeNameSchema = z.enum(TRUST_POINT_TYPE_NAMES);
