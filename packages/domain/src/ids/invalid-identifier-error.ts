/** Thrown when a string is not the identifier form it claims to be. */
export class InvalidIdentifierError extends Error {
  override readonly name = 'InvalidIdentifierError';
}
