/**
 * A GET of a URL somebody else chose (a client ID metadata document, issue 36), built to be the
 * narrowest door a server-side fetch can be (SSRF: RFC 9700 §4.x, the draft's §"Server-Side
 * Request Forgery"):
 *
 * - `https` only, and no redirect is followed (the draft: "MUST NOT automatically follow HTTP
 *   redirects"), so the host checked is the host fetched;
 * - the name is resolved once, every address it resolves to is checked, and the connection goes
 *   to the checked address (a custom `lookup`), so a second answer of the DNS (rebinding) cannot
 *   lead the socket elsewhere; loopback, private, link-local and other special addresses
 *   (`special-addresses.ts`) are refused unless `allowedAddresses` lists them;
 * - one time-out over connecting, TLS and the whole answer, and a size cap counted on the bytes
 *   that arrive (a `Content-Length` is not believed);
 * - no cookies, no credentials, no connection reuse.
 *
 * Failures are `FetchRefused` with a reason the caller may show: they say what went wrong with
 * the URL, never anything about the network behind it.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { AddressMatcher } from './address-ranges.js';
import { canonicalAddress } from './address-ranges.js';
import { isSpecialAddress } from './special-addresses.js';

export type FetchRefusal = 'not-https' | 'address-refused' | 'unreachable' | 'timeout' | 'redirect' | 'status' | 'too-large';

const messages: Record<FetchRefusal, string> = {
  'not-https': 'it is not an https URL',
  'address-refused': 'its host has an address that may not be fetched from',
  unreachable: 'it could not be fetched',
  timeout: 'it took too long to fetch',
  redirect: 'it answered with a redirect, which is not followed',
  status: 'it did not answer 200',
  'too-large': 'it is too large',
};

export class FetchRefused extends Error {
  constructor(readonly reason: FetchRefusal, readonly logDetail?: string) {
    super(messages[reason]);
    this.name = 'FetchRefused';
  }
}

export interface FetchedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface GuardedFetchOptions {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Special addresses that may nevertheless be fetched from (a test's loopback server). */
  readonly allowedAddresses: AddressMatcher;
  /** PEM CA certificates trusted besides the system's. */
  readonly extraCa?: string | undefined;
  readonly accept: string;
  /** Also plain `http` (back-channel logout URIs may be); default `https` only. */
  readonly allowHttp?: boolean;
  /** Answers that count as success; default `[200]`. */
  readonly okStatuses?: readonly number[];
}

/** A form POST instead of the GET (a back-channel logout token, issue 37). */
export interface GuardedPost {
  readonly form: URLSearchParams;
}

export type GuardedFetch = (url: URL, post?: GuardedPost) => Promise<FetchedResponse>;

export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const ca = options.extraCa === undefined ? undefined : [...rootCertificates, options.extraCa];
  const permitted = (address: string): boolean => !isSpecialAddress(address) || options.allowedAddresses.has(canonicalAddress(address));

  const okStatuses = options.okStatuses ?? [200];

  return function guardedFetch(url, post) {
    return new Promise<FetchedResponse>((resolve, reject) => {
      const http = url.protocol === 'http:' && options.allowHttp === true;
      if (url.protocol !== 'https:' && !http) return reject(new FetchRefused('not-https'));
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      let refusal: FetchRefused | undefined;
      let req: ClientRequest | undefined = undefined;
      const fail = (err: FetchRefused): void => {
        refusal ??= err;
        req?.destroy(err);
      };
      const literal = isIP(host) !== 0;
      if (literal && !permitted(host)) return reject(new FetchRefused('address-refused', `literal address ${host}`));

      // One resolution, every address checked, the socket given only a checked one.
      const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
        dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
          if (err) return callback(err, '', 4);
          const refused = addresses.find((a) => !permitted(a.address));
          if (refused || addresses.length === 0) {
            refusal ??= new FetchRefused('address-refused', `${hostname} resolves to ${refused?.address ?? 'nothing'}`);
            return callback(refusal, '', 4);
          }
          if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          return callback(null, addresses[0]!.address, addresses[0]!.family);
        });
      };

      const body = post?.form.toString();
      const requestOptions: RequestOptions = {
        method: post ? 'POST' : 'GET',
        host,
        port: url.port === '' ? (http ? 80 : 443) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: {
          accept: options.accept, 'user-agent': 'svc-token-service',
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }),
        },
        agent: false,
        ...(literal ? {} : { lookup, ...(http ? {} : { servername: host }) }),
        ...(ca && !http ? { ca } : {}),
      };
      const request = http ? httpRequest : httpsRequest;
      const timer = setTimeout(() => fail(new FetchRefused('timeout', `no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      req = request(requestOptions, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(new FetchRefused('redirect', `status ${status}`));
        if (!okStatuses.includes(status)) return fail(new FetchRefused('status', `status ${status}`));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) return fail(new FetchRefused('too-large', `more than ${options.maxBytes} bytes`));
          chunks.push(chunk);
        });
        res.on('error', () => undefined);
        res.on('end', () => {
          if (refusal) return;
          clearTimeout(timer);
          resolve({ status, headers: res.headers, body: Buffer.concat(chunks) });
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(refusal ?? (err instanceof FetchRefused ? err : new FetchRefused('unreachable', (err as NodeJS.ErrnoException).code ?? err.message)));
      });
      req.on('close', () => {
        clearTimeout(timer);
        if (refusal) reject(refusal);
      });
      req.end(body);
    });
  };
}
