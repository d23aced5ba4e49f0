/** What a form-posting endpoint receives: flat parameters and the Authorization header. */
export interface FormRequest {
  readonly params: ReadonlyMap<string, string>;
  readonly authorization: string | undefined;
  /** The caller's address, for rate limits. */
  readonly remoteAddress?: string;
  /** Correlates logs and events of one request. */
  readonly requestId?: string;
  /** Every `DPoP` header value (RFC 9449), as sent; `undefined` when there is none. */
  readonly dpop?: readonly string[] | undefined;
}
