import type { ClientCertificate } from '../sdk/contracts.js';

/** What a form-posting endpoint receives: flat parameters and the Authorization header. */
export interface FormRequest {
  readonly params: ReadonlyMap<string, string>;
  readonly authorization: string | undefined;
  /** The caller's address, for rate limits. */
  readonly remoteAddress?: string;
  /** Correlates logs and events of one request. */
  readonly requestId?: string;
  /** The TLS client certificate of the request (mutual TLS), when one arrived. */
  readonly clientCertificate?: ClientCertificate | undefined;
  /** Every `DPoP` header value (RFC 9449), as sent; `undefined` when there is none. */
  readonly dpop?: readonly string[] | undefined;
}
