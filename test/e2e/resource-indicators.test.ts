/**
 * Resource indicators (RFC 8707) over HTTP: `resource` at the authorization endpoint, PAR, device
 * authorization and every grant of the token endpoint; access tokens for exactly the named APIs
 * with only their scopes; a code or refresh token narrowed to one of its APIs, never widened;
 * introspection of the narrowed token; and every `invalid_target` with its own test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, Browser, signInAndAuthorize, signInClients, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';
import { decideOverHttp, deviceGrantType, PageClient } from '../device/helpers.js';

const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';
const billing = 'https://billing.example.com/';
const reports = 'https://reports.example.com/';
const web = basic('web', 'web-secret');

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    apiScopes: [{ name: 'billing.read', description: 'Read your invoices' }, { name: 'reports.read', description: 'Read your reports' }, { name: 'api1.read' }],
    apiResources: [
      { name: 'billing', uri: billing, scopes: ['billing.read'], secrets: [{ value: hashSecret('billing-secret') }] },
      { name: 'reports', uri: reports, scopes: ['reports.read'], secrets: [{ value: hashSecret('reports-secret') }] },
      { name: 'api1', scopes: ['api1.read'] },
    ],
    clients: [
      ...signInClients.filter((c) => c.clientId !== 'web'),
      {
        clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['authorization_code', 'refresh_token'],
        allowedScopes: ['openid', 'profile', 'billing.read', 'reports.read', 'api1.read'], allowOfflineAccess: true, redirectUris: [webRedirect],
      },
      {
        clientId: 'robot', clientSecrets: [{ value: hashSecret('robot-secret') }], allowedGrantTypes: ['client_credentials', 'password', 'refresh_token'],
        allowedScopes: ['billing.read', 'reports.read', 'api1.read'], allowOfflineAccess: true,
      },
      {
        clientId: 'robot-ref', clientSecrets: [{ value: hashSecret('robot-ref-secret') }], accessTokenType: 'reference', allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['billing.read', 'reports.read'],
      },
      { clientId: 'billing-bot', clientSecrets: [{ value: hashSecret('billing-bot-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['billing.read'] },
      { clientId: 'strict-bot', clientSecrets: [{ value: hashSecret('strict-bot-secret') }], requireResourceIndicator: true, allowedGrantTypes: ['client_credentials'], allowedScopes: ['billing.read'] },
      {
        clientId: 'agent', requireClientSecret: false, requireResourceIndicator: true, allowedGrantTypes: ['authorization_code'],
        allowedScopes: ['billing.read', 'reports.read'], redirectUris: ['http://127.0.0.1/agent/callback'],
      },
      {
        clientId: 'portal', requireClientSecret: false, requireConsent: true, allowedGrantTypes: ['authorization_code'],
        allowedScopes: ['openid', 'billing.read', 'reports.read'], redirectUris: ['http://127.0.0.1/portal/callback'],
      },
      {
        // Fronts the billing API (named by its name; user tokens carry its URI) and calls reports behind it.
        clientId: 'billing-gateway', clientSecrets: [{ value: hashSecret('billing-gateway-secret') }], allowedGrantTypes: ['delegation', tokenExchange],
        allowedScopes: ['billing.read', 'reports.read'], allowedSubjectTokenAudiences: ['billing'],
      },
      {
        clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrantType, 'refresh_token'],
        allowedScopes: ['openid', 'billing.read', 'reports.read'], allowOfflineAccess: true,
      },
    ],
  }));
});
afterAll(() => server.close());

/** A form body with `resource` repeated, as RFC 8707 §2 sends several. */
function form(params: Record<string, string>, resources: readonly string[] = []): string {
  const body = new URLSearchParams(params);
  for (const r of resources) body.append('resource', r);
  return body.toString();
}
const token = (params: Record<string, string>, resources: readonly string[], authorization?: string) =>
  postForm(`${server.url}/connect/token`, form(params, resources), authorization ? { authorization } : {});
const robot = basic('robot', 'robot-secret');
const claims = (body: Record<string, unknown>) => decodeJwt(body.access_token as string);
const invalidTarget = (description: string) => ({ error: 'invalid_target', error_description: description });
const unknownTarget = invalidTarget('A requested resource is unknown or not available to this client.');

/** Signs alice in for `web` with these resources; answers the code and its verifier. */
async function codeFor(resources: readonly string[], scope = 'openid billing.read reports.read offline_access') {
  const { params, verifier } = webRequest({ scope });
  const url = `${server.url}/connect/authorize?${form(params, resources)}`;
  const browser = new Browser(server.url);
  let page = await browser.get(url);
  if (page.html.includes('<h1>Sign in</h1>')) page = await browser.submit(page, { username: alice.username, password: alice.password });
  if (page.status !== 303 || !page.location) throw new Error(`expected a redirect, got ${page.status}:\n${page.html}`);
  return { location: page.location, verifier };
}
const redeem = (code: string, verifier: string, resources: readonly string[] = []) =>
  token({ grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, resources, web);

describe('client credentials with resource', () => {
  it('issues a token for exactly the named API, with only its scopes', async () => {
    const res = await token({ grant_type: 'client_credentials', scope: 'billing.read reports.read' }, [reports], robot);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('reports.read');
    expect(claims(res.body)).toMatchObject({ aud: reports, scope: 'reports.read' });
  });

  it('without scope, takes the client\'s allowed scopes of the named APIs', async () => {
    const res = await token({ grant_type: 'client_credentials' }, [billing, reports], robot);
    expect(res.status).toBe(200);
    expect(claims(res.body)).toMatchObject({ aud: [billing, reports], scope: 'billing.read reports.read' });
  });

  it('without resource, is as before: every API of the scopes, an API with a uri by its uri', async () => {
    const res = await token({ grant_type: 'client_credentials', scope: 'billing.read api1.read' }, [], robot);
    expect(claims(res.body)).toMatchObject({ aud: [billing, 'api1'], scope: 'billing.read api1.read' });
  });

  it('answers invalid_target for an unknown API', async () => {
    const res = await token({ grant_type: 'client_credentials' }, ['https://payments.example.com/'], robot);
    expect(res).toMatchObject({ status: 400, body: unknownTarget });
  });

  it('answers invalid_target for an API the client may not use', async () => {
    const res = await token({ grant_type: 'client_credentials' }, [reports], basic('billing-bot', 'billing-bot-secret'));
    expect(res).toMatchObject({ status: 400, body: unknownTarget });
  });

  it('answers invalid_target for a URI with a fragment', async () => {
    const res = await token({ grant_type: 'client_credentials' }, [`${billing}#x`], robot);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('A resource parameter is not an absolute URI without a fragment.') });
  });

  it('answers invalid_target for a relative URI', async () => {
    const res = await token({ grant_type: 'client_credentials' }, ['/billing'], robot);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('A resource parameter is not an absolute URI without a fragment.') });
  });

  it('answers invalid_target for an API name while names are not accepted', async () => {
    const res = await token({ grant_type: 'client_credentials' }, ['billing'], robot);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('A resource parameter is not an absolute URI without a fragment.') });
  });

  it('answers invalid_target for an API none of the requested scopes belong to', async () => {
    const res = await token({ grant_type: 'client_credentials', scope: 'billing.read' }, [reports], robot);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('None of the requested scopes belong to a requested resource.') });
  });

  it('answers invalid_target, not a 500, for a value with a line break in it', async () => {
    const res = await token({ grant_type: 'client_credentials' }, [`${billing}\n${reports}`], robot);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('A resource parameter is not an absolute URI without a fragment.') });
  });

  it('refuses a client that must name an API and names none (invalid_request), and serves it when it does', async () => {
    const strict = basic('strict-bot', 'strict-bot-secret');
    const res = await token({ grant_type: 'client_credentials' }, [], strict);
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'This client must name the API the token is for with the resource parameter.' } });
    expect((await token({ grant_type: 'client_credentials' }, [billing], strict)).status).toBe(200);
  });
});

describe('the password grant with resource', () => {
  it('issues an access token for the named API only; its refresh token keeps the whole grant', async () => {
    const res = await token({ grant_type: 'password', username: alice.username, password: alice.password, scope: 'billing.read reports.read offline_access' }, [billing], robot);
    expect(res.status).toBe(200);
    expect(claims(res.body)).toMatchObject({ aud: billing, scope: 'billing.read offline_access' });
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: res.body.refresh_token as string }, [reports], robot);
    expect(refreshed.status).toBe(200);
    expect(claims(refreshed.body)).toMatchObject({ aud: reports, scope: 'reports.read offline_access' });
  });
});

describe('the authorization code flow with resource', () => {
  it('remembers the granted APIs with the code; the token is for both, with their scopes only', async () => {
    const { location, verifier } = await codeFor([billing, reports], 'openid billing.read reports.read api1.read');
    const res = await redeem(location.searchParams.get('code')!, verifier);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('openid billing.read reports.read');
    expect(claims(res.body)).toMatchObject({ aud: [billing, reports], scope: 'openid billing.read reports.read' });
  });

  it('narrows at the token endpoint to one of the granted APIs, then refreshes for the other (RFC 8707 §2.2)', async () => {
    const { location, verifier } = await codeFor([billing, reports]);
    const first = await redeem(location.searchParams.get('code')!, verifier, [billing]);
    expect(first.status).toBe(200);
    expect(claims(first.body)).toMatchObject({ aud: billing, scope: 'openid billing.read offline_access' });
    const second = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, [reports], web);
    expect(second.status).toBe(200);
    expect(claims(second.body)).toMatchObject({ aud: reports, scope: 'openid reports.read offline_access' });
    // One refresh token still covers both: without resource, the token is for every granted API.
    const both = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token as string }, [], web);
    expect(claims(both.body)).toMatchObject({ aud: [billing, reports] });
  });

  it('never widens at redemption: an API outside the code is invalid_target', async () => {
    const { location, verifier } = await codeFor([billing], 'openid billing.read reports.read');
    const res = await redeem(location.searchParams.get('code')!, verifier, [reports]);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('A requested resource was not part of the grant.') });
  });

  it('never widens on refresh: an API outside the grant is invalid_target, and the refresh token stays usable', async () => {
    const { location, verifier } = await codeFor([billing], 'openid billing.read reports.read offline_access');
    const first = await redeem(location.searchParams.get('code')!, verifier);
    expect(claims(first.body)).toMatchObject({ aud: billing, scope: 'openid billing.read offline_access' });
    const wider = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, [reports], web);
    expect(wider).toMatchObject({ status: 400, body: invalidTarget('A requested resource was not part of the grant.') });
    const same = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, [billing], web);
    expect(same.status).toBe(200);
  });

  it('redirects an unknown resource to the client as invalid_target', async () => {
    const { location } = await codeFor(['https://payments.example.com/']);
    expect(location.origin + location.pathname).toBe(webRedirect);
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(location.searchParams.get('error_description')).toBe('A requested resource is unknown or not available to this client.');
  });

  it('redirects a resource none of the requested scopes belong to as invalid_target', async () => {
    const { location } = await codeFor([reports], 'openid billing.read');
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(location.searchParams.get('error_description')).toBe('None of the requested scopes belong to a requested resource.');
  });

  it('redirects a URI with a fragment as invalid_target', async () => {
    const { location } = await codeFor([`${billing}#f`]);
    expect(location.searchParams.get('error')).toBe('invalid_target');
  });

  it('shows no error page for a bad resource when the redirect URI is not trusted: the page, never a redirect', async () => {
    const { params } = webRequest({ redirect_uri: 'https://evil.example/cb' });
    const page = await new Browser(server.url).get(`${server.url}/connect/authorize?${form(params, ['https://payments.example.com/'])}`);
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
  });

  it('shows the named APIs on the consent page, and only those', async () => {
    const { params } = webRequest({ client_id: 'portal', redirect_uri: 'http://127.0.0.1/portal/callback', scope: 'openid billing.read reports.read' });
    const browser = new Browser(server.url);
    let page = await browser.get(`${server.url}/connect/authorize?${form(params, [billing])}`);
    page = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(page.html).toContain('<h1>Allow access?</h1>');
    expect(page.html).toContain(`<h2>Only at these services:</h2>\n<ul class="resources"><li>${billing}</li></ul>`);
    expect(page.html).toContain('Read your invoices');
    expect(page.html).not.toContain('Read your reports');
    const approved = await browser.submit(page, { decision: 'approve' });
    expect(approved.location?.searchParams.get('code')).toBeTruthy();
  });

  it('shows no list of APIs when the request named none', async () => {
    const { params } = webRequest({ client_id: 'portal', redirect_uri: 'http://127.0.0.1/portal/callback', scope: 'openid billing.read' });
    const browser = new Browser(server.url);
    let page = await browser.get(`${server.url}/connect/authorize?${form(params)}`);
    page = await browser.submit(page, { username: alice.username, password: alice.password });
    expect(page.html).toContain('<h1>Allow access?</h1>');
    expect(page.html).not.toContain('class="resources"');
  });

  it('a client that must name an API hears invalid_request at its redirect URI without one', async () => {
    const { params } = webRequest({ client_id: 'agent', redirect_uri: 'http://127.0.0.1/agent/callback', scope: 'billing.read' });
    const page = await new Browser(server.url).get(`${server.url}/connect/authorize?${form(params)}`);
    expect(page.status).toBe(303);
    expect(page.location?.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('PAR with resource', () => {
  it('keeps the resources with the pushed request', async () => {
    const { params, verifier } = webRequest({ scope: 'openid billing.read reports.read' });
    const pushed = await postForm(`${server.url}/connect/par`, form(params, [reports]), { authorization: web });
    expect(pushed.status).toBe(201);
    const location = await signInAndAuthorize(server, new Browser(server.url), { client_id: 'web', request_uri: pushed.body.request_uri as string });
    const res = await redeem(location.searchParams.get('code')!, verifier);
    expect(claims(res.body)).toMatchObject({ aud: reports, scope: 'openid reports.read' });
  });

  it('answers invalid_target in JSON for an unknown resource', async () => {
    const pushed = await postForm(`${server.url}/connect/par`, form(webRequest().params, ['https://payments.example.com/']), { authorization: web });
    expect(pushed).toMatchObject({ status: 400, body: unknownTarget });
  });
});

describe('the device flow with resource', () => {
  async function approvedDevice(resources: readonly string[], scope: string) {
    const started = await postForm(`${server.url}/connect/deviceauthorization`, form({ client_id: 'tv', scope }, resources));
    expect(started.status).toBe(200);
    await decideOverHttp(server.url, started.body.verification_uri_complete as string, alice, 'approve');
    return started.body.device_code as string;
  }

  it('lists the named APIs on the device consent page', async () => {
    const started = await postForm(`${server.url}/connect/deviceauthorization`, form({ client_id: 'tv', scope: 'billing.read reports.read' }, [reports]));
    const browser = new PageClient(server.url);
    const entry = await browser.get(started.body.verification_uri_complete as string);
    const signIn = await browser.submit(entry, { user_code: /id="user_code" name="user_code" value="([^"]*)"/.exec(entry.html)![1]! });
    const consent = await browser.submit(signIn, { username: alice.username, password: alice.password });
    expect(consent.html).toContain(`<h2>Only at these services:</h2>\n<ul class="resources"><li>${reports}</li></ul>`);
    expect(consent.html).not.toContain('Read your invoices');
  });

  it('keeps the APIs with the device code; a poll may narrow to one of them', async () => {
    const deviceCode = await approvedDevice([billing, reports], 'openid billing.read reports.read offline_access');
    const res = await token({ grant_type: deviceGrantType, device_code: deviceCode, client_id: 'tv' }, [billing]);
    expect(res.status).toBe(200);
    expect(claims(res.body)).toMatchObject({ aud: billing, scope: 'openid billing.read offline_access' });
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: res.body.refresh_token as string, client_id: 'tv' }, [reports]);
    expect(claims(refreshed.body)).toMatchObject({ aud: reports, scope: 'openid reports.read offline_access' });
  });

  it('answers invalid_target at device authorization for an unknown API', async () => {
    const res = await postForm(`${server.url}/connect/deviceauthorization`, form({ client_id: 'tv' }, ['https://payments.example.com/']));
    expect(res).toMatchObject({ status: 400, body: unknownTarget });
  });

  it('answers invalid_target when a poll asks for an API outside the device code', async () => {
    const deviceCode = await approvedDevice([billing], 'billing.read reports.read');
    const res = await token({ grant_type: deviceGrantType, device_code: deviceCode, client_id: 'tv' }, [reports]);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('A requested resource was not part of the grant.') });
  });
});

describe('introspection of a narrowed token', () => {
  it('is active for the API it names and inactive for the other, with the narrowed aud', async () => {
    const issued = await token({ grant_type: 'client_credentials' }, [billing], robot);
    const asBilling = await postForm(`${server.url}/connect/introspect`, { token: issued.body.access_token as string }, { authorization: basic('billing', 'billing-secret') });
    expect(asBilling.body).toMatchObject({ active: true, aud: billing, scope: 'billing.read', client_id: 'robot' });
    const asReports = await postForm(`${server.url}/connect/introspect`, { token: issued.body.access_token as string }, { authorization: basic('reports', 'reports-secret') });
    expect(asReports.body).toEqual({ active: false });
  });

  it('reports the narrowed aud of a reference token to its API, and nothing to the other', async () => {
    const issued = await token({ grant_type: 'client_credentials', scope: 'billing.read reports.read' }, [reports], basic('robot-ref', 'robot-ref-secret'));
    expect(issued).toMatchObject({ status: 200, body: { scope: 'reports.read' } });
    expect((issued.body.access_token as string).split('.')).toHaveLength(1);
    const asReports = await postForm(`${server.url}/connect/introspect`, { token: issued.body.access_token as string }, { authorization: basic('reports', 'reports-secret') });
    expect(asReports.body).toMatchObject({ active: true, aud: reports, scope: 'reports.read', client_id: 'robot-ref' });
    const asBilling = await postForm(`${server.url}/connect/introspect`, { token: issued.body.access_token as string }, { authorization: basic('billing', 'billing-secret') });
    expect(asBilling.body).toEqual({ active: false });
  });
});

describe('delegation and token exchange with resource', () => {
  const gateway = basic('billing-gateway', 'billing-gateway-secret');
  /** Alice's token for the billing API, which the gateway fronts. */
  async function billingToken(): Promise<string> {
    const res = await token({ grant_type: 'password', username: alice.username, password: alice.password, scope: 'billing.read' }, [billing], robot);
    expect(claims(res.body).aud).toBe(billing);
    return res.body.access_token as string;
  }

  it('delegation: a token addressed to the fronted API by its URI is accepted; resource names the API behind', async () => {
    const res = await token({ grant_type: 'delegation', token: await billingToken(), scope: 'billing.read reports.read' }, [reports], gateway);
    expect(res.status).toBe(200);
    expect(claims(res.body)).toMatchObject({ aud: reports, scope: 'reports.read', sub: alice.subjectId, act: { client_id: 'robot' } });
  });

  it('delegation: an API none of the requested scopes belong to is invalid_target', async () => {
    const res = await token({ grant_type: 'delegation', token: await billingToken(), scope: 'billing.read' }, [reports], gateway);
    expect(res).toMatchObject({ status: 400, body: invalidTarget('None of the requested scopes belong to a requested resource.') });
  });

  it('token exchange: resource by URI narrows aud and scope', async () => {
    const res = await token({ grant_type: tokenExchange, subject_token: await billingToken(), subject_token_type: accessTokenType, scope: 'billing.read reports.read' }, [reports], gateway);
    expect(res.status).toBe(200);
    expect(claims(res.body)).toMatchObject({ aud: reports, scope: 'reports.read' });
  });

  it('token exchange: audience names an API by its name or URI, and the token is for every target', async () => {
    const byName = await token({ grant_type: tokenExchange, subject_token: await billingToken(), subject_token_type: accessTokenType, scope: 'billing.read reports.read', audience: 'billing' }, [reports], gateway);
    expect(claims(byName.body)).toMatchObject({ aud: [billing, reports], scope: 'billing.read reports.read' });
    const byUri = await token({ grant_type: tokenExchange, subject_token: await billingToken(), subject_token_type: accessTokenType, scope: 'billing.read reports.read', audience: reports }, [], gateway);
    expect(claims(byUri.body)).toMatchObject({ aud: reports });
  });

  it('token exchange: an unknown resource is invalid_target', async () => {
    const res = await token({ grant_type: tokenExchange, subject_token: await billingToken(), subject_token_type: accessTokenType }, ['https://payments.example.com/'], gateway);
    expect(res).toMatchObject({ status: 400, body: unknownTarget });
  });
});
