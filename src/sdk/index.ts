/**
 * The one module plugin authors import: `import { definePlugin } from 'svc/sdk'`. It imports
 * nothing from the service itself; the service implements these contracts.
 */
export type * from './contracts.js';
export type * from './model.js';
export type { ServiceEvent, RaisedEvent, EventSink, ServiceEventType } from './events.js';
export * from './errors.js';
export { DuplicateKeyError, StoreUnavailableError, isDuplicateKeyError, isStoreUnavailableError } from './store-errors.js';
export { definePlugin } from './define-plugin.js';
export {
  defineClientField, type ClientField, type ClientFieldContext, type ClientFieldDeclaration, type ClientFieldJsonSchema, type PluginClientFields,
} from './client-fields.js';
export { allowedSubjectTokenAudiences } from './subject-token-audiences.js';
export { hashSecret } from './hash.js';
export {
  parseCompactJws, verifyCompactJws, signCompactJws, isJwsAlgorithm, jwsAlgorithms, MalformedJws,
  type CompactJws, type CompactSigner, type JwsAlgorithm,
} from './jws.js';
export { defineConfig } from './define-config.js';
export { isNumericDate, MAX_NUMERIC_DATE } from './numeric-date.js';
export { timeOrderedKey } from './store-keys.js';
export { audienceOf } from './resources.js';
export { accessTokenHash, boundJkt, dpopBindingProblem, requireDpopBinding, type Confirmation, type DpopProofSummary } from './dpop.js';
/** Distinguished names compared as RFC 4514 attribute sets, whichever form they are written in. */
export { canonicalName } from './distinguished-name.js';
export { boundCertificate, certificateBindingProblem, requireCertificateBinding, requireSenderBinding } from './sender-binding.js';
