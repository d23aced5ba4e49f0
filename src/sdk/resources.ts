import type { ApiResource } from './model.js';

/**
 * The `aud` of tokens for an API (RFC 8707 §2, RFC 9068 §2.2): its resource indicator `uri`
 * when it has one, else its name. One identifier per API, whichever way a request named it.
 *
 * @example
 * audienceOf({ name: 'billing', uri: 'https://billing.example.com/' }) // 'https://billing.example.com/'
 * audienceOf({ name: 'api1' })                                         // 'api1'
 */
export function audienceOf(api: Pick<ApiResource, 'name' | 'uri'>): string {
  return api.uri ?? api.name;
}
