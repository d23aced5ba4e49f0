/**
 * A client of the admin API for tests, driven by its OpenAPI document: each call is matched to
 * the document's operation (a path or method the document lacks fails the test), and each answer
 * must be one of the statuses the operation declares, its body valid against the schema the
 * document gives for it (read through zod's `fromJSONSchema`, so it is the document that is
 * checked, not the handlers' own declarations).
 */
import { expect } from 'vitest';
import * as z from 'zod';

type Json = Record<string, unknown>;

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export interface CallOptions {
  readonly token?: string | undefined;
  readonly body?: unknown;
  readonly ifMatch?: string;
  readonly headers?: Record<string, string>;
  /** A raw body (with its own content type in `headers`), for requests the document forbids. */
  readonly rawBody?: string;
}

export interface AdminClient {
  readonly url: string;
  readonly document: Json;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** Every operation the calls so far reached, as `METHOD /template status`. */
  readonly seen: Set<string>;
}

function templateOf(document: Json, path: string): string | undefined {
  const bare = path.split('?')[0]!;
  // A literal segment wins over a parameter (`/grants/revocation` before `/grants/{grantId}`).
  const templates = Object.keys(document.paths as Json).sort((a, b) => a.split('{').length - b.split('{').length);
  for (const template of templates) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (pattern.test(bare)) return template;
  }
  return undefined;
}

/** The schema with every `$ref` into the document replaced by what it names (the document has no cycles). */
function inline(document: Json, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => inline(document, v));
  if (typeof value !== 'object' || value === null) return value;
  const resolved = resolve(document, value as Json);
  return Object.fromEntries(Object.entries(resolved).map(([k, v]) => [k, inline(document, v)]));
}

function resolve(document: Json, value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== 'string') return value;
  const found = ref.slice(2).split('/').reduce<unknown>((at, part) => (at as Json)[part], document) as Json;
  return resolve(document, found);
}

export async function adminClient(url: string): Promise<AdminClient> {
  const document = await (await fetch(`${url}/openapi.json`)).json() as Json;
  const validators = new Map<string, z.ZodType>();
  const seen = new Set<string>();

  function validatorFor(key: string, schema: Json): z.ZodType {
    let validator = validators.get(key);
    if (!validator) {
      validator = z.fromJSONSchema(inline(document, schema) as never);
      validators.set(key, validator);
    }
    return validator;
  }

  return {
    url,
    document,
    seen,
    async call(method, path, options = {}) {
      const template = templateOf(document, path);
      expect(template, `${path} is not in the OpenAPI document`).toBeDefined();
      const operation = (document.paths as Record<string, Json>)[template!]![method.toLowerCase()] as Json | undefined;
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== undefined) headers.authorization ??= `Bearer ${options.token}`;
      if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      const answer: Answer = { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
      if (!operation) {
        // A method the document does not give this path: refused, as a problem.
        expect(res.status).toBe(405);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        return answer;
      }
      seen.add(`${method.toUpperCase()} ${template} ${res.status}`);
      const declared = (operation.responses as Json)[String(res.status)] as Json | undefined;
      expect(declared, `${method} ${template} answered ${res.status}, which the document does not declare: ${text}`).toBeDefined();
      const response = resolve(document, declared!);
      const content = response.content as Record<string, { schema: Json }> | undefined;
      if (!content) {
        expect(text, `${method} ${template} ${res.status} has no body in the document`).toBe('');
        return answer;
      }
      const [mediaType, { schema }] = Object.entries(content)[0]!;
      expect(res.headers.get('content-type')).toContain(mediaType);
      const result = validatorFor(`${method} ${template} ${res.status}`, schema).safeParse(answer.body);
      expect(result.success, `${method} ${template} ${res.status} does not match its schema: ${result.error?.message}\n${text}`).toBe(true);
      if ((response.headers as Json | undefined)?.ETag) expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
      return answer;
    },
  };
}
