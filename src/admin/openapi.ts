/**
 * The admin API's OpenAPI 3.1 document, generated from the operations' own zod declarations
 * (zod 4's `toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 takes it): the schemas the router
 * validates requests with are the ones the document shows, and the answers' schemas the ones the
 * tests hold every answer to. Served at `/openapi.json` on the admin listener and written to
 * docs/admin-api.openapi.json by `npm run admin-openapi`.
 */
import { z } from '../config/fields.js';
import { adminApiResource, adminScopes } from './authentication.js';
import type { AdminOperation } from './operation.js';
import { problemKinds, type ProblemStatus } from './problem.js';
import { problemSchema } from './schemas.js';

type Json = Record<string, unknown>;

/**
 * A declaration as JSON Schema. Schemas declared with a `meta` id (the resources' views) come
 * out under `$defs`: they go to the document's `components.schemas`, once, and are referred to.
 */
function jsonSchemaIn(components: Record<string, Json>) {
  return (schema: z.ZodType): Json => {
    const { $schema: _dialect, $defs, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    const toComponents = (value: unknown): Json => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
    for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) components[name] = toComponents(def);
    return toComponents(rest);
  };
}

function parametersOf(jsonSchema: (schema: z.ZodType) => Json, schema: z.ZodObject | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const object = jsonSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || (object.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) };
  });
}

const problemRef = (status: ProblemStatus): Json => ({ $ref: `#/components/responses/problem${status}` });

/** The problems an operation can answer, besides 401 and 500 that every one can. */
function problemsOf(operation: AdminOperation): ProblemStatus[] {
  const out: ProblemStatus[] = [400, 401, 403];
  if (operation.params) out.push(404);
  if (operation.method === 'post' || operation.method === 'put') out.push(409);
  if (operation.ifMatch) out.push(412, 428);
  if (operation.body) out.push(413, 415);
  out.push(500, 503);
  return out;
}

/** `version`: the service's (package.json), which the composition root knows. */
export function openApiDocument(operations: readonly AdminOperation[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const schemas: Record<string, Json> = {};
  const jsonSchema = jsonSchemaIn(schemas);
  for (const operation of operations) {
    const responses: Json = {};
    for (const [status, answer] of Object.entries(operation.responses)) {
      responses[status] = {
        description: answer.description,
        ...(answer.etag ? { headers: { ETag: { $ref: '#/components/headers/ETag' } } } : {}),
        ...(answer.schema ? { content: { 'application/json': { schema: jsonSchema(answer.schema) } } } : {}),
      };
    }
    for (const status of problemsOf(operation)) responses[status] = problemRef(status);
    const parameters = [
      ...parametersOf(jsonSchema, operation.params, 'path'),
      ...parametersOf(jsonSchema, operation.query, 'query'),
      ...(operation.ifMatch ? [{ $ref: '#/components/parameters/IfMatch' }] : []),
    ];
    (paths[operation.path] ??= {})[operation.method] = {
      operationId: operation.operationId,
      summary: operation.summary,
      tags: [operation.tag],
      // Either, as the listener is set up: a token (the scope it needs), or mutual TLS (`admin.tls`, the entry's scope).
      security: [{ adminToken: operation.access === 'read' ? [adminScopes.read] : [adminScopes.full] }, { adminCertificate: [] }],
      'x-svc-access': operation.access,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(operation.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(operation.body) } } } } : {}),
      responses,
    };
  }
  const problem = jsonSchema(problemSchema);
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'svc admin API',
      version,
      description: `Manages the service: its clients, API resources, users, signing keys, grants and sessions. Every call needs an access token of this service for the API resource "${adminApiResource}" with scope "${adminScopes.full}" (everything) or "${adminScopes.read}" (reading only), or, on a listener set up with admin.tls, a client certificate named in admin.tls.clients. See docs/guides/admin-api.md.`,
    },
    paths,
    components: {
      securitySchemes: {
        adminToken: {
          type: 'http', scheme: 'bearer', bearerFormat: 'JWT or reference token',
          description: `An access token of this service (client credentials) addressed to "${adminApiResource}"; a DPoP-bound one with the DPoP scheme and a proof.`,
        },
        adminCertificate: {
          type: 'mutualTLS',
          description: `When the listener is set up with admin.tls: a client certificate its CA issued, named in admin.tls.clients with scope "${adminScopes.full}" or "${adminScopes.read}". Access tokens are then not read.`,
        },
      },
      parameters: {
        IfMatch: { name: 'If-Match', in: 'header', required: true, description: 'The ETag of the resource as last read (RFC 9110 §13.1.1).', schema: { type: 'string' } },
      },
      headers: {
        ETag: { description: 'The representation\'s entity tag, for If-Match.', schema: { type: 'string' } },
      },
      schemas: { ...Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : 1))), Problem: problem },
      responses: Object.fromEntries(Object.entries(problemKinds).map(([status, kind]) => [`problem${status}`, {
        description: kind.title,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      }])),
    },
  };
}
