/**
 * The caller's address and scheme. Behind a reverse proxy every connection comes from the proxy,
 * so the address every limit, log line and event keys on is read from the proxy's forwarding
 * header, but only when the connection itself comes from a trusted proxy: from anyone else the
 * header is the caller's own words and is ignored (RFC 7239 §8.1).
 *
 * Of the forwarded hops the right-most one that is not itself a trusted proxy is the client:
 * each proxy appends the address it saw, so everything left of that was written by the client
 * and may be forged (RFC 7239 §5.2). One header is read, the one the proxy is configured to
 * write (`forwardedHeader`): a proxy that sets `X-Forwarded-For` passes a client's own
 * `Forwarded` through untouched, so reading both would let the client choose.
 */
import type { Context, Next } from 'koa';
import { isIP } from 'node:net';
import { addressMatcher, canonicalAddress } from '../net/address-ranges.js';

export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';

export interface ClientOrigin {
  readonly address: string;
  /** The client reached a trusted proxy over https (`X-Forwarded-Proto` / `proto=`). */
  readonly forwardedHttps: boolean;
  /** The connection itself comes from a trusted proxy, whose headers may be believed. */
  readonly viaTrustedProxy: boolean;
}

interface Hop {
  /** `undefined` for `unknown`, an obfuscated identifier (RFC 7239 §6.3) or garbage. */
  readonly address: string | undefined;
  readonly proto: string | undefined;
}

/** `192.0.2.7`, `"192.0.2.7:4711"`, `"[2001:db8::1]:4711"` → the bare, canonical address. */
function nodeAddress(raw: string): string | undefined {
  let value = raw.trim();
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    value = end === -1 ? '' : value.slice(1, end);
  } else if (value.indexOf(':') === value.lastIndexOf(':') && value.includes('.')) {
    value = value.split(':')[0] ?? '';
  }
  return isIP(value) === 0 ? undefined : canonicalAddress(value);
}

/** Splits on `sep` outside quoted strings (RFC 7230 quoted-string, as RFC 7239 §4 uses). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === sep && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** RFC 7239 §4: `Forwarded: for=192.0.2.60;proto=http, for="[2001:db8::1]"`. */
export function forwardedHops(header: string): Hop[] {
  return splitOutsideQuotes(header, ',').map((element) => {
    let address: string | undefined;
    let proto: string | undefined;
    for (const pair of splitOutsideQuotes(element, ';')) {
      const eq = pair.indexOf('=');
      if (eq === -1) continue;
      const name = pair.slice(0, eq).trim().toLowerCase();
      const value = pair.slice(eq + 1).trim();
      if (name === 'for') address = nodeAddress(value);
      else if (name === 'proto') proto = value.replace(/^"|"$/g, '').toLowerCase();
    }
    return { address, proto };
  });
}

function xForwardedHops(forwardedFor: string, proto: string | undefined): Hop[] {
  const protos = proto ? proto.split(',').map((p) => p.trim().toLowerCase()) : [];
  const hops = forwardedFor.split(',').map((a) => ({ address: nodeAddress(a), proto: undefined as string | undefined }));
  // The proxy next to us sets (or appends to) X-Forwarded-Proto: its right-most value is its own.
  const last = hops.at(-1);
  if (last) last.proto = protos.at(-1);
  return hops;
}

export interface ClientOriginOptions {
  readonly trustedProxies: readonly string[];
  readonly forwardedHeader: ForwardedHeader;
}

export type HeaderReader = (name: string) => string;

/** Built once at start-up; called per request with the socket's address and a header reader. */
export function clientOriginResolver(options: ClientOriginOptions): (socketAddress: string | undefined, header: HeaderReader) => ClientOrigin {
  const trusted = addressMatcher(options.trustedProxies);
  const useForwarded = options.forwardedHeader === 'forwarded';

  return (socketAddress, header) => {
    const peer = canonicalAddress(socketAddress ?? '');
    if (!trusted.has(peer)) return { address: peer, forwardedHttps: false, viaTrustedProxy: false };
    const hops = useForwarded
      ? header('forwarded') ? forwardedHops(header('forwarded')) : []
      : header('x-forwarded-for') ? xForwardedHops(header('x-forwarded-for'), header('x-forwarded-proto') || undefined) : [];
    let address = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]?.address;
      // A hop we cannot read ends the walk: what lies left of it is no more trustworthy.
      if (hop === undefined) break;
      address = hop;
      if (!trusted.has(hop)) break;
    }
    return { address, forwardedHttps: hops.at(-1)?.proto === 'https', viaTrustedProxy: true };
  };
}

/**
 * Koa middleware: sets `ctx.ip` (Koa's own field, read by every handler) to the client's
 * address, `ctx.state.secureOrigin` when the client reached us over https, and
 * `ctx.state.viaTrustedProxy` when the connection comes from a trusted proxy.
 */
export function clientOrigin(options: ClientOriginOptions & { issuerHttps: boolean }) {
  const resolve = clientOriginResolver(options);
  return async function clientOriginOf(ctx: Context, next: Next): Promise<void> {
    const origin = resolve(ctx.req.socket.remoteAddress, (name) => ctx.get(name));
    ctx.request.ip = origin.address;
    ctx.state.secureOrigin = options.issuerHttps || origin.forwardedHttps;
    ctx.state.viaTrustedProxy = origin.viaTrustedProxy;
    await next();
  };
}
