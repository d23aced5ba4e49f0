/**
 * An authorization request waiting for the user (sign-in, consent), kept in the store so the
 * page's next POST may land on any node. Its id travels in the page's forms, guarded by a CSRF
 * token bound to the browser's cookie, so another browser cannot continue it.
 *
 * Starting one writes for a browser nobody has authenticated, so it is counted first
 * (`interaction-limit.ts`), and the record holds only what the rest of the flow reads, in a
 * compact positional form (`storedRequest`): the client id is the record's own column, and
 * defaults and absent values are left out.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { AuthorizationRequest, Prompt, ResponseMode } from './authorization-request.js';
import type { InteractionLimit } from './interaction-limit.js';

export interface Interaction {
  readonly request: AuthorizationRequest;
  /** The browser id of the sign-in that happened in this interaction: `prompt=login` and `max_age` are then met. */
  readonly signedInAs?: string;
  /** The user approved the consent page in this interaction. */
  readonly consented?: boolean;
}

const recordType = 'authorization_interaction';
/** Long enough to type a password and read a consent page; the code itself lives much shorter. */
const lifetimeMs = 15 * 60_000;
const keyOf = (id: string): string => `interaction:${id}`;

export interface Interactions {
  /** Counts the start against `remoteAddress` (throws the 429 error over the limit), then stores it. */
  start(request: AuthorizationRequest, remoteAddress?: string): Promise<string>;
  get(id: string): Promise<Interaction | undefined>;
  update(id: string, interaction: Interaction): Promise<void>;
  finish(id: string): Promise<void>;
}

/**
 * The request as stored: `[redirectUri, scopes, state, nonce, codeChallenge, prompt, maxAge,
 * loginHint, uiLocales, dpopJkt, responseMode, resources]`: lists space-joined (RFC 6749 §3.3: a
 * scope has no space), resources joined by a line break (an API name may hold a space, none a line
 * break), `maxAge` as text, the number `0` for absent (or empty, or `query`), trailing `0`s cut.
 * The response mode is its index in `storedModes` (`1` was `form_post` before JARM, and still is).
 */
type StoredRequest = ReadonlyArray<string | number>;

const storedModes: readonly ResponseMode[] = ['query', 'form_post', 'query.jwt', 'form_post.jwt'];

interface StoredInteraction {
  readonly q: StoredRequest;
  readonly s?: string;
  readonly c?: 1;
}

function storedRequest(r: AuthorizationRequest): StoredRequest {
  const values: Array<string | number> = [
    r.redirectUri, r.scopes.join(' ') || 0, r.state ?? 0, r.nonce ?? 0, r.codeChallenge ?? 0, r.prompt.join(' ') || 0,
    r.maxAge === undefined ? 0 : String(r.maxAge), r.loginHint ?? 0, r.uiLocales ?? 0, r.dpopJkt ?? 0, Math.max(0, storedModes.indexOf(r.responseMode)),
    r.resources?.join('\n') || 0,
  ];
  while (values.at(-1) === 0) values.pop();
  return values;
}

function requestOf(clientId: string, q: StoredRequest): AuthorizationRequest {
  const text = (i: number): string | undefined => (typeof q[i] === 'string' ? (q[i] as string) : undefined);
  const list = (i: number): string[] => (text(i) ? text(i)!.split(' ') : []);
  const maxAge = text(6);
  const uiLocales = text(8);
  const dpopJkt = text(9);
  const resources = text(11);
  return {
    clientId,
    redirectUri: q[0] as string,
    responseMode: storedModes[typeof q[10] === 'number' ? q[10] : 0] ?? 'query',
    scopes: list(1),
    state: text(2),
    nonce: text(3),
    codeChallenge: text(4),
    prompt: list(5) as Prompt[],
    maxAge: maxAge === undefined ? undefined : Number(maxAge),
    loginHint: text(7),
    ...(uiLocales === undefined ? {} : { uiLocales }),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
    ...(resources === undefined ? {} : { resources: resources.split('\n') }),
  };
}

function serialize(interaction: Interaction): string {
  const stored: StoredInteraction = {
    q: storedRequest(interaction.request),
    ...(interaction.signedInAs === undefined ? {} : { s: interaction.signedInAs }),
    ...(interaction.consented ? { c: 1 as const } : {}),
  };
  return JSON.stringify(stored);
}

function deserialize(clientId: string, data: string): Interaction {
  const parsed = JSON.parse(data) as StoredInteraction | Interaction;
  // A record written before the compact form (a node of the previous version): the same fields, spelled out.
  if ('request' in parsed) return parsed;
  return {
    request: requestOf(clientId, parsed.q),
    ...(parsed.s === undefined ? {} : { signedInAs: parsed.s }),
    ...(parsed.c === 1 ? { consented: true } : {}),
  };
}

export function createInteractions({ store, clock, limit }: { store: Store; clock: Clock; limit?: InteractionLimit | undefined }): Interactions {
  return {
    async start(request, remoteAddress) {
      await limit?.admit(remoteAddress);
      const id = randomBytes(24).toString('base64url');
      const now = clock.now();
      await store.add({
        key: keyOf(id), type: recordType, clientId: request.clientId, subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + lifetimeMs, consumedAt: undefined, data: serialize({ request }),
      });
      return id;
    },
    async get(id) {
      if (!/^[\w-]{32}$/.test(id)) return undefined;
      const record = await store.get(keyOf(id));
      if (!record || record.type !== recordType || record.consumedAt !== undefined || record.expiresAt <= clock.now()) return undefined;
      return deserialize(record.clientId, record.data);
    },
    async update(id, interaction) {
      await store.update(keyOf(id), { data: serialize(interaction) });
    },
    async finish(id) {
      await store.remove(keyOf(id));
    },
  };
}
