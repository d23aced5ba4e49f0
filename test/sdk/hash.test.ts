/**
 * hashSecret: the stored form of a shared secret, byte-for-byte IdentityServer's
 * `"secret".Sha256()` (base64 of the SHA-256 of the UTF-8 bytes) so configs move over.
 * Expected values were computed independently (Python hashlib), not with this code.
 */
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import * as sdk from '../../src/sdk/index.js';

describe('hashSecret', () => {
  it("equals IdentityServer's Sha256() of \"secret\"", () => {
    expect(hashSecret('secret')).toBe('K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=');
  });

  it('hashes the UTF-8 bytes of non-ASCII secrets', () => {
    expect(hashSecret('sëcret')).toBe('7dXG1CfsnX0BkOARkFWEv2DmMu/plzz0BrgQZUqaoyo=');
  });

  it("equals IdentityServer's Sha512() when asked for SHA-512", () => {
    expect(hashSecret('secret', 'sha512')).toBe('vSsar3708Jvp9Szi2NWZZ02Bqp1qRCFpbcTZPdBhnWgs5WtNZKnvCXdhztmeD2cmW192CF5bDufKRpayrW/isg==');
    expect(hashSecret('sëcret', 'sha512')).toBe('zb7mbqzLFJx4zjJLMe5jGAh4xHXsi3hjb2rWF1H74GB+9319CvKWDxQcLpJlxCHu26QuQgoS2cX1SuV7vOVGRw==');
  });

  it('matches the sample config’s demo secret (m2m-secret)', () => {
    expect(hashSecret('m2m-secret')).toBe('M9dee5IXs1ASsN7M0wTsnO7vzzqUs/LagNrdUYQbpys=');
  });

  it('is exported from svc/sdk for use in svc.config.ts', () => {
    expect(sdk.hashSecret).toBe(hashSecret);
  });
});
