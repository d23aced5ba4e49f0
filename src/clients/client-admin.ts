/**
 * What the operator CLI does to the database client store (`svc clients`, `svc apis`), as plain
 * operations the CLI prints and the tests call. Every write is checked first with the rules a
 * config entry meets (`check-entry.ts`); a generated secret is returned once and stored only as
 * its SHA-256 hash in IdentityServer's encoding (`hashSecret`), so it cannot be shown again.
 */
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import type { ApiResource, Client, ResolvedConfig } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import { hashSecret } from '../sdk/hash.js';
import type { ClientRecordStore, RecordKind, StoredRecord, StoredSecret } from '../store/client-records.js';
import { isDuplicateKeyError } from '../store/store.js';
import { operatorUpdate } from './registration/registrant-fields.js';
import type { EntryChecker } from './check-entry.js';
import { entryOf } from './database-client-store.js';

/** A refusal the operator can act on; its message is the sentence to print. */
export class ClientAdminError extends Error {
  override readonly name = 'ClientAdminError';
}

/** A freshly made secret: `value` is printed once and never stored. */
export interface NewSecret {
  readonly id: string;
  readonly value: string;
  readonly expiresAt: number | undefined;
}

export interface ClientAdminDeps {
  records: ClientRecordStore;
  checker: EntryChecker;
  config: Pick<ResolvedConfig, 'clients' | 'apiResources'>;
  clock: Clock;
}

const label = (kind: RecordKind, id: string): string => (kind === 'client' ? `client "${id}"` : `API resource "${id}"`);
const idField = (kind: RecordKind): string => (kind === 'client' ? 'clientId' : 'name');
const secretsField = (kind: RecordKind): string => (kind === 'client' ? 'clientSecrets' : 'secrets');

/** 32 random bytes, base64url: 256 bits, safe in a URL, a header and a shell. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function createClientAdmin(deps: ClientAdminDeps) {
  const { records, checker, config, clock } = deps;

  function inConfig(kind: RecordKind, id: string): boolean {
    return kind === 'client' ? config.clients.some((c) => c.clientId === id) : config.apiResources.some((r) => r.name === id);
  }

  async function existing(kind: RecordKind, id: string): Promise<StoredRecord> {
    const record = await records.get(kind, id);
    if (record) return record;
    const where = inConfig(kind, id) ? ' (it is defined in the config file, which the CLI does not edit)' : '';
    throw new ClientAdminError(`${label(kind, id)} is not in the database${where}.`);
  }

  async function storeResources(): Promise<ApiResource[]> {
    const found: ApiResource[] = [];
    for (const r of await records.list('apiResource')) {
      const checked = checker.apiResource(entryOf(r));
      if (checked.ok) found.push(checked.value);
    }
    return found;
  }

  /** Checks the record as a node will when it loads it; refuses it naming every problem. */
  async function check(record: StoredRecord): Promise<Client | ApiResource> {
    const checked = record.kind === 'client' ? checker.client(entryOf(record), await storeResources()) : checker.apiResource(entryOf(record));
    if (!checked.ok) throw new ClientAdminError(`${label(record.kind, record.id)} is not valid:\n  ${checked.problems.join('\n  ')}`);
    return checked.value;
  }

  function newSecret(expiresAt: number | undefined, description: string | undefined): { stored: StoredSecret; shown: NewSecret } {
    const value = generateSecret();
    const id = randomBytes(4).toString('hex');
    return {
      stored: { id, type: 'SharedSecret', value: hashSecret(value), description, createdAt: clock.now(), expiresAt },
      shown: { id, value, expiresAt },
    };
  }

  return {
    /**
     * Adds a client or API resource. `definition` holds the config entry's other fields. A
     * confidential client and an API resource get a generated secret; `secrets` carries stored
     * hashes over as they are (moving an entry out of the config file).
     */
    async add(
      kind: RecordKind, id: string, definition: Record<string, unknown>,
      options: { secrets?: readonly StoredSecret[]; disabled?: boolean; /** Moving the config's own entry: the operator removes it there next. */ fromConfig?: boolean } = {},
    ): Promise<NewSecret | undefined> {
      if (inConfig(kind, id) && options.fromConfig !== true) {
        throw new ClientAdminError(`${label(kind, id)} is defined in the config file: remove it there first (a client id two stores define stops start-up).`);
      }
      const { [idField(kind)]: _id, [secretsField(kind)]: _secrets, ...body } = definition;
      const needsSecret = options.secrets === undefined && (kind === 'apiResource' || body.requireClientSecret !== false);
      const made = needsSecret ? newSecret(undefined, undefined) : undefined;
      const now = clock.now();
      const record: StoredRecord = {
        kind, id, definition: body, disabled: options.disabled ?? false, createdAt: now, updatedAt: now, lastUsedAt: undefined,
        secrets: options.secrets ?? (made ? [made.stored] : []),
      };
      await check(record);
      try {
        await records.add(record);
      } catch (err) {
        if (isDuplicateKeyError(err)) throw new ClientAdminError(`${label(kind, id)} is already in the database.`);
        throw err;
      }
      return made?.shown;
    },
    list: (kind: RecordKind) => records.list(kind),
    show: (kind: RecordKind, id: string) => existing(kind, id),
    /** Replaces the fields named in `changes`; `null` removes a field (back to its default). */
    async update(kind: RecordKind, id: string, changes: Record<string, unknown>): Promise<void> {
      const record = await existing(kind, id);
      for (const field of [idField(kind), secretsField(kind)]) {
        if (field in changes) throw new ClientAdminError(`${field} cannot be updated (${field === idField(kind) ? 'remove and add the entry' : 'use the secret commands'}).`);
      }
      let definition: Record<string, unknown> = { ...record.definition };
      for (const [field, value] of Object.entries(changes)) {
        if (value === null) delete definition[field];
        else definition[field] = value;
      }
      if (kind === 'client') definition = operatorUpdate(definition, changes);
      await check({ ...record, definition });
      if (!(await records.update(kind, id, { definition }, clock.now()))) throw new ClientAdminError(`${label(kind, id)} is not in the database.`);
    },
    /** Replaces a client's whole definition (a registrant's RFC 7592 `PUT`, merged by `registrant-fields.ts`), checked like `update`. */
    async replace(kind: RecordKind, id: string, definition: Record<string, unknown>): Promise<void> {
      const record = await existing(kind, id);
      const { [idField(kind)]: _id, [secretsField(kind)]: _secrets, ...body } = definition;
      await check({ ...record, definition: body });
      if (!(await records.update(kind, id, { definition: body }, clock.now()))) throw new ClientAdminError(`${label(kind, id)} is not in the database.`);
    },
    async setDisabled(kind: RecordKind, id: string, disabled: boolean): Promise<void> {
      await existing(kind, id);
      await records.update(kind, id, { disabled }, clock.now());
    },
    async remove(kind: RecordKind, id: string): Promise<void> {
      if (!(await records.remove(kind, id))) await existing(kind, id);
    },
    /**
     * A new secret beside the others. With `expireOthersIn` (seconds), every other secret that
     * would outlive it gets that expiry: a rotation, during whose overlap both secrets work.
     */
    async addSecret(kind: RecordKind, id: string, options: { expiresIn?: number; expireOthersIn?: number; description?: string } = {}): Promise<NewSecret> {
      const record = await existing(kind, id);
      const now = clock.now();
      const made = newSecret(options.expiresIn === undefined ? undefined : now + options.expiresIn * 1000, options.description);
      if (!(await records.addSecret(kind, id, made.stored))) throw new ClientAdminError(`${label(kind, id)} is not in the database.`);
      if (options.expireOthersIn !== undefined) {
        const at = now + options.expireOthersIn * 1000;
        for (const s of record.secrets) {
          if (s.expiresAt === undefined || s.expiresAt > at) await records.expireSecret(kind, id, s.id, at);
        }
      }
      return made.shown;
    },
    /**
     * A client's certificate as an `X509CertificateBase64` secret (base64 DER), for
     * `private_key_jwt` (RFC 7523) and `self_signed_tls_client_auth` (RFC 8705 §2.2). Nothing is
     * secret here, so nothing is printed; the secret expires with the certificate unless
     * `expiresIn` says sooner. Checked as a node will check it: a type no loaded plugin validates
     * is refused.
     */
    async addCertificate(kind: RecordKind, id: string, certificate: string | Buffer, options: { expiresIn?: number; description?: string } = {}): Promise<{ id: string; expiresAt: number; thumbprint: string }> {
      let parsed: X509Certificate;
      try {
        parsed = new X509Certificate(certificate);
      } catch (err) {
        throw new ClientAdminError(`not a PEM or DER X.509 certificate (${(err as Error).message}).`);
      }
      const record = await existing(kind, id);
      const now = clock.now();
      const notAfter = Date.parse(parsed.validTo);
      if (!(notAfter > now)) throw new ClientAdminError(`the certificate expired at ${new Date(notAfter).toISOString()}.`);
      const expiresAt = options.expiresIn === undefined ? notAfter : Math.min(notAfter, now + options.expiresIn * 1000);
      const stored: StoredSecret = {
        id: randomBytes(4).toString('hex'), type: 'X509CertificateBase64', value: parsed.raw.toString('base64'),
        description: options.description, createdAt: now, expiresAt,
      };
      await check({ ...record, secrets: [...record.secrets, stored] });
      if (!(await records.addSecret(kind, id, stored))) throw new ClientAdminError(`${label(kind, id)} is not in the database.`);
      return { id: stored.id, expiresAt, thumbprint: createHash('sha256').update(parsed.raw).digest('base64url') };
    },
    /**
     * A secret of a type a plugin judges, its value stored as given: a `FederatedCredential`'s
     * JSON (workload-identity), a public `JsonWebKey`. Such values are not secret, so they may
     * come from a command line; a `SharedSecret` is only ever generated (`addSecret`). Checked as
     * a node will check it: a type no loaded plugin validates is refused.
     */
    async addTypedSecret(kind: RecordKind, id: string, type: string, value: string, options: { expiresIn?: number; description?: string } = {}): Promise<{ id: string; expiresAt: number | undefined }> {
      if (type === 'SharedSecret') throw new ClientAdminError('a SharedSecret is generated, never given: leave out --type and --value.');
      if (value === '') throw new ClientAdminError('--value is empty.');
      const record = await existing(kind, id);
      const now = clock.now();
      const expiresAt = options.expiresIn === undefined ? undefined : now + options.expiresIn * 1000;
      const stored: StoredSecret = { id: randomBytes(4).toString('hex'), type, value, description: options.description, createdAt: now, expiresAt };
      await check({ ...record, secrets: [...record.secrets, stored] });
      if (!(await records.addSecret(kind, id, stored))) throw new ClientAdminError(`${label(kind, id)} is not in the database.`);
      return { id: stored.id, expiresAt };
    },
    /** Sets a secret's expiry: `inSeconds` 0 expires it now. */
    async expireSecret(kind: RecordKind, id: string, secretId: string, inSeconds: number): Promise<number> {
      await existing(kind, id);
      const at = clock.now() + inSeconds * 1000;
      if (!(await records.expireSecret(kind, id, secretId, at))) throw new ClientAdminError(`${label(kind, id)} has no secret "${secretId}" (see its secrets with show).`);
      return at;
    },
    async removeSecret(kind: RecordKind, id: string, secretId: string): Promise<void> {
      const record = await existing(kind, id);
      if (!record.secrets.some((s) => s.id === secretId)) throw new ClientAdminError(`${label(kind, id)} has no secret "${secretId}" (see its secrets with show).`);
      const remaining = { ...record, secrets: record.secrets.filter((s) => s.id !== secretId) };
      // A confidential client left without a secret would be refused by every node: say so now.
      await check(remaining);
      await records.removeSecret(kind, id, secretId);
    },
  };
}

export type ClientAdmin = ReturnType<typeof createClientAdmin>;
