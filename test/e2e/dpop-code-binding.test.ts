/**
 * Authorization codes bound to a DPoP key (RFC 9449 §10, issue 17): `dpop_jkt` on the front
 * channel or in a pushed request, and a DPoP proof sent with the pushed request (§10.1), which
 * binds the code as if `dpop_jkt` had named its key. Such a code is redeemed only with a proof
 * of that key; a refusal does not spend it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { dpopKey, type DpopKey } from '../support/dpop.js';
import { Browser, redeemWeb, signInAndAuthorize, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';

const web = `Basic ${Buffer.from('web:web-secret').toString('base64')}`;
const boundElsewhere = {
  error: 'invalid_grant',
  error_description: 'The authorization code is bound to a DPoP key: redeem it with a DPoP proof made with that key.',
};

let server: TestServer;
let key: DpopKey;
let other: DpopKey;
let tokenUrl: string;
let parUrl: string;
beforeAll(async () => {
  [key, other] = await Promise.all([dpopKey(), dpopKey()]);
  server = await startServer(await signInConfig());
  tokenUrl = `${server.url}/connect/token`;
  parUrl = `${server.url}/connect/par`;
});
afterAll(() => server?.close());

/** Signs alice in through the pages and returns the code. */
async function codeFor(params: Record<string, string>): Promise<string> {
  const location = await signInAndAuthorize(server, new Browser(server.url), params);
  const code = location.searchParams.get('code');
  if (code === null) throw new Error(`no code in ${location.href}`);
  return code;
}

const push = (params: Record<string, string>, headers: Record<string, string> = {}) => postForm(parUrl, params, { authorization: web, ...headers });

/** The log's reason for the last refusal with this error. */
const lastDetail = (error: string): unknown => server.logs.filter((l) => l.msg === 'request rejected' && l.error === error).at(-1)?.detail;

/** The refusals every bound code gives, then the redemption with the key: a refusal spends nothing. */
async function expectBoundTo(code: string, verifier: string, bound: DpopKey): Promise<void> {
  const without = await redeemWeb(server, code, verifier);
  expect(without).toMatchObject({ status: 400, body: boundElsewhere });
  expect(lastDetail('invalid_grant')).toBe('code bound to a DPoP key (dpop_jkt); no DPoP proof');
  const wrongKey = await redeemWithProof(code, verifier, bound === key ? other : key);
  expect(wrongKey).toMatchObject({ status: 400, body: boundElsewhere });
  expect(lastDetail('invalid_grant')).toBe('code bound to a DPoP key (dpop_jkt) other than the proof key');
  const redeemed = await redeemWithProof(code, verifier, bound);
  expect(redeemed.status).toBe(200);
  expect(redeemed.body.token_type).toBe('DPoP');
  expect(decodeJwt(redeemed.body.access_token as string).cnf).toEqual({ jkt: bound.jkt });
}

function redeemWithProof(code: string, verifier: string, proofKey: DpopKey) {
  return postForm(tokenUrl, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, {
    authorization: web, DPoP: proofKey.proof({ htu: tokenUrl }),
  });
}

describe('dpop_jkt on the front channel (RFC 9449 §10)', () => {
  it('binds the code: no proof or another key is invalid_grant, the named key redeems it', async () => {
    const { params, verifier } = webRequest({ dpop_jkt: key.jkt });
    await expectBoundTo(await codeFor(params), verifier, key);
  });

  it('a code without dpop_jkt is redeemed with or without a proof, as before', async () => {
    const plain = webRequest();
    expect((await redeemWeb(server, await codeFor(plain.params), plain.verifier)).body.token_type).toBe('Bearer');
    const withProof = webRequest();
    expect((await redeemWithProof(await codeFor(withProof.params), withProof.verifier, other)).body.token_type).toBe('DPoP');
  });

  it.each([
    ['too short', 'abc'],
    ['not base64url', `${'a'.repeat(42)}=`],
    ['too long', 'a'.repeat(44)],
  ])('a dpop_jkt that is %s goes back to the client as invalid_request', async (_case, value) => {
    const { params } = webRequest({ dpop_jkt: value });
    const page = await new Browser(server.url).get(`${server.url}/connect/authorize?${new URLSearchParams(params)}`);
    expect(page.status).toBe(303);
    expect(Object.fromEntries(page.location!.searchParams)).toMatchObject({
      error: 'invalid_request', error_description: 'The dpop_jkt parameter must be a base64url SHA-256 JWK thumbprint.', state: params.state,
    });
  });
});

describe('pushed authorization requests with DPoP (RFC 9449 §10.1)', () => {
  it('dpop_jkt in the pushed parameters binds the code', async () => {
    const { params, verifier } = webRequest({ dpop_jkt: other.jkt });
    const pushed = await push(params);
    expect(pushed.status).toBe(201);
    await expectBoundTo(await codeFor({ client_id: 'web', request_uri: pushed.body.request_uri as string }), verifier, other);
  });

  it('a DPoP proof on the pushed request binds the code to its key, as if dpop_jkt named it', async () => {
    const { params, verifier } = webRequest();
    const pushed = await push(params, { DPoP: key.proof({ htu: parUrl }) });
    expect(pushed.status).toBe(201);
    await expectBoundTo(await codeFor({ client_id: 'web', request_uri: pushed.body.request_uri as string }), verifier, key);
  });

  it('a proof and a dpop_jkt of the same key are accepted; of two keys, refused with invalid_request', async () => {
    const same = await push(webRequest({ dpop_jkt: key.jkt }).params, { DPoP: key.proof({ htu: parUrl }) });
    expect(same.status).toBe(201);
    const mismatch = await push(webRequest({ dpop_jkt: other.jkt }).params, { DPoP: key.proof({ htu: parUrl }) });
    expect(mismatch).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The dpop_jkt parameter does not name the key of the DPoP proof.' } });
    expect(mismatch.body.request_uri).toBeUndefined();
  });

  it('checks the proof as the token endpoint does: a proof for another URL, a replayed one or a forged one is invalid_dpop_proof', async () => {
    const invalid = { status: 400, body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is invalid.' } };
    expect(await push(webRequest().params, { DPoP: key.proof({ htu: tokenUrl }) })).toMatchObject(invalid);
    expect(lastDetail('invalid_dpop_proof')).toBe('htu does not match the endpoint URL');
    const proof = key.proof({ htu: parUrl });
    expect((await push(webRequest().params, { DPoP: proof })).status).toBe(201);
    expect(await push(webRequest().params, { DPoP: proof })).toMatchObject(invalid);
    expect(lastDetail('invalid_dpop_proof')).toBe('jti was already used (replay)');
    const [head, payload] = key.proof({ htu: parUrl }).split('.');
    const forged = `${head}.${payload}.${other.proof({ htu: parUrl }).split('.')[2]}`;
    expect(await push(webRequest().params, { DPoP: forged })).toMatchObject(invalid);
    expect(lastDetail('invalid_dpop_proof')).toBe('signature does not verify with the proof jwk');
  });

  it('a malformed dpop_jkt in a pushed request is a 400 invalid_request', async () => {
    expect(await push(webRequest({ dpop_jkt: 'x' }).params)).toMatchObject({
      status: 400, body: { error: 'invalid_request', error_description: 'The dpop_jkt parameter must be a base64url SHA-256 JWK thumbprint.' },
    });
  });
});

describe('with server nonces (RFC 9449 §8)', () => {
  let nonced: TestServer;
  beforeAll(async () => {
    nonced = await startServer(await signInConfig({ dpop: { requireNonce: true } }));
  });
  afterAll(() => nonced?.close());

  it('a pushed request with a proof and no nonce is use_dpop_nonce with a DPoP-Nonce; with it, 201 and a fresh nonce', async () => {
    const url = `${nonced.url}/connect/par`;
    const first = await postForm(url, webRequest().params, { authorization: web, DPoP: key.proof({ htu: url }) });
    expect(first).toMatchObject({ status: 400, body: { error: 'use_dpop_nonce' } });
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[\w.-]+$/);
    const second = await postForm(url, webRequest().params, { authorization: web, DPoP: key.proof({ htu: url, nonce: nonce! }) });
    expect(second.status).toBe(201);
    expect(second.headers.get('dpop-nonce')).toMatch(/^[\w.-]+$/);
  });

  it('a pushed request without a proof needs no nonce', async () => {
    expect((await postForm(`${nonced.url}/connect/par`, webRequest().params, { authorization: web })).status).toBe(201);
  });
});
