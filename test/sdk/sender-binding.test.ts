/** `requireSenderBinding` and its certificate half, with plain claims (RFC 8705 §3, RFC 9449 §7.1). */
import { describe, expect, it } from 'vitest';
import {
  accessTokenHash, boundCertificate, certificateBindingProblem, InvalidDpopProof, InvalidGrant, requireCertificateBinding, requireSenderBinding,
} from '../../src/sdk/index.js';

const certificateBound = { sub: 'alice', cnf: { 'x5t#S256': 'partner' } };
const bothBound = { sub: 'alice', cnf: { jkt: 'key', 'x5t#S256': 'partner' } };

describe('boundCertificate and certificateBindingProblem', () => {
  it('reads cnf["x5t#S256"] and nothing else', () => {
    expect(boundCertificate(certificateBound)).toBe('partner');
    expect(boundCertificate({ cnf: { jkt: 'key' } })).toBeUndefined();
    expect(boundCertificate({ cnf: ['x5t#S256'] })).toBeUndefined();
    expect(boundCertificate({ cnf: { 'x5t#S256': 7 } })).toBeUndefined();
    expect(boundCertificate({})).toBeUndefined();
  });

  it('names the problem: no certificate, another certificate; none for the same one or an unbound token', () => {
    expect(certificateBindingProblem(certificateBound, undefined)).toBe('the token is certificate-bound and the request came without a client certificate');
    expect(certificateBindingProblem(certificateBound, 'stranger')).toBe('the token is bound to another client certificate than the request came with');
    expect(certificateBindingProblem(certificateBound, 'partner')).toBeUndefined();
    expect(certificateBindingProblem({ sub: 'alice' }, undefined)).toBeUndefined();
  });
});

describe('requireCertificateBinding', () => {
  it('refuses with invalid_grant, the reason only in the log detail', () => {
    let caught: unknown;
    try {
      requireCertificateBinding(certificateBound, 'stranger');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidGrant);
    expect(caught).toMatchObject({
      code: 'invalid_grant', status: 400,
      description: 'The token is bound to a TLS client certificate this request does not present.',
      logDetail: 'the token is bound to another client certificate than the request came with',
    });
  });
});

describe('requireSenderBinding', () => {
  const token = 'the.bound.token';
  const proof = { jkt: 'key', ath: accessTokenHash(token) };

  it('accepts a token bound both ways only with the proof and the certificate', () => {
    expect(() => requireSenderBinding(bothBound, token, { dpop: proof, certificateThumbprint: 'partner' })).not.toThrow();
    expect(() => requireSenderBinding(bothBound, token, { dpop: proof, certificateThumbprint: 'stranger' })).toThrow(InvalidGrant);
    expect(() => requireSenderBinding(bothBound, token, { dpop: undefined, certificateThumbprint: 'partner' })).toThrow(InvalidDpopProof);
  });

  it('accepts an unbound token from anyone, and a certificate-bound one without a DPoP proof', () => {
    expect(() => requireSenderBinding({ sub: 'alice' }, token, {})).not.toThrow();
    expect(() => requireSenderBinding(certificateBound, token, { certificateThumbprint: 'partner' })).not.toThrow();
    expect(() => requireSenderBinding(certificateBound, token, {})).toThrow(InvalidGrant);
  });
});
