/** id_token_hint: our signature and issuer, expired or not, under an ID token algorithm of ours; an access token is no hint. */
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { describe, expect, it } from 'vitest';
import { readIdTokenHint } from '../../src/authorize/id-token-hint.js';

const rsa = await generateKeyPair('RS256');
const ec = await generateKeyPair('ES256');
const keys: Record<string, { alg: string; publicKey: CryptoKey }> = { k1: { alg: 'RS256', publicKey: rsa.publicKey }, e1: { alg: 'ES256', publicKey: ec.publicKey } };
const keyRing = { verificationKey: async (kid: string) => (keys[kid] ? ({ kid, ...keys[kid] } as never) : undefined) };
const issuer = 'https://id.example';
const both = ['RS256', 'ES256'];
const sign = (typ: string, claims: Record<string, unknown> = {}, iss = issuer, { alg, kid, key } = { alg: 'RS256', kid: 'k1', key: rsa.privateKey }) =>
  new SignJWT({ sid: 's1', ...claims }).setProtectedHeader({ alg, typ, kid }).setIssuer(iss).setSubject('alice').setAudience('web')
    .setIssuedAt(1).setExpirationTime(2).sign(key);
const es256 = { alg: 'ES256', kid: 'e1', key: ec.privateKey };

describe('readIdTokenHint', () => {
  it('accepts an expired ID token of ours', async () => {
    expect(await readIdTokenHint(await sign('JWT'), issuer, keyRing, ['RS256'])).toEqual({ sub: 'alice', clientId: 'web', sid: 's1' });
  });

  it('accepts an ES256 ID token when ES256 is one of the ID token algorithms, and only then', async () => {
    const hint = await sign('JWT', {}, issuer, es256);
    expect(await readIdTokenHint(hint, issuer, keyRing, both)).toEqual({ sub: 'alice', clientId: 'web', sid: 's1' });
    expect(await readIdTokenHint(hint, issuer, keyRing, ['RS256'])).toBeUndefined();
  });

  it('refuses an access token, another issuer, an unknown key and garbage', async () => {
    expect(await readIdTokenHint(await sign('at+jwt'), issuer, keyRing, both)).toBeUndefined();
    expect(await readIdTokenHint(await sign('at+jwt', {}, issuer, es256), issuer, keyRing, both)).toBeUndefined();
    expect(await readIdTokenHint(await sign('JWT', {}, 'https://other.example'), issuer, keyRing, both)).toBeUndefined();
    expect(await readIdTokenHint((await sign('JWT')).replace(/^[^.]+/, Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k2' })).toString('base64url')), issuer, keyRing, both)).toBeUndefined();
    expect(await readIdTokenHint('not.a.token', issuer, keyRing, both)).toBeUndefined();
  });
});
