/**
 * The admin API's OpenAPI document (issue 39): generated from the operations' declarations, the
 * copy in docs/ is fresh, it is OpenAPI 3.1 with JSON Schema 2020-12, and every operation states
 * its access, its answers and its problems.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adminApiDocument } from '../../src/admin/document.js';
import { serviceVersion } from '../../src/app/version.js';
import { packageClientFields } from '../../src/plugin-host/package-client-fields.js';

type Operation = { operationId: string; security: Array<Record<string, string[]>>; responses: Record<string, unknown>; parameters?: Array<{ $ref?: string }> };
const document = adminApiDocument(serviceVersion, await packageClientFields()) as { openapi: string; paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

describe('the admin API document', () => {
  it('docs/admin-api.openapi.json is fresh (run `npm run admin-openapi`)', () => {
    expect(readFileSync(new URL('../../docs/admin-api.openapi.json', import.meta.url), 'utf8')).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });

  it('is OpenAPI 3.1 and names every operation once', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('asks admin.read for reads and admin for changes, or a client certificate (admin.tls), with 401 and 403 answers', () => {
    for (const { method, op } of operations) {
      expect(op.security).toEqual([{ adminToken: [method === 'get' ? 'admin.read' : 'admin'] }, { adminCertificate: [] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
  });

  it('requires If-Match, with 412 and 428, on every update and delete but revocations', () => {
    for (const { path, method, op } of operations) {
      if (method !== 'put' && method !== 'patch' && method !== 'delete') continue;
      const revocation = path.startsWith('/grants/') || path.includes('/sessions/');
      const ifMatch = (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IfMatch');
      expect(ifMatch, `${method} ${path}`).toBe(!revocation);
      if (!revocation) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['412', '428']));
    }
  });
});
