/**
 * A rolling upgrade, proven (issue 39): the previous release (the commit docs/guides/operations.md
 * names as "previous release: <sha>", checked out with `git worktree add`) and this one run at the
 * same time against one PostgreSQL schema with one config. The schema is upgraded by `svc migrate
 * up` while the old node runs; then whatever either node issues (JWT and reference access tokens,
 * refresh tokens, sign-in sessions, authorization codes) the other accepts, and a client the new
 * CLI adds to the database authenticates at the old node.
 *
 * Issue 40, the contract step: before it the new node writes grant families in the previous
 * release's plain format, so a code redeemed twice, a sign-out or a reused refresh token ends
 * the same tokens whichever node issued them; once the previous release is stopped and `svc
 * migrate contract` has run, the new node writes time-ordered family ids, and the families
 * written before still rotate and revoke.
 *
 * Issue 39, likewise: before the contract the new node lists each code's family in the sign-in
 * session's record, where the previous release's sign-out looks, as well as in a row of its own;
 * after it, in the row only, and a sign-out still ends what the code yielded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { familyOfSpentGrant } from '../../src/oauth/grant-family.js';
import { hashKey } from '../../src/store/hash-key.js';
import { migrations } from '../../src/store/sql/migrations.js';
import { contracts, timeOrderedFamiliesContract } from '../../src/store/sql/contracts.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { basic, freePort, postForm, repoRoot } from '../support/server.js';
import { Browser, formsOf, webRedirect, webRequest } from '../support/sign-in.js';
import { processLimitMs, runCliWith, spawnSvc, until, type SvcProcess } from '../support/svc-process.js';

/** The release note is where the previous release is named; the test reads it there. */
const previousRelease = /previous release: ([0-9a-f]{7,40})/.exec(readFileSync(join(repoRoot, 'docs/guides/operations.md'), 'utf8'))?.[1];

/** Why the previous release cannot be checked out here: under CI a failure, locally a visible skip. */
function gitSkipReason(): string | undefined {
  let reason: string | undefined;
  if (previousRelease === undefined) reason = 'docs/guides/operations.md names no "previous release: <commit>"';
  else {
    try {
      execFileSync('git', ['-C', repoRoot, 'cat-file', '-e', `${previousRelease}^{commit}`], { stdio: 'ignore' });
    } catch {
      reason = `git or the previous release's commit ${previousRelease} is missing (a shallow clone? fetch the full history)`;
    }
  }
  if (reason === undefined) return undefined;
  if (process.env.CI === 'true') throw new Error(`The two-version upgrade test cannot run: ${reason}.`);
  console.warn(`Skipping the two-version upgrade test: ${reason}.`);
  return reason;
}

const skip = (await postgresSkipReason('two-version upgrade test')) ?? gitSkipReason();

interface Node {
  readonly name: string;
  readonly url: string;
  readonly svc: SvcProcess;
}

async function startNode(name: string, bin: string, cwd: string, configPath: string, port: number, plugins: string): Promise<Node> {
  const svc = spawnSvc(process.execPath, [bin, 'start', '--config', configPath], { cwd, env: { SVC_NODE_PORT: String(port), SVC_PLUGINS: plugins } });
  const url = `http://127.0.0.1:${port}`;
  let ready = false;
  const poll = setInterval(() => void fetch(`${url}/.well-known/openid-configuration`).then((r) => (ready ||= r.ok), () => {}), 200);
  try {
    await until(`the ${name} node to answer`, svc, () => ready);
  } finally {
    clearInterval(poll);
  }
  return { name, url, svc };
}

async function stop(node: Node | undefined): Promise<void> {
  if (!node || node.svc.proc.exitCode !== null || node.svc.proc.signalCode !== null) return;
  node.svc.proc.kill('SIGTERM');
  const timeout = setTimeout(() => node.svc.proc.kill('SIGKILL'), 10_000);
  await node.svc.exited;
  clearTimeout(timeout);
}

describe.skipIf(skip)(`an upgrade from the previous release (${previousRelease}) with both running on one PostgreSQL schema`, () => {
  let schema: TestSchema;
  let dir: string;
  let oldTree: string;
  let configPath: string;
  let oldNode: Node | undefined;
  let newNode: Node | undefined;
  let newPort: number;
  const password = 'alice-password-1';

  beforeAll(async () => {
    schema = await createTestSchema('upgrade');
    dir = mkdtempSync(join(tmpdir(), 'svc-upgrade-'));
    oldTree = join(dir, 'previous');
    execFileSync('git', ['-C', repoRoot, 'worktree', 'add', '--detach', oldTree, previousRelease!], { stdio: 'pipe' });
    // The previous release's dependencies are a subset of this one's: the same folder serves both.
    symlinkSync(realpathSync(join(repoRoot, 'node_modules')), join(oldTree, 'node_modules'), 'dir');

    const oldPort = await freePort();
    newPort = await freePort();
    const config: UserConfig = {
      issuer: `http://127.0.0.1:${oldPort}`,
      host: '127.0.0.1',
      store: schema.url,
      logLevel: 'info',
      clientStores: { refreshInterval: 1 },
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
      identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
      users: [{ subjectId: 'sub-alice', username: 'alice', password: await hashPassword(password, { ln: 4, r: 8, p: 1 }), claims: { name: 'Alice' } }],
      clients: [
        { clientId: 'jwt-app', clientSecrets: [{ value: hashSecret('jwt-app-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
        {
          clientId: 'ref-app', clientSecrets: [{ value: hashSecret('ref-app-secret') }], allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'], accessTokenType: 'reference',
        },
        {
          clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['authorization_code', 'refresh_token'],
          allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, redirectUris: [webRedirect],
          // A used refresh token presented again revokes its family at once (RFC 9700 §4.14.2).
          refreshTokenReuseInterval: 0,
        },
      ],
    };
    configPath = join(dir, 'svc.config.ts');
    // One file for both nodes, as a deployment ships it; the port differs, and each release loads
    // the first-party plugins its own package ships.
    writeFileSync(
      configPath,
      `const config = ${JSON.stringify(config, null, 2)};\n` +
        'export default { ...config, port: Number(process.env.SVC_NODE_PORT), pluginDirs: [process.env.SVC_PLUGINS] };\n',
    );
    // The previous release starts first, alone, on an empty schema: the state before the upgrade.
    oldNode = await startNode('previous', join(oldTree, 'bin/svc.mjs'), oldTree, configPath, oldPort, join(oldTree, 'plugins'));
  }, processLimitMs * 2);

  afterAll(async () => {
    await Promise.all([stop(oldNode), stop(newNode)]);
    if (oldTree) execFileSync('git', ['-C', repoRoot, 'worktree', 'remove', '--force', oldTree], { stdio: 'ignore' });
    if (dir) rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
  });

  // The new release's CLI, with the environment its nodes get.
  const cli = (...args: string[]) =>
    runCliWith({ env: { SVC_NODE_PORT: String(newPort), SVC_PLUGINS: join(repoRoot, 'plugins') } }, ...args, '--config', configPath);
  const token = (node: Node, clientId: string, secret = `${clientId}-secret`, params: Record<string, string> = { grant_type: 'client_credentials' }) =>
    postForm(`${node.url}/connect/token`, params, { authorization: basic(clientId, secret) });
  const introspect = (node: Node, value: string) =>
    postForm(`${node.url}/connect/introspect`, { token: value }, { authorization: basic('api1', 'api1-secret') });
  const redeem = (node: Node, code: string, verifier: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, { authorization: basic('web', 'web-secret') });
  const authorizeUrl = (node: Node, params: Record<string, string>) => `${node.url}/connect/authorize?${new URLSearchParams(params)}`;
  const both = (): Array<[Node, Node]> => [[oldNode!, newNode!], [newNode!, oldNode!]];
  const refresh = (node: Node, refreshToken: string) => token(node, 'web', 'web-secret', { grant_type: 'refresh_token', refresh_token: refreshToken });

  /** A code for alice at `node`: signed in there on the browser's first visit, silently after. */
  async function codeAt(node: Node, browser: Browser): Promise<{ code: string; verifier: string }> {
    const { params, verifier } = webRequest({ scope: 'openid profile offline_access' });
    let page = await browser.get(authorizeUrl(node, params));
    if (page.status === 200) {
      const form = formsOf(page.html)[0]!;
      page = await browser.post(`${node.url}${form.action}`, { ...form.fields, username: 'alice', password });
    }
    expect(page.status, `${node.name}: ${page.html}`).toBe(303);
    return { code: page.location!.searchParams.get('code')!, verifier };
  }

  /** Tokens for a code issued at `issuing` and redeemed at `redeeming`. */
  async function tokensVia(issuing: Node, redeeming: Node, browser = new Browser(issuing.url)) {
    const { code, verifier } = await codeAt(issuing, browser);
    const tokens = await redeem(redeeming, code, verifier);
    expect(tokens.status, `${issuing.name}'s code at ${redeeming.name}: ${JSON.stringify(tokens.body)}`).toBe(200);
    return { code, verifier, browser, refreshToken: tokens.body.refresh_token as string, idToken: tokens.body.id_token as string };
  }

  /** The family id (`session_id`) stored with a token, and the stored key of its family's record. */
  async function storedFamily(refreshToken: string): Promise<{ familyId: string; familyKey: string }> {
    const [row] = await schema.query<{ session_id: string }>(`select session_id from ${schema.name}.persisted_grants where key = $1`, [hashKey(refreshToken)]);
    expect(row, 'the refresh token is stored').toBeDefined();
    const families = await schema.query<{ key: string }>(`select key from ${schema.name}.persisted_grants where type = 'refresh_family' and session_id = $1`, [row!.session_id]);
    expect(families, 'one family record').toHaveLength(1);
    return { familyId: row!.session_id, familyKey: families[0]!.key };
  }

  /** Signs the browser out at `node` (RP-Initiated Logout with the session's ID token). */
  async function signOut(node: Node, browser: Browser, idToken: string): Promise<void> {
    const out = await browser.get(`${node.url}/connect/endsession?${new URLSearchParams({ id_token_hint: idToken })}`);
    expect(out.status, `sign-out at ${node.name}: ${out.html}`).toBe(200);
  }

  // The previous release's formats: a spent grant's family is the 43-character digest of its
  // handle, any other a UUID, and a family record's stored key the 43-character digest of
  // `family:<id>`. The time-ordered ones start with 12 hex digits of time.
  const plainFamily = /^(?:[\w-]{43}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
  const plainKey = /^[\w-]{43}$/;
  const timeOrdered = /^[0-9a-f]{12}[\w-]{43}$/;
  /** Families written before the contract, used again after it. */
  const before: { rotating?: string; revoking?: string; unredeemed?: { code: string; verifier: string; browser: Browser } } = {};

  it('upgrades the schema with svc migrate up while the previous release runs, then starts the new release beside it', async () => {
    // The node is the previous release indeed: it had no `svc migrate` yet.
    const oldCli = spawnSync(process.execPath, [join(oldTree, 'bin/svc.mjs'), 'migrate', 'status'], { cwd: oldTree, encoding: 'utf8', timeout: processLimitMs });
    expect(oldCli.stderr).toContain('unknown command "migrate"');
    const newIds = migrations.map((m) => m.id);
    const before = await cli('migrate', 'status');
    expect(before.code, before.stderr).toBe(0);
    const pending = newIds.filter((id) => new RegExp(`^${id} +pending`, 'm').test(before.stdout));
    // This release adds migrations, and status only read: they are still pending.
    expect(pending.length).toBeGreaterThan(0);
    expect((await cli('migrate', 'status')).stdout).toBe(before.stdout);

    const up = await cli('migrate', 'up');
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toBe(`${pending.map((id) => `applied ${id}\n`).join('')}${pending.length} applied; the schema is up to date\n`);
    expect((await cli('migrate', 'status')).stdout).toContain(`${newIds.length} applied, 0 pending`);

    // The previous release keeps working on the expanded schema.
    expect((await token(oldNode!, 'ref-app')).status).toBe(200);

    newNode = await startNode('new', join(repoRoot, 'bin/svc.mjs'), repoRoot, configPath, newPort, join(repoRoot, 'plugins'));
    expect(oldNode!.svc.proc.exitCode).toBeNull();
  }, processLimitMs * 2);

  it('accepts at each node the JWT access tokens the other issued', async () => {
    for (const [issuing, checking] of both()) {
      const issued = await token(issuing, 'jwt-app');
      expect(issued.status, `${issuing.name}: ${JSON.stringify(issued.body)}`).toBe(200);
      expect((issued.body.access_token as string).split('.')).toHaveLength(3);
      const res = await introspect(checking, issued.body.access_token as string);
      expect(res.body, `${issuing.name} → ${checking.name}`).toMatchObject({ active: true, client_id: 'jwt-app', scope: 'api1.read', iss: oldNode!.url });
    }
  });

  it('accepts at each node the reference tokens the other issued', async () => {
    for (const [issuing, checking] of both()) {
      const issued = await token(issuing, 'ref-app');
      expect(issued.status).toBe(200);
      expect((issued.body.access_token as string).split('.')).toHaveLength(1);
      const res = await introspect(checking, issued.body.access_token as string);
      expect(res.body, `${issuing.name} → ${checking.name}`).toMatchObject({ active: true, client_id: 'ref-app', scope: 'api1.read' });
    }
  });

  it('continues at each node a sign-in started at the other, redeems its code there, and rotates refresh tokens across both', async () => {
    for (const [starting, finishing] of both()) {
      const { params, verifier } = webRequest({ scope: 'openid profile offline_access' });
      const browser = new Browser(starting.url);
      const page = await browser.get(authorizeUrl(starting, params));
      expect(page.html, starting.name).toContain('<h1>Sign in</h1>');
      const form = formsOf(page.html)[0]!;
      // The form (and the cookie it came with) is posted to the other node.
      const done = await browser.post(`${finishing.url}${form.action}`, { ...form.fields, username: 'alice', password });
      expect(done.status, `${starting.name} → ${finishing.name}: ${done.html}`).toBe(303);
      const code = done.location!.searchParams.get('code')!;
      expect(done.location!.searchParams.get('state')).toBe(params.state);

      // The code the finishing node issued is redeemed at the starting one.
      const tokens = await redeem(starting, code, verifier);
      expect(tokens.status, `${finishing.name}'s code at ${starting.name}: ${JSON.stringify(tokens.body)}`).toBe(200);
      expect(tokens.body.id_token).toBeTypeOf('string');

      // The session signed in at the finishing node answers prompt=none at the starting one.
      const silent = await browser.get(authorizeUrl(starting, webRequest({ prompt: 'none' }).params));
      expect(silent.status).toBe(303);
      expect(silent.location!.searchParams.has('code'), silent.location!.toString()).toBe(true);

      // The refresh token from the starting node is rotated at the finishing one, and its successor back.
      const rotated = await token(finishing, 'web', 'web-secret', { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string });
      expect(rotated.status, `${starting.name}'s refresh token at ${finishing.name}: ${JSON.stringify(rotated.body)}`).toBe(200);
      const back = await token(starting, 'web', 'web-secret', { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string });
      expect(back.status, `${finishing.name}'s refresh token at ${starting.name}: ${JSON.stringify(back.body)}`).toBe(200);
    }
  });

  it('authenticates at the previous release a client the new CLI added to the database', async () => {
    const added = await cli('clients', 'add', 'cli-app', '--grant', 'client_credentials', '--scope', 'api1.read', '--json');
    expect(added.code, added.stderr).toBe(0);
    const { secret } = JSON.parse(added.stdout) as { secret: string };
    // Each node reloads database clients within clientStores.refreshInterval (1 s here).
    await expect.poll(async () => (await token(oldNode!, 'cli-app', secret)).status, { timeout: 15_000, interval: 500 }).toBe(200);
    const issued = await token(oldNode!, 'cli-app', secret);
    expect((await introspect(newNode!, issued.body.access_token as string)).body).toMatchObject({ active: true, client_id: 'cli-app' });
    expect((await token(oldNode!, 'cli-app', 'not-the-secret')).status).toBe(401);
  });

  it('before the contract, redeems at each node a code the other issued, and a second redemption at the issuing node revokes what the first yielded', async () => {
    for (const [issuing, redeeming] of both()) {
      const { code, verifier, refreshToken } = await tokensVia(issuing, redeeming);
      const again = await redeem(issuing, code, verifier);
      expect(again, `${issuing.name}'s code again at ${issuing.name}`).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // The refresh token of the first redemption is gone at both nodes.
      for (const node of both()[0]) {
        expect((await refresh(node, refreshToken)).body.error, `${redeeming.name}'s refresh token at ${node.name}`).toBe('invalid_grant');
      }
    }
  });

  it('before the contract, signing out at either node ends what the session\'s codes yielded at both', async () => {
    for (const [signingIn, signingOut] of both()) {
      const browser = new Browser(signingIn.url);
      // One session, a code from each node, each redeemed at the other.
      const first = await tokensVia(signingIn, signingOut, browser);
      const second = await tokensVia(signingOut, signingIn, browser);
      // Still good: a rotation at the other node, and back.
      const rotated = await refresh(signingOut, first.refreshToken);
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      await signOut(signingOut, browser, second.idToken);
      for (const [name, refreshToken] of [['first', rotated.body.refresh_token as string], ['second', second.refreshToken]] as const) {
        for (const node of both()[0]) {
          expect((await refresh(node, refreshToken)).body.error, `the ${name} code's refresh token at ${node.name} after sign-out at ${signingOut.name}`).toBe('invalid_grant');
        }
      }
    }
  });

  it('before the contract, the new node writes the previous release\'s family format, and lists the code in the session record', async () => {
    const { refreshToken } = await tokensVia(newNode!, newNode!);
    const stored = await storedFamily(refreshToken);
    expect(stored.familyId).toMatch(plainFamily);
    expect(stored.familyKey).toMatch(plainKey);
    expect(await sessionRecordsListing(stored.familyId), 'the session record lists it').toBe(1);
    expect(await codeRowsNaming(stored.familyId), 'and a row of its own names it').toBe(1);
    const rows = await schema.query<{ type: string; session_id: string }>(
      `select type, session_id from ${schema.name}.persisted_grants where type in ('authorization_code', 'refresh_token', 'refresh_family', 'reference_token') and session_id is not null`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => !plainFamily.test(r.session_id))).toEqual([]);

    // Kept for after the contract: a family to rotate, one to revoke, and a code the previous
    // release issued and nobody redeemed yet.
    before.rotating = refreshToken;
    before.revoking = (await tokensVia(oldNode!, newNode!)).refreshToken;
    const browser = new Browser(oldNode!.url);
    before.unredeemed = { ...(await codeAt(oldNode!, browser)), browser };
  });

  it('logs no error on either node', () => {
    for (const node of [oldNode!, newNode!]) {
      const errors = node.svc.logs().filter((line) => typeof line.level === 'number' && line.level >= 50);
      expect(errors, `${node.name}:\n${node.svc.output()}`).toEqual([]);
    }
  });

  // The policy's rule for new client fields (docs/guides/operations.md, "Upgrades"): the previous
  // release refuses a database client that uses a field it does not know (fail closed, with an
  // error line), so such a field is used only once every node runs the new release.
  it('refuses at the previous release a database client that uses a field only the new release knows', async () => {
    const added = await cli('clients', 'add', 'resource-app', '--grant', 'client_credentials', '--scope', 'api1.read', '--require-resource-indicator', '--json');
    expect(added.code, added.stderr).toBe(0);
    const { secret } = JSON.parse(added.stdout) as { secret: string };
    await expect.poll(async () => (await token(newNode!, 'resource-app', secret)).body.error, { timeout: 15_000, interval: 500 }).toBe('invalid_request');
    const refusal = () => oldNode!.svc.logs().find((line) => String(line.msg).includes('client "resource-app".requireResourceIndicator: unknown field'));
    await expect.poll(refusal, { timeout: 30_000, interval: 500 }).toMatchObject({ level: 50, clientStore: 'database' });
    expect(await token(oldNode!, 'resource-app', secret)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  }, 60_000);

  /** How many sign-in session records list `familyId` in their JSON (the previous release's place). */
  async function sessionRecordsListing(familyId: string): Promise<number> {
    const rows = await schema.query<{ data: string }>(`select data from ${schema.name}.persisted_grants where type = 'sign_in_session'`);
    return rows.filter((r) => ((JSON.parse(r.data) as { families?: string[] }).families ?? []).includes(familyId)).length;
  }
  /** How many code rows (issue 39) name `familyId`. */
  async function codeRowsNaming(familyId: string): Promise<number> {
    const rows = await schema.query<{ data: string }>(`select data from ${schema.name}.persisted_grants where type = 'sign_in_session_code'`);
    return rows.filter((r) => (JSON.parse(r.data) as { family: string }).family === familyId).length;
  }

  it('contracts once the previous release is stopped: the new node then writes time-ordered family ids', async () => {
    // Upgrade every node, then contract (docs/guides/operations.md, "Upgrades").
    await stop(oldNode);
    const status = await cli('migrate', 'status');
    expect(status.stdout).toMatch(new RegExp(`^${timeOrderedFamiliesContract.id} +not contracted +-$`, 'm'));
    const contract = await cli('migrate', 'contract');
    expect(contract.code, contract.stderr).toBe(0);
    expect(contract.stdout).toContain(`contracted ${timeOrderedFamiliesContract.id}: nodes write grant-family ids and refresh family keys in time order\n`);
    for (const step of contracts) expect(contract.stdout).toContain(`contracted ${step.id}: nodes write ${step.effect}\n`);
    expect((await cli('migrate', 'status')).stdout).toMatch(new RegExp(`^${timeOrderedFamiliesContract.id} +contracted +\\d{4}-`, 'm'));
    // The node re-reads the marker every 10 seconds until it sees it.
    const switched = () => contracts.every((step) => newNode!.svc.logs().some((line) => line.msg === `the database is contracted: ${step.effect}`));
    await expect.poll(switched, { timeout: 30_000, interval: 500 }).toBe(true);

    const { code, verifier, refreshToken } = await tokensVia(newNode!, newNode!);
    const stored = await storedFamily(refreshToken);
    // The code's time in front of the previous release's digest of it.
    expect(stored.familyId).toMatch(timeOrdered);
    expect(stored.familyId).toBe(code.slice(0, 12) + familyOfSpentGrant(code, false));
    expect(stored.familyKey).toMatch(timeOrdered);
    expect(stored.familyKey.slice(0, 12)).toBe(code.slice(0, 12));
    const [codeRow] = await schema.query<{ session_id: string }>(`select session_id from ${schema.name}.persisted_grants where key = $1`, [hashKey(code)]);
    expect(codeRow!.session_id).toBe(stored.familyId);

    // It rotates, and the rotated token stays in the family.
    const rotated = await refresh(newNode!, refreshToken);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect((await storedFamily(rotated.body.refresh_token as string)).familyId).toBe(stored.familyId);
    // A second redemption of the code revokes it.
    expect((await redeem(newNode!, code, verifier)).body.error).toBe('invalid_grant');
    expect((await refresh(newNode!, rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');
  }, 60_000);

  it('after the contract, a code is a row of its own only, and signing out still ends what it yielded', async () => {
    const browser = new Browser(newNode!.url);
    const { refreshToken, idToken } = await tokensVia(newNode!, newNode!, browser);
    const { familyId } = await storedFamily(refreshToken);
    expect(await sessionRecordsListing(familyId), 'the session record is not rewritten per code').toBe(0);
    expect(await codeRowsNaming(familyId)).toBe(1);
    await signOut(newNode!, browser, idToken);
    expect((await refresh(newNode!, refreshToken)).body.error).toBe('invalid_grant');
    expect(await codeRowsNaming(familyId), 'gone with the session').toBe(0);
  }, 60_000);

  it('after the contract, rotates and revokes the families written before it, and a code the previous release issued joins the family its record names', async () => {
    // A family from before rotates, in its own (plain) family.
    const rotated = await refresh(newNode!, before.rotating!);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const family = (await storedFamily(rotated.body.refresh_token as string)).familyId;
    expect(family).toMatch(plainFamily);
    // Reusing the rotated-away token revokes that family.
    expect((await refresh(newNode!, before.rotating!)).body.error).toBe('invalid_grant');
    expect((await refresh(newNode!, rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');

    // RFC 7009 revocation of a refresh token from before.
    const revoked = await postForm(`${newNode!.url}/connect/revocation`, { token: before.revoking!, token_type_hint: 'refresh_token' }, { authorization: basic('web', 'web-secret') });
    expect(revoked.status).toBe(200);
    expect((await refresh(newNode!, before.revoking!)).body.error).toBe('invalid_grant');

    // The previous release's code, redeemed now: its tokens join the plain family the sign-in
    // session listed, so signing out still ends them.
    const { code, verifier, browser } = before.unredeemed!;
    const tokens = await redeem(newNode!, code, verifier);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect((await storedFamily(tokens.body.refresh_token as string)).familyId).toBe(familyOfSpentGrant(code, false));
    await signOut(newNode!, browser, tokens.body.id_token as string);
    expect((await refresh(newNode!, tokens.body.refresh_token as string)).body.error).toBe('invalid_grant');
  }, 60_000);
});
