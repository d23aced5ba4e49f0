/**
 * What every seed file shares: the surfaces a case belongs to (with their share of the run), the
 * seed type, the signers mutations may use, and the setup state (tokens, paths) a seed builds on.
 */
import type { JWTHeaderParameters, JWTPayload } from 'jose';
import type { FuzzFixture } from './fixture.js';
import type { FuzzRequest } from './request.js';
import { form } from './request.js';
import type { Probe } from './visitor.js';

/**
 * The surfaces and their weight: the share of the HTTP cases (nine in ten; raw TCP is the
 * tenth) each gets. Cases that need a page first (sign-in, consent, logout, end session) cost
 * two to four requests, so requests per surface run higher than these shares there.
 */
export const surfaceWeights = {
  token: 12,
  'introspection, revocation': 4,
  'device flow': 6,
  'metadata, operations': 3,
  authorize: 10,
  'sign-in form': 9,
  'consent form': 7,
  'logout form': 5,
  'end session': 6,
  PAR: 7,
  UserInfo: 6,
  registration: 9,
  DPoP: 6,
  'mutual TLS': 5,
} as const;

export type Surface = keyof typeof surfaceWeights;

export interface Seed {
  readonly name: string;
  readonly surface: Surface;
  /** The valid request; `probe` sends the unmutated requests it needs first (a page, a sign-in). */
  build(probe: Probe): Promise<FuzzRequest>;
}

export const seed = (surface: Surface, name: string, build: (probe: Probe) => FuzzRequest | Promise<FuzzRequest>): Seed => ({
  surface, name, build: async (probe) => build(probe),
});

/** What mutations may use: keys and certificates the fuzzer holds, so a mutated credential can still verify. */
export interface Signers {
  /** Signs as the private_key_jwt client (its real key): claims reach the claim checks. */
  assertion(header: Partial<JWTHeaderParameters>, payload: JWTPayload): Promise<string>;
  /** Signs a DPoP proof (RFC 9449) with the fuzzer's own key, embedded as `jwk`. */
  dpop(header: Partial<JWTHeaderParameters>, payload: JWTPayload): Promise<string>;
  /** Client certificates as the proxy forwards them (fixture's `certificates`). */
  readonly certificates: readonly string[];
}

/** Tokens and ids the setup pass got from the running service. */
export interface State {
  accessJwt: string;
  accessReference: string;
  userAccess: string;
  /** Bound to the fuzzer's DPoP key (a password grant with a proof). */
  dpopUserAccess: string;
  /** Bound to the `named` certificate (RFC 8705 §3). */
  certificateAccess: string;
  refreshToken: string;
  idToken: string;
  deviceCode: string;
  userCode: string;
  pageCookie: string;
  pageCsrf: string;
  paths: { authorize: string; signIn: string; userinfo: string; endSession: string; par: string; register: string };
}

export interface SeedContext {
  readonly fx: FuzzFixture;
  readonly issuer: string;
  readonly s: State;
  readonly signers: Signers;
  /** A fresh DPoP proof for `htm` on `path`, with extra claims (`ath`). */
  proof(htm: string, path: string, extra?: JWTPayload): Promise<string>;
  /** The PKCE pair every authorization request of the fuzzer uses. */
  readonly pkce: { readonly verifier: string; readonly challenge: string };
}

export function basic(id: string, secret: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export const formHeaders = (auth?: string): Array<[string, string]> => [
  ['content-type', 'application/x-www-form-urlencoded'],
  ...(auth ? ([['authorization', auth]] as Array<[string, string]>) : []),
];

export const post = (seedName: string, path: string, params: Array<[string, string]>, auth?: string): FuzzRequest => ({
  seed: seedName, method: 'POST', path, headers: formHeaders(auth), body: form(params),
});

export const get = (seedName: string, path: string, headers: Array<[string, string]> = []): FuzzRequest => ({ seed: seedName, method: 'GET', path, headers });

export const jsonRequest = (seedName: string, method: string, path: string, body: unknown, auth?: string): FuzzRequest => ({
  seed: seedName, method, path,
  headers: [['content-type', 'application/json'], ...(auth ? ([['authorization', auth]] as Array<[string, string]>) : [])],
  ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
});

export const withHeader = (req: FuzzRequest, name: string, value: string): FuzzRequest => ({ ...req, headers: [...req.headers, [name, value]] });
