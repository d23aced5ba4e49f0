/**
 * The grant runner fails closed: a grant that decides nothing denies, a grant that throws
 * anything but a token request's OAuth error is answered `server_error` (and logged), and a
 * success may only narrow the scopes.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import {
  AccessDenied, InvalidClient, InvalidGrant, OAuthError, ServerError, SlowDown, UnsupportedGrantType,
} from '../../src/oauth/errors.js';
import { answerSpentGrant, runGrant } from '../../src/grants/grant-runner.js';
import type { Client, ExtensionGrantValidator, GrantContext, Logger, ValidatedTokenRequest } from '../../src/sdk/index.js';
import { StoreUnavailableError } from '../../src/store/store.js';

const config = resolveConfig({
  issuer: 'https://issuer.example',
  apiScopes: [{ name: 'api.read' }, { name: 'api.write' }],
  clients: [{ clientId: 'app', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['urn:test:magic'], allowedScopes: ['openid', 'api.read', 'api.write'], allowOfflineAccess: true }],
}, '/');
const client: Client = config.clients[0]!;

function request(overrides: Partial<ValidatedTokenRequest> = {}): ValidatedTokenRequest {
  return { client, grantType: 'urn:test:magic', requestedScopes: ['api.read'], scopeRequested: true, resources: [], raw: new Map(), ...overrides };
}

interface Line { level: string; obj: Record<string, unknown>; msg: string | undefined }
function recordingLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const logger = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return logger;
}

function grant(validate: (ctx: GrantContext) => void | Promise<void>, extra: Partial<ExtensionGrantValidator> = {}): ExtensionGrantValidator {
  return { grantType: 'urn:test:magic', validate, ...extra };
}

const alice = { kind: 'user', id: 'alice', authTime: 1_800_000_000 } as const;

async function refusal(attempt: Promise<unknown>): Promise<{ error: string; error_description: string; status: number }> {
  const err = await attempt.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(OAuthError);
  return { ...(err as OAuthError).toJSON(), status: (err as OAuthError).status };
}

describe('runGrant', () => {
  it('passes a success with the requested scopes and the custom response members', async () => {
    const outcome = await runGrant(grant((ctx) => {
      ctx.result = { subject: alice };
      ctx.customResponse.magic_level = 3;
    }), request(), recordingLogger());
    expect(outcome).toEqual({ success: { subject: alice }, scopes: ['api.read'], customResponse: { magic_level: 3 } });
  });

  it('denies with invalid_grant when the grant sets no result, and warns in the log', async () => {
    const logger = recordingLogger();
    expect(await refusal(runGrant(grant(() => {}), request(), logger))).toEqual({ error: 'invalid_grant', error_description: 'The grant is invalid.', status: 400 });
    expect(logger.lines).toEqual([{ level: 'warn', obj: { grantType: 'urn:test:magic', clientId: 'app' }, msg: 'grant validator set no result; denied' }]);
  });

  it("passes a token request's OAuth error as the grant threw it", async () => {
    const logger = recordingLogger();
    expect(await refusal(runGrant(grant(() => { throw new InvalidGrant('The code has expired.'); }), request(), logger)))
      .toEqual({ error: 'invalid_grant', error_description: 'The code has expired.', status: 400 });
    expect(await refusal(runGrant(grant(async () => { throw new SlowDown('Poll less often.'); }), request(), logger)))
      .toMatchObject({ error: 'slow_down', error_description: 'Poll less often.' });
    expect(await refusal(runGrant(grant(() => { throw new AccessDenied('No.'); }), request(), logger)))
      .toMatchObject({ error: 'access_denied' });
    expect(logger.lines).toEqual([]);
  });

  it('answers server_error for an OAuth error a token request cannot have, logging the code', async () => {
    for (const thrown of [new InvalidClient('Go away.'), new UnsupportedGrantType(), new OAuthError('login_required', 'Sign in.')]) {
      const logger = recordingLogger();
      const r = await refusal(runGrant(grant(() => { throw thrown; }), request(), logger));
      expect(r).toMatchObject({ error: 'server_error', status: 500 });
      expect(r.error_description).not.toContain(thrown.description);
      expect(logger.lines).toEqual([{ level: 'error', obj: { grantType: 'urn:test:magic', code: thrown.code }, msg: 'grant answered with an error code a token request cannot have' }]);
    }
  });

  it('answers server_error for any other throw, and logs the cause, never showing it to the client', async () => {
    const logger = recordingLogger();
    const boom = new TypeError("Cannot read properties of undefined (reading 'password')");
    const r = await refusal(runGrant(grant(() => { throw boom; }), request(), logger));
    expect(r).toMatchObject({ error: 'server_error', status: 500 });
    expect(r.error_description).not.toContain('password');
    expect(logger.lines).toEqual([{ level: 'error', obj: { err: boom, grantType: 'urn:test:magic', clientId: 'app' }, msg: 'grant validator threw' }]);
  });

  it('answers server_error for a thrown non-error value too', async () => {
    const r = await refusal(runGrant(grant(() => Promise.reject('a string')), request(), recordingLogger()));
    expect(r.error).toBe('server_error');
  });

  it('passes a store outage through unchanged, for the error middleware to answer', async () => {
    const outage = new StoreUnavailableError('the store is down');
    const err = await runGrant(grant(() => { throw outage; }), request(), recordingLogger()).catch((e: unknown) => e);
    expect(err).toBe(outage);
  });

  it('answers server_error for a success whose subject is malformed', async () => {
    const malformed = [undefined, {}, { kind: 'robot', id: 'r2' }, { kind: 'user', id: '' }, { kind: 'user', id: 'alice' }, { kind: 'user', id: 'alice', authTime: Number.NaN }];
    for (const subject of malformed) {
      const logger = recordingLogger();
      const r = await refusal(runGrant(grant((ctx) => { ctx.result = { subject } as never; }), request(), logger));
      expect(r.error).toBe('server_error');
      expect(logger.lines.map((l) => l.msg)).toEqual(['grant validator returned a success without a well-formed subject { kind, id, authTime? }']);
    }
  });

  it('accepts a client subject without authTime', async () => {
    const outcome = await runGrant(grant((ctx) => { ctx.result = { subject: { kind: 'client', id: 'app' } }; }), request(), recordingLogger());
    expect(outcome.success.subject).toEqual({ kind: 'client', id: 'app' });
  });

  describe('scopes may only narrow', () => {
    it('lets a grant narrow the requested scopes', async () => {
      const outcome = await runGrant(grant((ctx) => { ctx.result = { subject: alice, scopes: ['api.read'] }; }),
        request({ requestedScopes: ['api.read', 'api.write'] }), recordingLogger());
      expect(outcome.scopes).toEqual(['api.read']);
    });

    it('refuses with invalid_scope a grant that adds a scope that was not requested', async () => {
      expect(await refusal(runGrant(grant((ctx) => { ctx.result = { subject: alice, scopes: ['api.read', 'api.write'] }; }), request(), recordingLogger())))
        .toEqual({ error: 'invalid_scope', error_description: 'The grant produced scopes beyond those requested.', status: 400 });
    });

    it('with no scope sent, lets a grant choose among what the client is allowed, offline_access included', async () => {
      const outcome = await runGrant(grant((ctx) => { ctx.result = { subject: alice, scopes: ['api.write', 'offline_access'] }; }),
        request({ requestedScopes: ['api.read'], scopeRequested: false }), recordingLogger());
      expect(outcome.scopes).toEqual(['api.write', 'offline_access']);
    });

    it('with no scope sent, still refuses a scope the client is not allowed', async () => {
      const r = await refusal(runGrant(grant((ctx) => { ctx.result = { subject: alice, scopes: ['admin'] }; }),
        request({ scopeRequested: false }), recordingLogger()));
      expect(r.error).toBe('invalid_scope');
    });

    it('with no scope sent, refuses offline_access to a client without allowOfflineAccess', async () => {
      const r = await refusal(runGrant(grant((ctx) => { ctx.result = { subject: alice, scopes: ['offline_access'] }; }),
        request({ client: { ...client, allowOfflineAccess: false }, scopeRequested: false }), recordingLogger()));
      expect(r.error).toBe('invalid_scope');
    });
  });
});

describe('answerSpentGrant', () => {
  it('answers invalid_grant "already used" for a grant without a spent rule', async () => {
    const err = await answerSpentGrant(grant(() => {}), 'handle', request(), recordingLogger());
    expect((err as OAuthError).toJSON()).toEqual({ error: 'invalid_grant', error_description: 'The grant has already been used.' });
  });

  it("answers the grant's own spent rule", async () => {
    const err = await answerSpentGrant(grant(() => {}, { spent: async () => new InvalidGrant('The code was already redeemed; its tokens are revoked.') }), 'h', request(), recordingLogger());
    expect((err as OAuthError).description).toBe('The code was already redeemed; its tokens are revoked.');
  });

  it('answers server_error when the spent rule throws or answers a code a token request cannot have', async () => {
    const logger = recordingLogger();
    const threw = await answerSpentGrant(grant(() => {}, { spent: () => Promise.reject(new Error('db gone')) }), 'h', request(), logger);
    expect((threw as OAuthError).code).toBe('server_error');
    const wrongCode = await answerSpentGrant(grant(() => {}, { spent: async () => new InvalidClient() }), 'h', request(), logger);
    expect(wrongCode).toBeInstanceOf(ServerError);
    expect(logger.lines.map((l) => l.msg)).toEqual(['grant spent rule failed', 'grant answered with an error code a token request cannot have']);
  });
});
