/**
 * A config that start-up refuses leaves nothing behind (issue 33, newcomer's trial): the checks
 * that need the plugins (a grant type or authentication method nothing provides) run before
 * the store is opened, so no database file, no migration and no signing key is made, and the
 * boot error is the one it always was.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-checks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const typo = (store: string) => checkConfig({
  issuer: 'https://login.example.com', store,
  apiScopes: [{ name: 'api1.read' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
  clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('a-secret-of-this-test') }], allowedGrantTypes: ['client_credential'], allowedScopes: ['api1.read'] }],
}, dir);

async function refusal(run: () => Promise<unknown>): Promise<BootError> {
  const err = await run().then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(BootError);
  return err as BootError;
}

const expectedProblem = /^clients\[0\]\.allowedGrantTypes\[0\]: unknown grant type "client_credential" \(did you mean "client_credentials"\?\) \(known: .*client_credentials.*\)$/;

describe('a config refused after the plugins load', () => {
  it('leaves no database file, folder or key behind, and stops with the same CONFIG_INVALID', async () => {
    const err = await refusal(() => createApp(typo('sqlite:./data/svc.db'), { logDestination: quiet }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(expectedProblem);
    expect(existsSync(join(dir, 'data'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes nothing to a store it was given: no signing key, no record', async () => {
    const store = createMemoryStore({ now: () => Date.now() });
    const err = await refusal(() => createApp(typo('memory'), { logDestination: quiet, store }));
    expect(err.problems[0]).toMatch(expectedProblem);
    expect(await store.listSigningKeys()).toEqual([]);
    expect(await store.get('device_flow:cookie_secret')).toBeUndefined();
  });
});
