/**
 * The store's two failures a plugin may meet. Branded like `OAuthError`: a plugin loaded through
 * jiti may see its own copy of the SDK, so test with `isDuplicateKeyError`, not `instanceof`.
 */
const duplicateBrand = Symbol.for('svc.DuplicateKeyError');
const unavailableBrand = Symbol.for('svc.StoreUnavailableError');

/** A live record already holds the key (`add`): for a single-use value, a replay. */
export class DuplicateKeyError extends Error {
  readonly [duplicateBrand] = true;
  override readonly name = 'DuplicateKeyError';
  constructor() {
    super('A live grant already holds this key.');
  }
}

/** The store could not be reached or answered in time; endpoints answer 503. */
export class StoreUnavailableError extends Error {
  readonly [unavailableBrand] = true;
  override readonly name = 'StoreUnavailableError';
}

const branded = (value: unknown, brand: symbol): boolean => typeof value === 'object' && value !== null && brand in value;

export function isDuplicateKeyError(value: unknown): value is DuplicateKeyError {
  return value instanceof DuplicateKeyError || branded(value, duplicateBrand);
}

export function isStoreUnavailableError(value: unknown): value is StoreUnavailableError {
  return value instanceof StoreUnavailableError || branded(value, unavailableBrand);
}
