/**
 * Clients (`/clients`) and API resources (`/api-resources`) kept in the database: list, read,
 * create, replace, delete, and their secrets. The same operations as `svc clients` / `svc apis`
 * (`clients/client-admin.ts`), with the same checks; a new shared secret's value is in the
 * answer that makes it and nowhere else, ever. The config file's own entries are not here: the
 * file is theirs.
 */
import { apiResourceSchema, clientSchema } from '../../config/model.js';
import { z } from '../../config/fields.js';
import { clientFieldShape, type DescribedClientField } from '../../config/plugin-client-field-schemas.js';
import { ClientAdminError, type ClientAdmin } from '../../clients/client-admin.js';
import type { RecordKind, StoredRecord } from '../../store/client-records.js';
import { checkIfMatch, etagOf } from '../etag.js';
import type { oneAtATime } from '../one-at-a-time.js';
import { defineOperation, type AdminOperation } from '../operation.js';
import { pageOfList, pageOf as readPage, pageQuery } from '../pagination.js';
import { AdminProblem, notFound } from '../problem.js';
import { defined, idParam, isoTime, isoTimeOrUndefined, pageOf, time } from '../schemas.js';

export interface RecordRoutesDeps {
  admin: ClientAdmin;
  /** Whether the config file defines this id (the API does not edit the file). */
  inConfig(kind: RecordKind, id: string): boolean;
  /** After a change: this node reloads at once (the others within `clientStores.refreshInterval`). */
  changed(): Promise<void>;
  serialize: ReturnType<typeof oneAtATime>;
}

const secretView = z.strictObject({
  id: z.string().describe('The secret\'s id (to remove it); its value is never shown.'),
  type: z.string(),
  description: z.string().optional(),
  createdAt: time,
  expiresAt: time.optional(),
}).meta({ id: 'Secret' });

export const newSecretBody = z.strictObject({
  type: z.string().min(1).optional().describe('`"SharedSecret"` (default: generated, its value answered once), `"X509CertificateBase64"` (a PEM or base64 DER certificate in `value`), or a plugin\'s type with its `value`.'),
  value: z.string().min(1).max(20_000).optional().describe('Not for a SharedSecret, which is always generated.'),
  description: z.string().max(200).optional(),
  expiresIn: z.int().min(1).optional().describe('Seconds until it expires.'),
  expireOthersIn: z.int().min(0).optional().describe('A rotation: every other SharedSecret that would outlive this many seconds expires then.'),
});

export const newSecretView = z.strictObject({
  id: z.string(),
  type: z.string(),
  value: z.string().optional().describe('A generated SharedSecret, in plain: shown in this answer only.'),
  expiresAt: time.optional(),
  thumbprint: z.string().optional().describe('A certificate\'s SHA-256 thumbprint (`x5t#S256`).'),
}).meta({ id: 'NewSecret' });

interface KindSpec {
  kind: RecordKind;
  /** `/clients` */
  base: string;
  tag: string;
  /** `clientId` */
  idName: string;
  noun: string;
  definition: z.ZodObject;
  /** Its id names it in the document's components. */
  view: z.ZodObject;
}

/** A stored client or API resource as the API shows it: the definition, and what the store adds. */
function viewOf(idName: string, definition: z.ZodObject, id: string) {
  return definition.extend({
    [idName]: z.string(),
    disabled: z.boolean(),
    createdAt: time,
    updatedAt: time,
    lastUsedAt: time.optional().describe('When a node last authenticated it (written at most once a minute).'),
    secrets: z.array(secretView),
  }).meta({ id });
}

function secretsOf(record: StoredRecord) {
  return record.secrets.map((s) => defined({ id: s.id, type: s.type, description: s.description, createdAt: isoTime(s.createdAt), expiresAt: isoTimeOrUndefined(s.expiresAt) }));
}

function operationsOf(spec: KindSpec, deps: RecordRoutesDeps): AdminOperation[] {
  const { kind, base, tag, idName, noun, definition, view } = spec;
  const { admin } = deps;
  const createBody = definition.extend({ [idName]: idParam, disabled: z.boolean().optional() });
  const replaceBody = definition.extend({ disabled: z.boolean().optional() });
  const params = z.strictObject({ [idName]: idParam });
  const secretParams = z.strictObject({ [idName]: idParam, secretId: z.string().min(1).max(100) });
  const label = (id: string) => `${noun} "${id}"`;
  const slug = noun.toLowerCase().replace(/ /g, '-');

  const representationOf = (r: StoredRecord) => defined({
    ...r.definition, [idName]: r.id, disabled: r.disabled, createdAt: isoTime(r.createdAt), updatedAt: isoTime(r.updatedAt),
    lastUsedAt: isoTimeOrUndefined(r.lastUsedAt), secrets: secretsOf(r),
  });
  // Not the last use: a client that authenticates would otherwise change its tag every minute.
  const tagOf = (r: StoredRecord) => etagOf({ ...representationOf(r), lastUsedAt: undefined });

  async function existing(id: string): Promise<StoredRecord> {
    const found = await admin.show(kind, id).catch((err: unknown) => {
      if (err instanceof ClientAdminError) return undefined;
      throw err;
    });
    if (found) return found;
    throw deps.inConfig(kind, id) ? new AdminProblem(404, `${label(id)} is defined in the config file, which the admin API does not edit.`) : notFound(label(id));
  }
  const idOf = (params: Record<string, unknown>) => params[idName] as string;

  return [
    defineOperation({
      operationId: `list-${base.slice(1)}`, method: 'get', path: base, tag, access: 'read',
      summary: `Lists the ${noun}s kept in the database, by id.`,
      query: pageQuery,
      responses: { 200: { description: `A page of ${noun}s.`, schema: pageOf(view, `The ${noun}s.`) } },
      async handle({ query }) {
        const page = pageOfList(await admin.list(kind), (r) => r.id, readPage(query));
        return { status: 200, body: defined({ items: page.items.map(representationOf), next: page.next }) };
      },
    }),
    defineOperation({
      operationId: `get-${slug}`, method: 'get', path: `${base}/{${idName}}`, tag, access: 'read',
      summary: `Reads one ${noun}.`,
      params,
      responses: { 200: { description: `The ${noun}.`, schema: view, etag: true } },
      async handle(input) {
        const record = await existing(idOf(input.params));
        return { status: 200, body: representationOf(record), etag: tagOf(record) };
      },
    }),
    defineOperation({
      operationId: `create-${slug}`, method: 'post', path: base, tag, access: 'write',
      summary: `Adds a ${noun}, checked as a node checks it; a confidential one gets a generated secret, answered once.`,
      body: createBody,
      responses: {
        201: {
          description: `The ${noun}, and its generated secret when it got one.`, etag: true,
          schema: z.strictObject({ [kind === 'client' ? 'client' : 'apiResource']: view, secret: newSecretView.optional() }),
        },
      },
      async handle({ body }) {
        const { [idName]: id, disabled, ...fields } = body as Record<string, unknown> & { disabled?: boolean };
        const key = id as string;
        if (deps.inConfig(kind, key)) throw new AdminProblem(409, `${label(key)} is defined in the config file.`);
        return deps.serialize(`${kind}:${key}`, async () => {
          if (await admin.show(kind, key).then(() => true, () => false)) throw new AdminProblem(409, `${label(key)} already exists.`);
          const secret = await admin.add(kind, key, fields, disabled === undefined ? {} : { disabled });
          await deps.changed();
          const record = await existing(key);
          return {
            status: 201, etag: tagOf(record), location: `${base}/${encodeURIComponent(key)}`,
            body: defined({
              [kind === 'client' ? 'client' : 'apiResource']: representationOf(record),
              secret: secret && defined({ id: secret.id, type: 'SharedSecret', value: secret.value, expiresAt: isoTimeOrUndefined(secret.expiresAt) }),
            }),
          };
        });
      },
    }),
    defineOperation({
      operationId: `replace-${slug}`, method: 'put', path: `${base}/{${idName}}`, tag, access: 'write', ifMatch: true,
      summary: `Replaces a ${noun}'s definition (its id and secrets stay); needs If-Match.`,
      params, body: replaceBody,
      responses: { 200: { description: `The ${noun} as it is now.`, schema: view, etag: true } },
      async handle({ params: p, body, ifMatch }) {
        const id = idOf(p);
        return deps.serialize(`${kind}:${id}`, async () => {
          const record = await existing(id);
          checkIfMatch(ifMatch!, tagOf(record));
          const { disabled, ...fields } = body as Record<string, unknown> & { disabled?: boolean };
          await admin.replace(kind, id, fields);
          if (disabled !== undefined && disabled !== record.disabled) await admin.setDisabled(kind, id, disabled);
          await deps.changed();
          const now = await existing(id);
          return { status: 200, body: representationOf(now), etag: tagOf(now) };
        });
      },
    }),
    defineOperation({
      operationId: `delete-${slug}`, method: 'delete', path: `${base}/{${idName}}`, tag, access: 'write', ifMatch: true,
      summary: `Removes a ${noun} and its secrets; needs If-Match.`,
      params,
      responses: { 204: { description: 'Removed.' } },
      async handle({ params: p, ifMatch }) {
        const id = idOf(p);
        return deps.serialize(`${kind}:${id}`, async () => {
          checkIfMatch(ifMatch!, tagOf(await existing(id)));
          await admin.remove(kind, id);
          await deps.changed();
          return { status: 204 };
        });
      },
    }),
    defineOperation({
      operationId: `add-${slug}-secret`, method: 'post', path: `${base}/{${idName}}/secrets`, tag, access: 'write',
      summary: 'Adds a secret: a generated SharedSecret (its value answered once), a certificate, or a plugin\'s type.',
      params, body: newSecretBody,
      responses: { 201: { description: 'The new secret; `value` only for a generated SharedSecret.', schema: newSecretView } },
      async handle({ params: p, body }) {
        const id = idOf(p);
        return deps.serialize(`${kind}:${id}`, async () => {
          await existing(id);
          const type = body.type ?? 'SharedSecret';
          const options = defined({ expiresIn: body.expiresIn, description: body.description });
          let answer;
          if (type === 'SharedSecret') {
            if (body.value !== undefined) throw new AdminProblem(400, 'A SharedSecret is generated, never given: leave out value.');
            const made = await admin.addSecret(kind, id, defined({ ...options, expireOthersIn: body.expireOthersIn }));
            answer = defined({ id: made.id, type, value: made.value, expiresAt: isoTimeOrUndefined(made.expiresAt) });
          } else {
            if (body.value === undefined) throw new AdminProblem(400, `A ${type} secret needs its value.`);
            if (body.expireOthersIn !== undefined) throw new AdminProblem(400, 'expireOthersIn rotates SharedSecrets only.');
            if (type === 'X509CertificateBase64') {
              const made = await admin.addCertificate(kind, id, certificateText(body.value), options);
              answer = { id: made.id, type, expiresAt: isoTime(made.expiresAt), thumbprint: made.thumbprint };
            } else {
              const made = await admin.addTypedSecret(kind, id, type, body.value, options);
              answer = defined({ id: made.id, type, expiresAt: isoTimeOrUndefined(made.expiresAt) });
            }
          }
          await deps.changed();
          return { status: 201, body: answer, location: `${base}/${encodeURIComponent(id)}/secrets/${answer.id}` };
        });
      },
    }),
    defineOperation({
      operationId: `remove-${slug}-secret`, method: 'delete', path: `${base}/{${idName}}/secrets/{secretId}`, tag, access: 'write', ifMatch: true,
      summary: `Removes a secret; If-Match carries the ${noun}'s ETag (the secret is part of it).`,
      params: secretParams,
      responses: { 204: { description: 'Removed.' } },
      async handle({ params: p, ifMatch }) {
        const id = idOf(p);
        return deps.serialize(`${kind}:${id}`, async () => {
          const record = await existing(id);
          if (!record.secrets.some((s) => s.id === p.secretId)) throw notFound(`Secret "${p.secretId}" of ${label(id)}`);
          checkIfMatch(ifMatch!, tagOf(record));
          await admin.removeSecret(kind, id, p.secretId);
          await deps.changed();
          return { status: 204 };
        });
      },
    }),
  ];
}

/** A certificate as PEM, or its base64 DER (how the config holds it). */
function certificateText(value: string): string | Buffer {
  return value.includes('-----BEGIN') ? value : Buffer.from(value, 'base64');
}

export const clientDefinition = clientSchema.omit({ clientId: true, clientSecrets: true });
export const apiResourceDefinition = apiResourceSchema.omit({ name: true, secrets: true });
const apiResources: KindSpec = {
  kind: 'apiResource', base: '/api-resources', tag: 'api-resources', idName: 'name', noun: 'API resource', definition: apiResourceDefinition,
  view: viewOf('name', apiResourceDefinition, 'ApiResource'),
};

/**
 * A client's definition: the service's fields and those the loaded plugins declare (issue 32),
 * each plugin field taken as given here and judged by its plugin's check when the client is
 * written (a bad value is a 400 naming the field), as in the config file and `svc clients`.
 */
export function clientRoutes(deps: RecordRoutesDeps, pluginFields: readonly DescribedClientField[] = []): AdminOperation[] {
  const definition = pluginFields.length === 0 ? clientDefinition : clientDefinition.extend(clientFieldShape(pluginFields));
  return operationsOf({
    kind: 'client', base: '/clients', tag: 'clients', idName: 'clientId', noun: 'client', definition, view: viewOf('clientId', definition, 'Client'),
  }, deps);
}

export function apiResourceRoutes(deps: RecordRoutesDeps): AdminOperation[] {
  return operationsOf(apiResources, deps);
}
