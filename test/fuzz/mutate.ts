/**
 * Mutations of a valid request, as fast-check arbitraries: parameters (dropped, repeated, huge,
 * hostile values, broken percent-encoding), JWTs (claims of every JSON type and range, re-signed
 * with a key the service trusts so they reach the claim checks; broken segments), headers
 * (credentials, content types and encodings, compression bombs, cookies), methods and paths.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { JWTHeaderParameters, JWTPayload } from 'jose';
import type { FuzzRequest } from './request.js';
import { form } from './request.js';
import type { Signers } from './seeds.js';

export interface Mutation {
  readonly describe: string;
  apply(req: FuzzRequest, signers: Signers): FuzzRequest | Promise<FuzzRequest>;
}

const mutation = (describe: string, apply: Mutation['apply']): Mutation => ({ describe, apply });

/** Made once: 32 MiB of zeros, gzipped to about 32 KiB. */
const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));

const show = (v: unknown): string => {
  const text = typeof v === 'string' ? JSON.stringify(v) : Buffer.isBuffer(v) ? `<${v.length} bytes>` : JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...(${text.length})` : text;
};

// ---- values -------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '', ' ', '%', '%%', '%zz', '%ff%fe', '\u0000', '\r\n', 'null', 'undefined', 'NaN', '[]', '{}', '__proto__', 'constructor',
  'toString', 'hasOwnProperty', '9e999', '-1', '1e300', '0x10', "' OR 1=1 --", '"; DROP TABLE persisted_grants; --',
  '../../../../etc/passwd', '<script>alert(1)</script>', '${jndi:ldap://x}', '\u202e', '\ud800', '\uffff', 'é'.normalize('NFD'),
  'a'.repeat(10_000), 'openid '.repeat(2_000), 'eyJhbGciOiJub25lIn0.e30.', 'a.b.c', '...', 'Basic', 'Bearer',
);

const value: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1_000, max: 300_000 })).map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)) },
);

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, as a browser sends them). */
const percent = (text: string): string => Buffer.from(text, 'utf8').toString('hex').replace(/../g, '%$&');

const paramName = fc.oneof(
  fc.constantFrom(
    'grant_type', 'scope', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type', 'username', 'password',
    'refresh_token', 'device_code', 'token', 'token_type_hint', 'subject_token', 'subject_token_type', 'actor_token',
    'actor_token_type', 'audience', 'resource', 'requested_token_type', 'user_code', 'step', 'csrf', 'decision', 'code',
    'redirect_uri', 'code_verifier', 'response_type', 'request_uri', 'request', '__proto__', 'constructor', 'prototype', '',
  ),
  fc.string({ maxLength: 20 }),
);

/** Every JSON type, and numbers at and past the edges of a date. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(9e12, -9e12, 8.64e12, 8.64e12 + 1, 1e300, -1e300, 1.5, -0, 0, -1, 2 ** 53, 2 ** 53 + 2, 253_402_300_800, 1e21, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(null, true, false, [], {}, [1], { a: 1 }, '', 'now'),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
);

// ---- forms --------------------------------------------------------------------------------

type Params = Array<[string, string]>;
const isForm = (req: FuzzRequest): boolean =>
  req.body !== undefined && req.headers.some(([n, v]) => n.toLowerCase() === 'content-type' && v.startsWith('application/x-www-form-urlencoded'));
const paramsOf = (req: FuzzRequest): Params => [...new URLSearchParams(req.body?.toString('utf8') ?? '')];
const withParams = (req: FuzzRequest, params: Params): FuzzRequest => ({ ...req, body: form(params) });
const at = <T>(list: readonly T[], index: number): number => (list.length === 0 ? -1 : index % list.length);

const formMutations: Array<fc.Arbitrary<Mutation>> = [
  fc.tuple(paramName, value).map(([name, v]) => mutation(`set ${show(name)} = ${show(v)}`, (req) => {
    if (!isForm(req)) return req;
    const params = paramsOf(req).filter(([n]) => n !== name);
    return withParams(req, [...params, [name, v]]);
  })),
  fc.tuple(fc.nat(), value).map(([i, v]) => mutation(`replace the value of parameter #${i} with ${show(v)}`, (req) => {
    const params = paramsOf(req);
    const k = at(params, i);
    if (!isForm(req) || k < 0) return req;
    params[k] = [params[k]![0], v];
    return withParams(req, params);
  })),
  fc.nat().map((i) => mutation(`drop parameter #${i}`, (req) => {
    const params = paramsOf(req);
    const k = at(params, i);
    return !isForm(req) || k < 0 ? req : withParams(req, params.filter((_, j) => j !== k));
  })),
  fc.tuple(fc.nat(), fc.boolean(), value).map(([i, same, v]) => mutation(`repeat parameter #${i}${same ? '' : ` with ${show(v)}`}`, (req) => {
    const params = paramsOf(req);
    const k = at(params, i);
    return !isForm(req) || k < 0 ? req : withParams(req, [...params, [params[k]![0], same ? params[k]![1] : v]]);
  })),
  fc.integer({ min: 10, max: 2_000 }).map((n) => mutation(`add ${n} parameters`, (req) =>
    isForm(req) ? withParams(req, [...paramsOf(req), ...Array.from({ length: n }, (_, j): [string, string] => [`p${j}`, String(j)])]) : req)),
  fc.tuple(fc.nat(), fc.constantFrom('%', '%z', '%zz', '%ff', '%c3%28', '%ed%a0%80', '%00', '&', '&&=&', '=', '+', '%2', ';', '\u0000', '\u00ff'), fc.nat())
    .map(([pos, insert, _]) => mutation(`insert ${show(insert)} into the body at ${pos}`, (req) => {
      if (req.body === undefined) return req;
      const k = req.body.length === 0 ? 0 : pos % (req.body.length + 1);
      return { ...req, body: Buffer.concat([req.body.subarray(0, k), Buffer.from(insert, 'latin1'), req.body.subarray(k)]) };
    })),
  fc.uint8Array({ maxLength: 2_000 }).map((bytes) => mutation(`replace the body with ${bytes.length} random bytes`, (req) => ({ ...req, body: Buffer.from(bytes) }))),
  fc.integer({ min: 60_000, max: 2_000_000 }).map((n) => mutation(`pad the body to ${n} bytes`, (req) => ({
    ...req, body: Buffer.concat([req.body ?? Buffer.alloc(0), Buffer.from(`&pad=${'x'.repeat(n)}`)]),
  }))),
];

// ---- JWTs ---------------------------------------------------------------------------------

const jwtShape = /^[\w-]+\.[\w-]+\.[\w-]*$/;
const b64 = (v: unknown): string => {
  let text: string;
  try {
    text = typeof v === 'string' ? v : JSON.stringify(v);
  } catch {
    // Claims nested deeper than the fuzzer's own stack (an earlier mutation): send them as a string.
    text = '"too deep to re-encode"';
  }
  return Buffer.from(text).toString('base64url');
};
const decodePart = (part: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

type JwtEdit = { describe: string; edit(jwt: string, signers: Signers, param: string): string | Promise<string> };
const claimName = fc.constantFrom('exp', 'nbf', 'iat', 'iss', 'sub', 'aud', 'jti', 'client_id', 'scope', 'auth_time', 'act', 'cnf', 'htm', 'htu', 'ath');
const headerName = fc.constantFrom('alg', 'kid', 'typ', 'crit', 'b64', 'jwk', 'x5c', 'jku', 'zip', 'enc');

/** Time claims at and past the edges of what a date holds: where issue 22's 500 lived. */
const edgeTime = fc.constantFrom(9e12, -9e12, 8.64e12, 8.64e12 + 1, -8.64e12 - 1, 1e300, -1e300, 253_402_300_800, -1, 1.5, 2 ** 53 + 2);
const timeClaims = fc.dictionary(fc.constantFrom('exp', 'nbf', 'iat', 'auth_time'), edgeTime, { minKeys: 1, maxKeys: 2 });

const jwtEdits: Array<fc.Arbitrary<JwtEdit>> = [
  // Re-signed: the claims reach the checks behind the signature.
  fc.tuple(fc.oneof(timeClaims, fc.dictionary(claimName, jsonValue, { maxKeys: 3 })), fc.oneof(fc.constant({}), fc.dictionary(headerName, jsonValue, { maxKeys: 1 })))
    .map(([claims, header]) => ({
      describe: `re-sign with claims ${show(claims)}${Object.keys(header).length ? ` and header ${show(header)}` : ''}`,
      async edit(jwt, signers, param) {
        const [h, p] = jwt.split('.');
        const payload = { ...decodePart(p ?? ''), ...claims } as JWTPayload;
        const merged = { ...decodePart(h ?? ''), ...header } as Partial<JWTHeaderParameters>;
        const sign = param === 'dpop' ? signers.dpop : param === 'client_assertion' ? signers.assertion : undefined;
        if (!sign) return [b64(merged), b64(payload), jwt.split('.')[2] ?? ''].join('.');
        try {
          // `alg`, `jwk` and `b64` stay the signer's own: jose refuses to sign with others.
          const { alg: _alg, jwk: _jwk, b64: _b64, crit: _crit, ...rest } = merged as Record<string, unknown>;
          return await sign(rest as Partial<JWTHeaderParameters>, payload);
        } catch {
          return [b64(merged), b64(payload), jwt.split('.')[2] ?? ''].join('.');
        }
      },
    })),
  fc.constantFrom<JwtEdit>(
    { describe: 'alg none, no signature', edit: (jwt) => `${b64({ ...decodePart(jwt.split('.')[0] ?? ''), alg: 'none' })}.${jwt.split('.')[1]}.` },
    { describe: 'drop the signature', edit: (jwt) => jwt.split('.').slice(0, 2).join('.') },
    { describe: 'add a segment', edit: (jwt) => `${jwt}.${jwt.split('.')[1]}` },
    { describe: 'a JWE-shaped five segments', edit: (jwt) => `${jwt}..x` },
    { describe: 'payload not JSON', edit: (jwt) => `${jwt.split('.')[0]}.${b64('not json')}.${jwt.split('.')[2]}` },
    { describe: 'payload a JSON array', edit: (jwt) => `${jwt.split('.')[0]}.${b64([1, 2])}.${jwt.split('.')[2]}` },
    { describe: 'header not JSON', edit: (jwt) => `${b64('{"alg":')}.${jwt.split('.').slice(1).join('.')}` },
    { describe: 'standard base64 with padding', edit: (jwt) => jwt.split('.').map((p) => Buffer.from(p, 'base64url').toString('base64')).join('.') },
    { describe: 'a huge payload', edit: (jwt) => `${jwt.split('.')[0]}.${b64({ pad: 'x'.repeat(200_000) })}.${jwt.split('.')[2]}` },
    { describe: 'deeply nested claims', edit: (jwt) => `${jwt.split('.')[0]}.${b64(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`)}.${jwt.split('.')[2]}` },
  ),
  fc.tuple(fc.nat(), fc.nat()).map(([i, bit]) => ({
    describe: `flip bit ${bit % 8} of character ${i}`,
    edit: (jwt: string) => {
      const k = i % jwt.length;
      return jwt.slice(0, k) + String.fromCharCode(jwt.charCodeAt(k) ^ (1 << (bit % 8))) + jwt.slice(k + 1);
    },
  })),
];

function jwtMutation(edit: JwtEdit): Mutation {
  return mutation(`JWT: ${edit.describe}`, async (req, signers) => {
    const headerIndex = req.headers.findIndex(([n, v]) => n === 'dpop' && jwtShape.test(v));
    if (headerIndex >= 0) {
      const headers = req.headers.map((h) => [...h] as [string, string]);
      headers[headerIndex]![1] = await edit.edit(headers[headerIndex]![1], signers, 'dpop');
      return { ...req, headers };
    }
    if (!isForm(req)) return req;
    const params = paramsOf(req);
    const k = params.findIndex(([, v]) => jwtShape.test(v));
    if (k < 0) return req;
    params[k] = [params[k]![0], await edit.edit(params[k]![1], signers, params[k]![0])];
    return withParams(req, params);
  });
}

// ---- headers, method, path ----------------------------------------------------------------

const headerValue = fc.oneof(nasty.filter((v) => !/[\r\n\u0000]/.test(v) && /^[\x20-\x7e\x80-\xff]*$/.test(v)), fc.string({ maxLength: 40 }).filter((v) => /^[\x20-\x7e]*$/.test(v)));
const basicCredentials = fc.oneof(
  fc.constantFrom('Basic', 'Basic ', 'Basic !!!', 'Basic Og==', 'Basic bTJt', 'Basic JXp6OiV6eg==', 'Basic ' + 'QUFB'.repeat(5_000), 'basic bTJtOng=', 'Bearer x', 'Digest x'),
  fc.tuple(fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 })).map(([a, b]) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`),
);

function setHeader(req: FuzzRequest, name: string, v: string | undefined): FuzzRequest {
  const headers = req.headers.filter(([n]) => n.toLowerCase() !== name);
  return { ...req, headers: v === undefined ? headers : [...headers, [name, v]] };
}

const headerMutations: Array<fc.Arbitrary<Mutation>> = [
  basicCredentials.map((v) => mutation(`Authorization: ${show(v)}`, (req) => setHeader(req, 'authorization', v))),
  fc.constantFrom(
    undefined, 'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded; charset=utf-16',
    'application/x-www-form-urlencoded; charset=bogus', 'application/x-www-form-urlencoded; charset=iso-8859-1', 'application/x-www-form-urlencoded;;;',
    'APPLICATION/X-WWW-FORM-URLENCODED', '*/*', '', 'application/x-www-form-urlencoded, application/json',
  ).map((v) => mutation(`Content-Type: ${show(v)}`, (req) => setHeader(req, 'content-type', v))),
  fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'compress', 'x-bogus', 'gzip, br').map((enc) => mutation(`Content-Encoding: ${enc} (body encoded)`, (req) => {
    const body = req.body ?? Buffer.alloc(0);
    const coded = enc === 'gzip' ? gzipSync(body) : enc === 'deflate' ? deflateSync(body) : enc === 'br' ? brotliCompressSync(body) : enc === 'gzip, gzip' ? gzipSync(gzipSync(body)) : body;
    return setHeader({ ...req, body: coded }, 'content-encoding', enc);
  })),
  fc.constantFrom('gzip', 'deflate', 'br').map((enc) => mutation(`Content-Encoding: ${enc} on a body that is not`, (req) => setHeader(req, 'content-encoding', enc))),
  fc.constant(mutation('a gzip bomb (32 MiB of zeros)', (req) => setHeader({ ...req, body: bomb }, 'content-encoding', 'gzip'))),
  headerValue.map((v) => mutation(`Cookie: ${show(v)}`, (req) => setHeader(req, 'cookie', v))),
  fc.nat().map((i) => mutation(`flip a character of the Cookie (${i})`, (req) => {
    const cookie = req.headers.find(([n]) => n === 'cookie')?.[1];
    if (!cookie) return req;
    const k = i % cookie.length;
    return setHeader(req, 'cookie', cookie.slice(0, k) + (cookie[k] === 'A' ? 'B' : 'A') + cookie.slice(k + 1));
  })),
  fc.tuple(fc.constantFrom('origin', 'x-request-id', 'accept', 'accept-encoding', 'dpop', 'x-forwarded-for', 'host', 'expect', 'range', 'if-none-match', 'access-control-request-method'), headerValue)
    .map(([name, v]) => mutation(`${name}: ${show(v)}`, (req) => setHeader(req, name, v))),
  fc.tuple(fc.constantFrom('authorization', 'content-type', 'cookie', 'origin', 'dpop'), headerValue).map(([name, v]) => mutation(`a second ${name}: ${show(v)}`, (req) => ({
    ...req, headers: [...req.headers, [name, v]],
  }))),
  fc.constantFrom('authorization', 'content-type', 'cookie', 'dpop').map((name) => mutation(`drop ${name}`, (req) => setHeader(req, name, undefined))),
  fc.integer({ min: 10, max: 200 }).map((n) => mutation(`add ${n} headers`, (req) => ({
    ...req, headers: [...req.headers, ...Array.from({ length: n }, (_, j): [string, string] => [`x-h${j}`, 'v'.repeat(j)])],
  }))),
];

const methodMutation = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'QUERY', 'SEARCH', 'LOCK', 'MKCOL')
  .map((m) => mutation(`method ${m}`, (req) => ({ ...req, method: m })));

const pathMutations: Array<fc.Arbitrary<Mutation>> = [
  fc.constantFrom('/', '//', '/.', '/..', '/../..', '%00', '%2e%2e%2f', ';jsessionid=1', '.json', '~', '/%ff', '%c0%ae', '?', '#x', '?a=1&a=2', '/' + 'a'.repeat(8_000))
    .map((s) => mutation(`append ${show(s)} to the path`, (req) => {
      const [p, q] = req.path.split('?');
      return { ...req, path: `${p}${s}${q === undefined ? '' : `?${q}`}` };
    })),
  fc.tuple(paramName, value).map(([name, v]) => mutation(`query ${show(name)}=${show(v)}`, (req) => ({
    ...req, path: `${req.path}${req.path.includes('?') ? '&' : '?'}${percent(name)}=${percent(v)}`,
  }))),
  fc.constantFrom('%', '%zz', '%ff%fe', '%E2%82', '&&&', '==', '%00').map((raw) => mutation(`raw ${show(raw)} in the query`, (req) => ({
    ...req, path: `${req.path}${req.path.includes('?') ? '&' : '?'}x=${raw}`,
  }))),
  fc.constant(mutation('path in upper case', (req) => ({ ...req, path: req.path.toUpperCase() }))),
  fc.constantFrom('/connect/authorize', '/connect/userinfo', '/connect/endsession', '/connect/par', '/connect/checksession', '/.well-known/openid-configuration/jwks/x', '/metrics/', '/device/x', '/nope')
    .map((path) => mutation(`path ${path}`, (req) => ({ ...req, path }))),
];

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 8, arbitrary: fc.oneof(...formMutations) },
  { weight: 5, arbitrary: fc.oneof({ weight: 3, arbitrary: jwtEdits[0]! }, ...jwtEdits.slice(1)).map(jwtMutation) },
  { weight: 5, arbitrary: fc.oneof(...headerMutations) },
  { weight: 1, arbitrary: methodMutation },
  { weight: 2, arbitrary: fc.oneof(...pathMutations) },
);

/** A seed and 0–4 mutations; a fifth of the cases stay unmutated, as the control. */
export function caseArb(seedCount: number): fc.Arbitrary<{ seed: number; mutations: Mutation[] }> {
  return fc.record({
    seed: fc.nat({ max: seedCount - 1 }),
    mutations: fc.oneof({ weight: 1, arbitrary: fc.constant([] as Mutation[]) }, { weight: 4, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 4 }) }),
  });
}
