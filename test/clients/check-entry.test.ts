/**
 * A grant's own check of the clients that may use it (`checkClient`) applies to every client,
 * not only the config file's: a client from the database (`svc clients`, dynamic registration)
 * or a client-store plugin that allows delegation or token exchange but fronts no API is
 * refused with the same message, naming the client and the field (issue 32).
 */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { createEntryChecker } from '../../src/clients/check-entry.js';
import type { PluginRegistry } from '../../src/plugin-host/plugin-registry.js';
import { createDelegationGrant } from '../../plugins/delegation/delegation-grant.js';
import { createTokenExchangeGrant } from '../../plugins/token-exchange/token-exchange-grant.js';
import { allowedSubjectTokenAudiences } from '../../src/sdk/subject-token-audiences.js';
import { fakeTokenValidator, recordingLogger } from '../fixtures/grant-plugins/grant-context.js';

const exchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const config = checkConfig({
  apiScopes: [{ name: 'backend.read' }],
  apiResources: [{ name: 'api1', scopes: ['backend.read'] }],
}, process.cwd());
const deps = { tokenValidator: fakeTokenValidator({}), logger: recordingLogger(), config };
const grants = new Map([
  ['delegation', createDelegationGrant(deps)],
  [exchange, createTokenExchangeGrant(deps)],
]);
// Both plugins declare the one field (issue 32), as their index files do.
const clientFields = new Map([[allowedSubjectTokenAudiences.name, [{ plugin: 'delegation', field: allowedSubjectTokenAudiences }, { plugin: 'token-exchange', field: allowedSubjectTokenAudiences }]]]);
const registry = { plugins: [], secretParsers: [], secretValidators: [], grants, eventSinks: [], parameters: [], clientStores: [], clientFields } as unknown as PluginRegistry;
const checker = createEntryChecker(config, registry);
const stored = (patch: Record<string, unknown>) => ({ clientId: 'api1.client', requireClientSecret: false, allowedScopes: ['backend.read'], ...patch });

describe('a grant judges stored clients as it judges the config file\'s', () => {
  it('refuses a stored client allowed delegation that fronts no API, naming the client and the field', () => {
    expect(checker.client(stored({ allowedGrantTypes: ['delegation'] }), [])).toEqual({
      ok: false,
      problems: ['client "api1.client".allowedSubjectTokenAudiences: client "api1.client" may use the delegation grant but lists no API resource whose tokens it may exchange; list the APIs it fronts, e.g. ["api1"]'],
    });
  });

  it('refuses a stored client allowed token exchange that may exchange no audience', () => {
    expect(checker.client(stored({ allowedGrantTypes: [exchange] }), [])).toEqual({
      ok: false,
      problems: [`client "api1.client".allowedSubjectTokenAudiences: client "api1.client" may use ${exchange} but lists no API resource whose tokens it may exchange; list the APIs it fronts, e.g. ["api1"]`],
    });
  });

  it('accepts the client once it lists APIs it fronts, and only APIs that exist', () => {
    const fronting = checker.client(stored({ allowedGrantTypes: ['delegation', exchange], allowedSubjectTokenAudiences: ['api1'] }), []);
    expect(fronting).toMatchObject({ ok: true, value: { clientId: 'api1.client', pluginFields: { allowedSubjectTokenAudiences: ['api1'] } } });
    expect(checker.client(stored({ allowedGrantTypes: ['delegation'], allowedSubjectTokenAudiences: ['api9'] }), [])).toEqual({
      ok: false, problems: ['client "api1.client".allowedSubjectTokenAudiences[0]: unknown API resource "api9" (known: api1) (plugin "delegation")'],
    });
  });
});

describe('the global FAPI 2.0 profile judges stored clients as it judges the config file\'s (issue 37)', () => {
  const fapiConfig = checkConfig({ fapi2: 'security', apiScopes: [{ name: 'backend.read' }] }, process.cwd());
  const fapiChecker = createEntryChecker(fapiConfig, registry);

  it('refuses a stored public client, naming the client, the field and the rule; resolves the profile into one that says fapi2: "off"', () => {
    const checked = fapiChecker.client(stored({ allowedGrantTypes: [] }), []);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.problems).toContain('client "api1.client".requireClientSecret: client "api1.client" (FAPI 2.0 security, SP §5.3.2.1): only confidential clients: remove requireClientSecret: false');
    const optedOut = fapiChecker.client(stored({ allowedGrantTypes: [], fapi2: 'off' }), []);
    expect(optedOut).toMatchObject({ ok: true, value: { fapi2: 'off' } });
  });
});

describe('requiredAcr on a stored API resource (issue 35)', () => {
  it('is refused: only the config file\'s APIs are read for it, so a stored one would be ignored', () => {
    expect(checker.apiResource({ name: 'payroll', scopes: ['backend.read'], requiredAcr: 'mfa' })).toEqual({
      ok: false,
      problems: ['API resource "payroll".requiredAcr: honoured only for API resources in the config file; define this API there, or leave requiredAcr out'],
    });
    expect(checker.apiResource({ name: 'payroll', scopes: ['backend.read'] })).toMatchObject({ ok: true });
  });
});
