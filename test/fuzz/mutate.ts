/**
 * Mutations of a valid request, as fast-check arbitraries: parameters of a form body or of the
 * query (dropped, repeated, huge, hostile values, broken percent-encoding), JSON bodies (members
 * of every JSON type, hostile URIs, broken and deeply nested JSON), JWTs (claims of every JSON
 * type and range, re-signed with a key the service trusts so they reach the claim checks; broken
 * segments), headers (credentials and bearer tokens, content types and encodings, compression
 * bombs, cookies, the client certificate header), methods and paths.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { JWTHeaderParameters, JWTPayload } from 'jose';
import type { FuzzRequest } from './request.js';
import { form } from './request.js';
import type { Signers } from './seed-kit.js';
import { certificateHeader } from './fixture.js';

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
    'interaction', 'prompt', 'max_age', 'nonce', 'state', 'code_challenge', 'code_challenge_method', 'response_mode', 'ui_locales',
    'login_hint', 'id_token_hint', 'post_logout_redirect_uri', 'dpop_jkt', 'acr_values', 'claims', 'access_token', 'registration',
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
/** Where a request's parameters are: a form body, or the query of a request without a body (an authorization or end-session GET). */
const carrier = (req: FuzzRequest): 'body' | 'query' | undefined => (isForm(req) ? 'body' : req.body === undefined && req.path.includes('?') ? 'query' : undefined);
const hasParams = (req: FuzzRequest): boolean => carrier(req) !== undefined;
const paramsOf = (req: FuzzRequest): Params => {
  const where = carrier(req);
  return where === 'body' ? [...new URLSearchParams(req.body?.toString('utf8') ?? '')] : where === 'query' ? [...new URLSearchParams(req.path.slice(req.path.indexOf('?') + 1))] : [];
};
const withParams = (req: FuzzRequest, params: Params): FuzzRequest =>
  carrier(req) === 'query' ? { ...req, path: `${req.path.slice(0, req.path.indexOf('?'))}?${new URLSearchParams(params)}` } : { ...req, body: form(params) };
const at = <T>(list: readonly T[], index: number): number => (list.length === 0 ? -1 : index % list.length);

const formMutations: Array<fc.Arbitrary<Mutation>> = [
  fc.tuple(paramName, value).map(([name, v]) => mutation(`set ${show(name)} = ${show(v)}`, (req) => {
    if (!hasParams(req)) return req;
    const params = paramsOf(req).filter(([n]) => n !== name);
    return withParams(req, [...params, [name, v]]);
  })),
  fc.tuple(fc.nat(), value).map(([i, v]) => mutation(`replace the value of parameter #${i} with ${show(v)}`, (req) => {
    const params = paramsOf(req);
    const k = at(params, i);
    if (!hasParams(req) || k < 0) return req;
    params[k] = [params[k]![0], v];
    return withParams(req, params);
  })),
  fc.nat().map((i) => mutation(`drop parameter #${i}`, (req) => {
    const params = paramsOf(req);
    const k = at(params, i);
    return !hasParams(req) || k < 0 ? req : withParams(req, params.filter((_, j) => j !== k));
  })),
  fc.tuple(fc.nat(), fc.boolean(), value).map(([i, same, v]) => mutation(`repeat parameter #${i}${same ? '' : ` with ${show(v)}`}`, (req) => {
    const params = paramsOf(req);
    const k = at(params, i);
    return !hasParams(req) || k < 0 ? req : withParams(req, [...params, [params[k]![0], same ? params[k]![1] : v]]);
  })),
  fc.integer({ min: 10, max: 2_000 }).map((n) => mutation(`add ${n} parameters`, (req) =>
    hasParams(req) ? withParams(req, [...paramsOf(req), ...Array.from({ length: n }, (_, j): [string, string] => [`p${j}`, String(j)])]) : req)),
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
  // A DPoP proof's own key (RFC 9449 §4.2), unsigned: keys no signature can verify, broken points and sizes, private parts.
  fc.constantFrom<unknown>(
    { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }, { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) }, { kty: 'EC', crv: 'secp256k1', x: 'AAAA', y: 'AAAA' },
    { kty: 'RSA', n: 'AQAB', e: 'AQAB' }, { kty: 'RSA', n: 'A'.repeat(20_000), e: 'AQAB' }, { kty: 'RSA', n: 'AQAB', e: 'A'.repeat(2_000) }, { kty: 'oct', k: 'c2VjcmV0' },
    { kty: 'OKP', crv: 'X25519', x: 'A'.repeat(43) }, { kty: 'OKP', crv: 'Ed25519', x: '' }, { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', d: 'AAAA' }, { kty: 'EC' },
    {}, [], 'jwk', null, 1, { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', ext: false, key_ops: ['sign'] }, { kty: '__proto__' },
  ).map((jwk): JwtEdit => ({
    describe: `header jwk ${show(jwk)} (unsigned)`,
    edit: (jwt: string) => `${b64({ ...decodePart(jwt.split('.')[0] ?? ''), jwk })}.${jwt.split('.').slice(1).join('.')}`,
  })),
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
    if (!hasParams(req)) return req;
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
  fc.tuple(fc.constantFrom(
    'origin', 'x-request-id', 'accept', 'accept-encoding', 'dpop', 'x-forwarded-for', 'host', 'expect', 'range', 'if-none-match', 'access-control-request-method',
    'x-forwarded-proto', 'forwarded', 'accept-language', 'traceparent', certificateHeader,
  ), headerValue)
    .map(([name, v]) => mutation(`${name}: ${show(v)}`, (req) => setHeader(req, name, v))),
  fc.tuple(fc.constantFrom('authorization', 'content-type', 'cookie', 'origin', 'dpop', certificateHeader), headerValue).map(([name, v]) => mutation(`a second ${name}: ${show(v)}`, (req) => ({
    ...req, headers: [...req.headers, [name, v]],
  }))),
  fc.constantFrom('authorization', 'content-type', 'cookie', 'dpop', certificateHeader).map((name) => mutation(`drop ${name}`, (req) => setHeader(req, name, undefined))),
  fc.integer({ min: 10, max: 200 }).map((n) => mutation(`add ${n} headers`, (req) => ({
    ...req, headers: [...req.headers, ...Array.from({ length: n }, (_, j): [string, string] => [`x-h${j}`, 'v'.repeat(j)])],
  }))),
];

// ---- JSON bodies (dynamic registration) ----------------------------------------------------

const isJson = (req: FuzzRequest): boolean => req.body !== undefined && req.headers.some(([n, v]) => n.toLowerCase() === 'content-type' && v.includes('json'));
const jsonOf = (req: FuzzRequest): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(req.body?.toString('utf8') ?? '');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};
/**
 * `req` with `value` as its JSON body, or `req` as it was when `value` is nested too deeply for
 * JSON.stringify's stack (a body from `jsonBodies` below, parsed and edited).
 */
const withJsonBody = (req: FuzzRequest, value: unknown): FuzzRequest => {
  try {
    return { ...req, body: Buffer.from(JSON.stringify(value)) };
  } catch (error) {
    if (error instanceof RangeError) return req;
    throw error;
  }
};
const metadataName = fc.oneof(
  fc.constantFrom(
    'redirect_uris', 'grant_types', 'response_types', 'scope', 'client_name', 'token_endpoint_auth_method', 'client_id', 'client_secret',
    'id_token_signed_response_alg', 'dpop_bound_access_tokens', 'tls_client_certificate_bound_access_tokens', 'software_statement', 'jwks', 'jwks_uri',
    'post_logout_redirect_uris', 'client_uri', 'logo_uri', 'contacts', 'require_consent', 'requireConsent', 'allowedScopes', 'clientSecrets',
    'properties', '__proto__', 'constructor', 'prototype', '',
  ),
  fc.string({ maxLength: 20 }),
);
/** URIs that cannot be what a registrant meant, or that would make the service redirect somewhere it must not. */
const hostileUri = fc.constantFrom(
  'javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'https://app.example/cb#frag', 'http://localhost:3000/cb', 'localhost:3000/callback',
  'https://app.example/*', 'HTTP://LOCALHOST:3000/cb', 'https://app.example/cb ', 'http://[::1]:0/cb', 'http://127.0.0.1:99999/cb', 'https://user:pw@app.example/cb',
  'https://\u0000.example/', 'com.example.app:/cb', 'https://' + 'a'.repeat(3_000) + '.example/', 'file:///etc/passwd', '//app.example/cb', 'https://xn--80ak6aa92e.com/',
);
const jsonMember: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: jsonValue },
  { weight: 2, arbitrary: fc.array(hostileUri, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: hostileUri },
  { weight: 1, arbitrary: fc.integer({ min: 21, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => `https://app.example/cb${i}`)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const jsonBodies = fc.constantFrom(
  'null', '[]', '"metadata"', '1', '{', '{"a":1,}', '{"redirect_uris":["https://a/cb"],"redirect_uris":"x"}', '\ufeff{}', '{"__proto__":{"requireConsent":false}}',
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`, `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`, '{"scope":"' + 'openid '.repeat(20_000) + '"}', 'NaN', '{"a":1e999}',
);

const jsonMutations: Array<fc.Arbitrary<Mutation>> = [
  fc.tuple(metadataName, jsonMember).map(([name, v]) => mutation(`JSON: set ${show(name)} = ${show(v)}`, (req) => {
    const body = jsonOf(req);
    if (!isJson(req) || !body) return req;
    // `defineProperty`, so "__proto__" becomes an own member as JSON.parse makes it.
    const next = { ...body };
    Object.defineProperty(next, name, { value: v, enumerable: true, writable: true, configurable: true });
    return withJsonBody(req, next);
  })),
  // Values the policy may well accept: combinations a registrant can send that the random ones rarely hit.
  fc.constantFrom<[string, unknown]>(
    ...['none', 'tls_client_auth', 'self_signed_tls_client_auth', 'private_key_jwt', 'client_secret_jwt', 'client_secret_post'].map((m): [string, unknown] => ['token_endpoint_auth_method', m]),
    ...[['client_credentials'], ['refresh_token'], ['authorization_code', 'client_credentials'], ['authorization_code', 'refresh_token', 'client_credentials'], [], ['password'], ['client_credentials', 'client_credentials']]
      .map((g): [string, unknown] => ['grant_types', g]),
    ['response_types', []], ['response_types', ['code', 'code']], ['scope', 'offline_access'], ['scope', 'openid offline_access'], ['scope', 'api1.read  api1.read'], ['scope', ' '],
    ['dpop_bound_access_tokens', true], ['tls_client_certificate_bound_access_tokens', true], ['id_token_signed_response_alg', 'ES256'], ['id_token_signed_response_alg', 'none'],
    ['redirect_uris', []], ['redirect_uris', ['http://127.0.0.1/cb', 'http://[::1]/cb', 'http://localhost/cb']], ['jwks', { keys: [] }], ['client_id', 'code'], ['client_id', 'm2m'],
  ).map(([name, v]) => mutation(`JSON: set ${show(name)} = ${show(v)}`, (req) => {
    const body = jsonOf(req);
    return !isJson(req) || !body ? req : withJsonBody(req, { ...body, [name]: v });
  })),
  fc.nat().map((i) => mutation(`JSON: drop member #${i}`, (req) => {
    const body = jsonOf(req);
    if (!isJson(req) || !body) return req;
    const keys = Object.keys(body);
    const k = at(keys, i);
    return k < 0 ? req : withJsonBody(req, Object.fromEntries(Object.entries(body).filter(([n]) => n !== keys[k])));
  })),
  jsonBodies.map((text) => mutation(`JSON: the body ${show(text)}`, (req) => (req.body === undefined && req.method === 'GET' ? req : { ...req, body: Buffer.from(text, 'utf8') }))),
  fc.constantFrom('application/json; charset=utf-16', 'application/json; charset=latin1', 'application/jose', 'text/json', 'application/json, text/plain', 'application/merge-patch+json')
    .map((type) => mutation(`JSON: Content-Type ${show(type)}`, (req) => (isJson(req) ? setHeader(req, 'content-type', type) : req))),
];

// ---- bearer tokens and the client certificate header ----------------------------------------

const credentialMutations: Array<fc.Arbitrary<Mutation>> = [
  fc.tuple(fc.nat(), fc.nat()).map(([i, bit]) => mutation(`flip bit ${bit % 7} of character ${i} of the Authorization token`, (req) => {
    const value = req.headers.find(([n]) => n === 'authorization')?.[1];
    const space = value?.indexOf(' ') ?? -1;
    if (!value || space < 0 || space === value.length - 1) return req;
    const k = space + 1 + (i % (value.length - space - 1));
    return setHeader(req, 'authorization', value.slice(0, k) + String.fromCharCode(value.charCodeAt(k) ^ (1 << (bit % 7))) + value.slice(k + 1));
  })),
  fc.tuple(fc.constantFrom('Bearer', 'DPoP', 'bearer', 'dpop', 'Basic', 'Bearer  ', 'MAC'), fc.boolean()).map(([scheme, keep]) => mutation(`Authorization scheme ${show(scheme)}${keep ? '' : ' with a nasty token'}`, (req) => {
    const value = req.headers.find(([n]) => n === 'authorization')?.[1];
    const tokenPart = value?.slice(value.indexOf(' ') + 1) ?? '';
    return setHeader(req, 'authorization', `${scheme} ${keep ? tokenPart : 'x'.repeat(300) + '==='}`);
  })),
  headerValue.map((v) => mutation(`Authorization: Bearer ${show(v)}`, (req) => setHeader(req, 'authorization', `Bearer ${v}`))),
  fc.tuple(fc.nat(), fc.constantFrom('another', 'plain PEM', 'half', 'twice encoded', 'garbled base64', 'empty', '(null)', 'huge', 'bad percent', 'two certificates', 'a key'))
    .map(([i, kind]) => mutation(`client certificate header: ${kind}`, (req, signers) => {
      const pems = signers.certificates;
      const one = pems[i % pems.length]!;
      const plain = decodeURIComponent(one);
      const value = {
        another: one,
        'plain PEM': plain.replace(/\n/g, ' '),
        half: one.slice(0, Math.floor(one.length / 2)),
        'twice encoded': encodeURIComponent(one),
        'garbled base64': encodeURIComponent(plain.replace(/[A-Za-z]{8}\n/, '!!!!!!!!\n')),
        empty: '',
        '(null)': '(null)',
        huge: `${one}${'%41'.repeat(20_000)}`,
        'bad percent': `${one.slice(0, 40)}%zz%`,
        'two certificates': one + one,
        'a key': encodeURIComponent('-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END CERTIFICATE-----\n'),
      }[kind]!;
      return setHeader(req, certificateHeader, value);
    })),
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
  fc.constantFrom(
    '/connect/authorize', '/connect/authorize/sign-in', '/connect/authorize/callback', '/connect/userinfo', '/connect/endsession', '/connect/par', '/connect/register',
    '/connect/register/x', '/connect/register/%00', '/connect/register/' + 'a'.repeat(3_000), '/connect/checksession', '/.well-known/openid-configuration/jwks/x', '/metrics/', '/device/x', '/nope',
  )
    .map((path) => mutation(`path ${path}`, (req) => ({ ...req, path }))),
];

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 8, arbitrary: fc.oneof(...formMutations) },
  { weight: 5, arbitrary: fc.oneof({ weight: 3, arbitrary: jwtEdits[0]! }, ...jwtEdits.slice(1)).map(jwtMutation) },
  { weight: 5, arbitrary: fc.oneof(...headerMutations) },
  { weight: 3, arbitrary: fc.oneof(...jsonMutations) },
  { weight: 3, arbitrary: fc.oneof(...credentialMutations) },
  { weight: 1, arbitrary: methodMutation },
  { weight: 2, arbitrary: fc.oneof(...pathMutations) },
);

/** A seed (from `seedArb`, which weighs the surfaces) and 0–4 mutations; a fifth of the cases stay unmutated, as the control. */
export function caseArb(seedArb: fc.Arbitrary<number>): fc.Arbitrary<{ seed: number; mutations: Mutation[] }> {
  return fc.record({
    seed: seedArb,
    mutations: fc.oneof({ weight: 1, arbitrary: fc.constant([] as Mutation[]) }, { weight: 4, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 4 }) }),
  });
}
