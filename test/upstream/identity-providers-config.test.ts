/**
 * `identityProviders` and `upstreamSignIn` (issue 34): a bad entry stops start-up with one line
 * naming the field; a good one resolves with its defaults.
 */
import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';
import { resolveConfig } from '../../src/config/resolve.js';

const entra = {
  name: 'entra', displayName: 'Contoso', type: 'oidc', clientId: 'app-id', clientSecret: 'secret',
  issuer: 'https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000/v2.0',
};
const github = {
  name: 'github', displayName: 'GitHub', type: 'oauth2', clientId: 'gh', clientSecret: 'gh-secret',
  authorizationUrl: 'https://github.com/login/oauth/authorize', tokenUrl: 'https://github.com/login/oauth/access_token', userInfoUrl: 'https://api.github.com/user',
};
const problems = (identityProviders: unknown, upstreamSignIn?: unknown): string[] =>
  validateUserConfig({ identityProviders, ...(upstreamSignIn === undefined ? {} : { upstreamSignIn }) });

describe('identityProviders', () => {
  it('accepts an OpenID Connect and a GitHub-shaped provider, and fills in the defaults', () => {
    expect(problems([entra, github])).toEqual([]);
    const resolved = resolveConfig({ identityProviders: [entra, github] as never }, '/tmp');
    expect(resolved.identityProviders[0]).toMatchObject({ scopes: ['openid', 'email', 'profile'], subjectClaim: 'sub', timeout: 10, trustEmailVerified: false });
    expect(resolved.identityProviders[1]).toMatchObject({ scopes: [], subjectClaim: 'id', issuer: 'https://github.com' });
    expect(resolved.upstreamSignIn).toEqual({ hidePasswordForm: false, linkByVerifiedEmail: false });
    expect(resolved.identityProviders[0]!.domains).toEqual([]);
    expect(resolveConfig({ identityProviders: [{ ...entra, domains: ['Contoso.COM'] }] as never }, '/tmp').identityProviders[0]!.domains).toEqual(['contoso.com']);
  });

  it.each([
    [[{ ...entra, type: 'saml' }], 'identityProviders[0].type: expected "oidc" or "oauth2", got "saml"'],
    [[{ ...entra, name: 'Entra ID' }], 'identityProviders[0].name: expected lower-case letters, digits and "-" (at most 40), got "Entra ID"'],
    [[entra, entra], 'identityProviders[1].name: "entra" is already the name of another identity provider'],
    [[{ ...entra, issuer: 'http://login.example.com' }], 'identityProviders[0].issuer: expected an https URL (http only on loopback), got "http://login.example.com"'],
    [[{ ...entra, clientSecret: undefined }], 'identityProviders[0].clientSecret: give exactly one of clientSecret and privateKeyJwt (how we authenticate to the provider)'],
    [[{ ...entra, clientSecret: undefined, privateKeyJwt: { key: { kty: 'RSA', d: 'x' } } }], 'identityProviders[0].privateKeyJwt.key.alg: required: the JWS algorithm to sign the client assertion with, e.g. "RS256"'],
    [[{ ...entra, scopes: ['email'] }], 'identityProviders[0].scopes: an OpenID Connect provider needs "openid" (OIDC Core §3.1.2.1)'],
    [[{ ...entra, claimMapping: { oid: 'sub' } }], 'identityProviders[0].claimMapping: cannot map to "sub": our subject is our own, never the provider\'s'],
    [[{ ...entra, allowedEmailDomains: ['@contoso.com'] }], 'identityProviders[0].allowedEmailDomains[0]: expected a domain like "contoso.com", got "@contoso.com"'],
    [[{ ...entra, domains: [] }], 'identityProviders[0].domains: expected a non-empty array of domains, e.g. ["contoso.com"]'],
    [[{ ...entra, domains: ['user@contoso.com'] }], 'identityProviders[0].domains[0]: expected a domain like "contoso.com", got "user@contoso.com"'],
    [[{ ...entra, domains: ['contoso.com'] }, { ...github, domains: ['Contoso.com'] }], 'identityProviders[1].domains[0]: "Contoso.com" already goes to identity provider "entra"'],
    [[{ ...entra, requiredClaim: { name: 'tid' } }], 'identityProviders[0].requiredClaim: expected { name: "<upstream claim>", value: <string, number or boolean> }'],
    [[{ ...entra, timeout: 0 }], 'identityProviders[0].timeout: expected whole seconds from 1 to 60, got number 0'],
    [[{ ...github, userInfoUrl: undefined }], 'identityProviders[0].userInfoUrl: required, expected an absolute https URL, got nothing'],
    [[{ ...entra, userInfoUrl: 'https://x.example' }], 'identityProviders[0].userInfoUrl: unknown field for type "oidc" (known: name, displayName, type, clientId, clientSecret, privateKeyJwt, scopes, claimMapping, allowedEmailDomains, requiredClaim, domains, trustEmailVerified, trustAmr, timeout, issuer, logoutAtProvider)'],
  ])('%j is refused naming the field', (list, message) => {
    expect(problems(list)).toEqual([message]);
  });

  it('never shows a client secret in a message', () => {
    expect(problems([{ ...entra, clientSecret: 42 }])).toEqual(['identityProviders[0].clientSecret: expected a non-empty string']);
  });

  it('hidePasswordForm without providers would lock everyone out', () => {
    expect(problems(undefined, { hidePasswordForm: true })).toEqual(['upstreamSignIn.hidePasswordForm: needs identityProviders: without them nobody could sign in']);
    expect(problems([entra], { linkByEmail: true })).toEqual(['upstreamSignIn.linkByEmail: unknown field (known: hidePasswordForm, linkByVerifiedEmail)']);
  });
});
