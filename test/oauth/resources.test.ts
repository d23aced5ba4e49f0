/** Resource indicators (RFC 8707): which APIs `resource` names, and what a token for them carries. */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { createResourceCatalog, targetDescriptions } from '../../src/oauth/resources.js';
import { accessTarget } from '../../src/oauth/access-target.js';
import { parseFormParams, repeatedValues } from '../../src/oauth/form-params.js';
import type { OAuthError } from '../../src/oauth/errors.js';

const billing = 'https://billing.example.com/';
const reports = 'https://reports.example.com/';
const config = checkConfig({
  apiScopes: [{ name: 'billing.read' }, { name: 'billing.write' }, { name: 'reports.read' }, { name: 'legacy.read' }, { name: 'urn.read' }],
  apiResources: [
    { name: 'billing', uri: billing, scopes: ['billing.read', 'billing.write'] },
    { name: 'reports', uri: reports, scopes: ['reports.read'] },
    { name: 'legacy', scopes: ['legacy.read'] },
    // A name that is itself an absolute URI names the API as a resource indicator without `uri`.
    { name: 'urn:example:api', scopes: ['urn.read'] },
  ],
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [
    { clientId: 'app', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], redirectUris: ['https://app.example.com/cb'], allowedScopes: ['openid', 'billing.read', 'reports.read', 'legacy.read', 'urn.read'] },
    { clientId: 'billing-only', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], redirectUris: ['https://app.example.com/cb'], allowedScopes: ['billing.read'], requireResourceIndicator: true },
  ],
}, process.cwd());
const [app, billingOnly] = config.clients as [typeof config.clients[0], typeof config.clients[0]];
const catalog = createResourceCatalog({ apiResources: config.apiResources, acceptNames: false });
const withNames = createResourceCatalog({ apiResources: config.apiResources, acceptNames: true });

function refusal(run: () => unknown): { code: string; description: string } {
  try {
    run();
  } catch (err) {
    const e = err as OAuthError;
    return { code: e.code, description: e.description };
  }
  throw new Error('expected a refusal');
}
const invalidTarget = (description: string) => ({ code: 'invalid_target', description });

describe('resolving resource values', () => {
  it('names an API by its uri, and answers its audience identifier, each once, in the order sent', () => {
    expect(catalog.resolve(app, [reports, billing, reports])).toEqual([reports, billing]);
  });

  it('names an API without a uri by a name that is an absolute URI', () => {
    expect(catalog.resolve(app, ['urn:example:api'])).toEqual(['urn:example:api']);
  });

  it('sends nothing back for no values', () => {
    expect(catalog.resolve(app, [])).toEqual([]);
  });

  it('refuses a plain name unless the deployment accepts names; then the audience is still the uri', () => {
    expect(refusal(() => catalog.resolve(app, ['billing']))).toEqual(invalidTarget(targetDescriptions.malformed));
    expect(withNames.resolve(app, ['billing', 'legacy'])).toEqual([billing, 'legacy']);
  });

  it('refuses a URI with a fragment', () => {
    expect(refusal(() => catalog.resolve(app, [`${billing}#part`]))).toEqual(invalidTarget(targetDescriptions.malformed));
  });

  it('refuses a relative URI', () => {
    expect(refusal(() => catalog.resolve(app, ['/billing']))).toEqual(invalidTarget(targetDescriptions.malformed));
  });

  it('refuses a value with white space (a line break inside a value arrives as a space)', () => {
    expect(refusal(() => catalog.resolve(app, ['https://billing.example.com/ x']))).toEqual(invalidTarget(targetDescriptions.malformed));
  });

  it('refuses an unknown API', () => {
    expect(refusal(() => catalog.resolve(app, ['https://payments.example.com/']))).toEqual(invalidTarget(targetDescriptions.unknown));
    expect(refusal(() => withNames.resolve(app, ['payments']))).toEqual(invalidTarget(targetDescriptions.unknown));
  });

  it('refuses an API none of the client\'s allowed scopes belong to, in the words of an unknown one', () => {
    expect(refusal(() => catalog.resolve(billingOnly, [reports]))).toEqual(invalidTarget(targetDescriptions.unknown));
  });
});

describe('narrowing scopes to the named APIs', () => {
  it('keeps the scopes of the named APIs and the scopes no API owns', () => {
    expect(catalog.narrowScopes(['openid', 'billing.read', 'reports.read', 'offline_access'], [billing])).toEqual(['openid', 'billing.read', 'offline_access']);
  });

  it('refuses an API none of the scopes belong to', () => {
    expect(refusal(() => catalog.narrowScopes(['openid', 'billing.read'], [billing, reports]))).toEqual(invalidTarget(targetDescriptions.noScope));
  });
});

describe('narrowing within a grant (RFC 8707 §2.2)', () => {
  it('gives the grant\'s APIs when none are asked for, the asked ones when all are granted', () => {
    expect(catalog.within([billing, reports], [])).toEqual([billing, reports]);
    expect(catalog.within([billing, reports], [reports])).toEqual([reports]);
    expect(catalog.within(undefined, [reports])).toEqual([reports]);
    expect(catalog.within(undefined, [])).toBeUndefined();
  });

  it('never widens: an API outside the grant is invalid_target', () => {
    expect(refusal(() => catalog.within([billing], [reports]))).toEqual(invalidTarget(targetDescriptions.notGranted));
  });

  it('reads a grant kept by name (older records) as its API', () => {
    expect(catalog.within(['billing'], [billing])).toEqual([billing]);
  });
});

describe('the front of a grant: authorization and device authorization', () => {
  it('keeps the APIs and their scopes', () => {
    expect(catalog.grantTarget(app, [billing], ['openid', 'billing.read', 'reports.read'])).toEqual({ scopes: ['openid', 'billing.read'], resources: [billing] });
  });

  it('changes nothing without resource', () => {
    expect(catalog.grantTarget(app, [], ['openid', 'reports.read'])).toEqual({ scopes: ['openid', 'reports.read'], resources: [] });
  });

  it('refuses a client that must name an API and names none', () => {
    expect(refusal(() => catalog.grantTarget(billingOnly, [], ['billing.read']))).toEqual({
      code: 'invalid_request', description: 'This client must name the API the token is for with the resource parameter.',
    });
  });
});

describe('the access token of a token request', () => {
  const request = (resources: string[], client = app) => ({ resources, client });
  const outcome = (scopes: string[], audience?: string[]) => ({ success: audience ? { audience } : {}, scopes });

  it('is for exactly the named APIs, with only their scopes', () => {
    expect(accessTarget(catalog, request([reports]), outcome(['billing.read', 'reports.read']))).toEqual({ audience: [reports], scopes: ['reports.read'] });
  });

  it('changes nothing without resource', () => {
    expect(accessTarget(catalog, request([]), outcome(['billing.read', 'reports.read']))).toBeUndefined();
  });

  it('is refused when the grant decided an audience that leaves a named API out', () => {
    expect(refusal(() => accessTarget(catalog, request([reports]), outcome(['billing.read', 'reports.read'], [billing])))).toEqual(invalidTarget(targetDescriptions.notGranted));
  });

  it('keeps the grant\'s audience when it holds every named API (token exchange\'s audience and resource together)', () => {
    expect(accessTarget(catalog, request([reports]), outcome(['billing.read', 'reports.read'], ['billing', reports]))).toEqual({ audience: ['billing', reports], scopes: ['billing.read', 'reports.read'] });
  });

  it('refuses a client that must name an API when neither it nor the grant does', () => {
    expect(refusal(() => accessTarget(catalog, request([], billingOnly), outcome(['billing.read'])))).toMatchObject({ code: 'invalid_request' });
    expect(accessTarget(catalog, request([], billingOnly), outcome(['billing.read'], [billing]))).toBeUndefined();
  });
});

describe('the resource parameter in a form', () => {
  it('may be repeated; its values come back in order', () => {
    const params = parseFormParams(`resource=${encodeURIComponent(billing)}&scope=x&resource=${encodeURIComponent(reports)}`, 50);
    expect(repeatedValues(params, 'resource')).toEqual([billing, reports]);
    expect(repeatedValues(params, 'scope')).toEqual(['x']);
    expect(repeatedValues(params, 'nothing')).toEqual([]);
  });

  it('keeps a value with a line break as one value, which no URI can be', () => {
    const params = parseFormParams(`resource=${encodeURIComponent(`${billing}\n${reports}`)}`, 50);
    expect(repeatedValues(params, 'resource')).toEqual([`${billing} ${reports}`]);
  });

  it('still refuses any other parameter given twice (RFC 6749 §3.2)', () => {
    expect(() => parseFormParams('scope=a&scope=b', 50)).toThrow('Parameter scope is included more than once.');
  });
});
