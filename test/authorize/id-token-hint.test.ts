/** id_token_hint: our signature and issuer, expired or not; an access token is no hint. */
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { readIdTokenHint } from '../../src/authorize/id-token-hint.js';

const { privateKey, publicKey } = await generateKeyPair('RS256');
const keyRing = { verificationKey: async (kid: string) => (kid === 'k1' ? ({ kid, alg: 'RS256', publicKey } as never) : undefined) };
const issuer = 'https://id.example';
const sign = (typ: string, claims: Record<string, unknown> = {}, iss = issuer) =>
  new SignJWT({ sid: 's1', ...claims }).setProtectedHeader({ alg: 'RS256', typ, kid: 'k1' }).setIssuer(iss).setSubject('alice').setAudience('web')
    .setIssuedAt(1).setExpirationTime(2).sign(privateKey);

describe('readIdTokenHint', () => {
  it('accepts an expired ID token of ours', async () => {
    expect(await readIdTokenHint(await sign('JWT'), issuer, keyRing)).toEqual({ sub: 'alice', clientId: 'web', sid: 's1' });
  });

  it('refuses an access token, another issuer, an unknown key and garbage', async () => {
    expect(await readIdTokenHint(await sign('at+jwt'), issuer, keyRing)).toBeUndefined();
    expect(await readIdTokenHint(await sign('JWT', {}, 'https://other.example'), issuer, keyRing)).toBeUndefined();
    expect(await readIdTokenHint((await sign('JWT')).replace(/^[^.]+/, Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'k2' })).toString('base64url')), issuer, keyRing)).toBeUndefined();
    expect(await readIdTokenHint('not.a.token', issuer, keyRing)).toBeUndefined();
  });
});
