/** The key cache of one issuer, with a stand-in network and a manual clock. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IssuerKeySet } from '../../../plugins/workload-identity/issuer-keys.js';
import { readOptions } from '../../../plugins/workload-identity/options.js';

const jwk = (kid: string) => ({ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid });
const issuer = readOptions({ issuers: [{ issuer: 'https://issuer.example', audience: 'svc', jwksUri: 'https://issuer.example/jwks' }] }).issuers[0]!;

function setup() {
  let now = 1_000_000;
  let published: unknown = { keys: [jwk('a')] };
  let fail: Error | undefined;
  const fetched: string[] = [];
  const warnings: unknown[] = [];
  const keys = new IssuerKeySet(issuer, {
    clock: { now: () => now },
    logger: { info() {}, warn: (o: unknown) => void warnings.push(o) },
    fetchJson: async (url) => {
      fetched.push(url.href);
      if (fail) throw fail;
      return published;
    },
    fetchTimeout: 5, cacheTime: 600, minRefreshInterval: 60, allowLoopback: false,
  });
  return {
    keys, fetched, warnings,
    advance: (s: number) => void (now += s * 1000),
    publish: (value: unknown) => void (published = value),
    failWith: (error: Error | undefined) => void (fail = error),
  };
}

describe('an issuer key set', () => {
  it('fetches once, then serves from the cache until cacheTime', async () => {
    const t = setup();
    expect(await t.keys.keysFor('a')).toMatchObject({ keys: [{ kid: 'a' }] });
    expect(await t.keys.keysFor(undefined)).toMatchObject({ keys: [{ kid: 'a' }] });
    expect(t.fetched).toHaveLength(1);
    t.advance(600);
    t.publish({ keys: [jwk('b')] });
    expect(await t.keys.keysFor('b')).toMatchObject({ keys: [{ kid: 'b' }] });
    expect(t.fetched).toHaveLength(2);
  });

  it('shares one fetch between concurrent requests', async () => {
    const t = setup();
    await Promise.all([t.keys.keysFor('a'), t.keys.keysFor('a'), t.keys.keysFor('a')]);
    expect(t.fetched).toHaveLength(1);
  });

  it('keeps the last keys when a refresh fails, and does not retry within minRefreshInterval', async () => {
    const t = setup();
    await t.keys.keysFor('a');
    t.advance(600);
    t.failWith(new Error('HTTP 503'));
    expect(await t.keys.keysFor('a')).toMatchObject({ keys: [{ kid: 'a' }] });
    expect(t.warnings).toEqual([expect.objectContaining({ problem: 'key set https://issuer.example/jwks: HTTP 503', usingCachedKeys: true })]);
    await t.keys.keysFor('a');
    expect(t.fetched).toHaveLength(2);
  });

  it('says why when it never got keys', async () => {
    const t = setup();
    t.failWith(new Error('connect ECONNREFUSED'));
    expect(await t.keys.keysFor('a')).toEqual({ problem: expect.stringContaining('the keys of issuer "https://issuer.example" are unavailable (key set https://issuer.example/jwks: connect ECONNREFUSED; next fetch not before ') });
  });

  it('refuses a key set holding a private key', async () => {
    const t = setup();
    t.publish({ keys: [{ ...jwk('a'), d: 'secret' }] });
    expect(await t.keys.keysFor('a')).toEqual({ problem: expect.stringContaining('keys[0] is a private key') });
  });
});
