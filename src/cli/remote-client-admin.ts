/**
 * `svc --server <admin URL> clients|apis ...` (issue 39): the operations `svc clients` runs on
 * the database (`clients/client-admin.ts`), done through a running service's admin API
 * (`/clients`, `/api-resources`), so the command prints the same text whichever it acts on. A
 * change to a stored entry first reads it and sends its ETag back in If-Match: an edit made
 * meanwhile by someone else is refused (412), never overwritten.
 */
import { ClientAdminError, type ClientAdmin, type NewSecret } from '../clients/client-admin.js';
import { operatorUpdate } from '../clients/registration/registrant-fields.js';
import type { RecordKind, StoredRecord } from '../store/client-records.js';
import { call, readAll, type AdminServer } from './admin-api-client.js';

/** The operations the CLI's actions use, the same on the database and through the API. */
export type ClientOperations = Pick<ClientAdmin, 'add' | 'list' | 'show' | 'update' | 'setDisabled' | 'remove' | 'addSecret' | 'expireSecret' | 'removeSecret' | 'addTypedSecret' | 'addCertificate'>;

const ms = (value: unknown): number | undefined => (typeof value === 'string' ? Date.parse(value) : undefined);

/** An item of the admin API's `/clients` or `/api-resources` as the store's record (the CLI prints both alike). */
export function recordOf(kind: RecordKind, item: Record<string, unknown>): StoredRecord {
  const { [kind === 'client' ? 'clientId' : 'name']: id, disabled, createdAt, updatedAt, lastUsedAt, secrets, ...definition } = item;
  return {
    kind, id: String(id), definition, disabled: disabled === true, createdAt: ms(createdAt) ?? 0, updatedAt: ms(updatedAt) ?? 0, lastUsedAt: ms(lastUsedAt),
    secrets: (secrets as Array<Record<string, unknown>>).map((x) => ({
      id: String(x.id), type: String(x.type), value: '', description: typeof x.description === 'string' ? x.description : undefined, createdAt: ms(x.createdAt) ?? 0, expiresAt: ms(x.expiresAt),
    })),
  };
}

export function remoteClientAdmin(server: AdminServer): ClientOperations {
  const base = (kind: RecordKind): string => (kind === 'client' ? '/clients' : '/api-resources');
  const at = (kind: RecordKind, id: string): string => `${base(kind)}/${encodeURIComponent(id)}`;

  async function read(kind: RecordKind, id: string): Promise<{ record: StoredRecord; etag: string }> {
    const answer = await call(server, 'GET', at(kind, id));
    return { record: recordOf(kind, answer.body as Record<string, unknown>), etag: answer.etag ?? '*' };
  }

  /** PUT the whole definition back under the ETag it was read with. */
  async function replace(kind: RecordKind, id: string, etag: string, definition: Record<string, unknown>, disabled: boolean): Promise<void> {
    await call(server, 'PUT', at(kind, id), { body: { ...definition, disabled }, ifMatch: etag });
  }

  const secretBody = (options: { expiresIn?: number | undefined; description?: string | undefined }) => ({
    ...(options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn }),
    ...(options.description === undefined ? {} : { description: options.description }),
  });

  return {
    async add(kind, id, definition, options = {}) {
      if (options.secrets !== undefined || options.fromConfig === true) throw new ClientAdminError('--from-config copies the config file\'s entry: run it with --config on the database.');
      const answer = await call(server, 'POST', base(kind), { body: { ...definition, [kind === 'client' ? 'clientId' : 'name']: id, ...(options.disabled === true ? { disabled: true } : {}) } });
      const secret = (answer.body as { secret?: { id: string; value?: string; expiresAt?: string } }).secret;
      return secret?.value === undefined ? undefined : { id: secret.id, value: secret.value, expiresAt: ms(secret.expiresAt) } satisfies NewSecret;
    },
    async list(kind) {
      return (await readAll<Record<string, unknown>>(server, base(kind))).map((item) => recordOf(kind, item));
    },
    async show(kind, id) {
      return (await read(kind, id)).record;
    },
    async update(kind, id, changes) {
      const { record, etag } = await read(kind, id);
      for (const field of [kind === 'client' ? 'clientId' : 'name', kind === 'client' ? 'clientSecrets' : 'secrets']) {
        if (field in changes) throw new ClientAdminError(`${field} cannot be updated (${field === 'clientId' || field === 'name' ? 'remove and add the entry' : 'use the secret commands'}).`);
      }
      let definition: Record<string, unknown> = { ...record.definition };
      for (const [field, value] of Object.entries(changes)) {
        if (value === null) delete definition[field];
        else definition[field] = value;
      }
      if (kind === 'client') definition = operatorUpdate(definition, changes);
      await replace(kind, id, etag, definition, record.disabled);
    },
    async setDisabled(kind, id, disabled) {
      const { record, etag } = await read(kind, id);
      await replace(kind, id, etag, record.definition, disabled);
    },
    async remove(kind, id) {
      const { etag } = await read(kind, id);
      await call(server, 'DELETE', at(kind, id), { ifMatch: etag });
    },
    async addSecret(kind, id, options = {}) {
      const answer = await call(server, 'POST', `${at(kind, id)}/secrets`, {
        body: { ...secretBody(options), ...(options.expireOthersIn === undefined ? {} : { expireOthersIn: options.expireOthersIn }) },
      });
      const made = answer.body as { id: string; value: string; expiresAt?: string };
      return { id: made.id, value: made.value, expiresAt: ms(made.expiresAt) };
    },
    async addCertificate(kind, id, certificate, options = {}) {
      const value = typeof certificate === 'string' ? certificate : certificate.toString(certificate.includes('-----BEGIN') ? 'utf8' : 'base64');
      const answer = await call(server, 'POST', `${at(kind, id)}/secrets`, { body: { type: 'X509CertificateBase64', value, ...secretBody(options) } });
      const made = answer.body as { id: string; expiresAt: string; thumbprint: string };
      return { id: made.id, expiresAt: Date.parse(made.expiresAt), thumbprint: made.thumbprint };
    },
    async addTypedSecret(kind, id, type, value, options = {}) {
      if (type === 'SharedSecret') throw new ClientAdminError('a SharedSecret is generated, never given: leave out --type and --value.');
      const answer = await call(server, 'POST', `${at(kind, id)}/secrets`, { body: { type, value, ...secretBody(options) } });
      const made = answer.body as { id: string; expiresAt?: string };
      return { id: made.id, expiresAt: ms(made.expiresAt) };
    },
    expireSecret() {
      // The API has no operation that changes a stored secret's expiry (`expireOthersIn` on a new one rotates).
      return Promise.reject(new ClientAdminError('the admin API cannot change a secret\'s expiry: add one with secret add --expire-others-in, or run secret expire with --config on the database.'));
    },
    async removeSecret(kind, id, secretId) {
      const { etag } = await read(kind, id);
      await call(server, 'DELETE', `${at(kind, id)}/secrets/${encodeURIComponent(secretId)}`, { ifMatch: etag });
    },
  };
}
