/**
 * A stand-in for the platforms that issue workload tokens, over https on loopback with a
 * certificate made at test time: a Kubernetes API server's service account issuer, GitHub's
 * Actions token service and a SPIRE OIDC discovery provider, each under its own path with its
 * discovery document and JWK Set, minting tokens shaped as the platforms document them:
 *
 * - Kubernetes (projected service account token, 1.29+): header `{alg: RS256, kid}`; `aud` a
 *   list, `iss`, `sub: system:serviceaccount:<ns>:<sa>`, `iat = nbf`, `exp`, `jti`, and the
 *   nested `kubernetes.io` claim with namespace, node, pod and serviceaccount.
 * - GitHub Actions: header `{typ: JWT, alg: RS256, x5t, kid}`; `sub: repo:<owner>/<repo>:...`,
 *   the repository/workflow claims, `nbf = iat − 600`, `exp = iat + 300`, a `jti`.
 * - SPIFFE JWT-SVID (SPIRE): header `{alg: ES256, kid, typ: JWT}`; `sub` a SPIFFE ID, `aud` a
 *   list, `exp`, `iat`, `iss` (SPIRE's `jwt_issuer`); no `jti`.
 *
 * Two more paths serve failures: `/down` resets every connection, `/slow` never answers.
 */
import { createHash, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { signCompactJws } from '../../src/sdk/jws.js';
import { issue, makeCa } from './certificates.js';

export type Platform = 'kubernetes' | 'github' | 'spiffe' | 'down' | 'slow';

interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: KeyObject;
  readonly jwk: Record<string, unknown>;
}

const jwksPath: Record<Platform, string> = {
  kubernetes: '/openid/v1/jwks',
  github: '/.well-known/jwks',
  spiffe: '/keys',
  down: '/jwks',
  slow: '/jwks',
};

function makeKey(alg: 'RS256' | 'ES256'): SigningKey {
  const { privateKey, publicKey } = alg === 'RS256'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  // The kid the way Kubernetes makes it: the base64url SHA-256 of the public key's DER.
  const kid = createHash('sha256').update(publicKey.export({ format: 'der', type: 'spki' })).digest('base64url');
  return { kid, alg, privateKey, jwk: { ...jwk, kid, use: 'sig', alg } };
}

export interface MintOptions {
  /** Claims to add or replace (`undefined` removes one). */
  readonly claims?: Record<string, unknown>;
  /** Header members to add or replace. */
  readonly header?: Record<string, unknown>;
  /** Sign with this key instead of the platform's current one. */
  readonly key?: SigningKey;
}

export interface WorkloadIssuer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The PEM of the CA that issued the server certificate: a trusted issuer's `tlsCa`. */
  readonly caPem: string;
  issuer(platform: Platform): string;
  /** A token of the platform's shape, for the audience given, issued at `now()`. */
  mint(platform: 'kubernetes' | 'github' | 'spiffe', audience: string, options?: MintOptions): string;
  /** Publishes a new key beside the old one and signs with it from now on; returns its kid. */
  rotate(platform: 'kubernetes' | 'github' | 'spiffe'): string;
  /** A key the issuer never published. */
  strayKey(alg: 'RS256' | 'ES256'): SigningKey;
  /** Requests served per path. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startWorkloadIssuer({ now = () => Date.now(), port = 0 }: { now?: () => number; port?: number } = {}): Promise<WorkloadIssuer> {
  const ca = await makeCa('CN=Workload Issuer Test CA');
  const tls = await issue(ca, 'CN=workload-issuer', { serverNames: ['127.0.0.1', 'localhost'] });
  const keys: Record<'kubernetes' | 'github' | 'spiffe', SigningKey[]> = {
    kubernetes: [makeKey('RS256')],
    github: [makeKey('RS256')],
    spiffe: [makeKey('ES256')],
  };
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  let base = '';
  const issuerOf = (platform: Platform): string => `${base}/${platform}`;

  const server: Server = createServer({ key: tls.keyPem, cert: tls.certificatePem }, (req, res) => {
    const path = new URL(req.url ?? '/', base).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const platform = path.split('/')[1] as Platform;
    if (platform === 'down') {
      req.socket.destroy();
      return;
    }
    if (platform === 'slow') return; // never answers
    if (platform === ('mint' as Platform)) {
      // GET /mint/<platform>?aud=<audience>: a fresh token, for the README's shell walk-through.
      const [, , which] = path.split('/');
      const aud = new URL(req.url ?? '/', base).searchParams.get('aud');
      if ((which === 'kubernetes' || which === 'github' || which === 'spiffe') && aud) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(mint(which, aud));
      } else {
        res.writeHead(404).end();
      }
      return;
    }
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const own = keys[platform as keyof typeof keys];
    if (own === undefined) {
      res.writeHead(404).end();
    } else if (path === `/${platform}/.well-known/openid-configuration`) {
      json({
        issuer: issuerOf(platform),
        jwks_uri: `${issuerOf(platform)}${jwksPath[platform]}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: [own[0]!.alg],
      });
    } else if (path === `/${platform}${jwksPath[platform]}`) {
      json({ keys: own.map((k) => k.jwk) });
    } else {
      res.writeHead(404).end();
    }
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  base = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;

  function claimsOf(platform: 'kubernetes' | 'github' | 'spiffe', audience: string, iat: number): Record<string, unknown> {
    switch (platform) {
      case 'kubernetes':
        return {
          aud: [audience],
          exp: iat + 600,
          iat,
          iss: issuerOf('kubernetes'),
          jti: randomUUID(),
          'kubernetes.io': {
            namespace: 'payments',
            node: { name: 'worker-1', uid: '517eb86e-b863-451b-bf70-86cb61439a3a' },
            pod: { name: 'api-7c9f8d6b5-x2x7q', uid: '0d8b260e-ef0e-45fb-be8e-ff44f97722e8' },
            serviceaccount: { name: 'api', uid: 'e6a8680e-d103-4cce-80ea-03acbbeacf7d' },
          },
          nbf: iat,
          sub: 'system:serviceaccount:payments:api',
        };
      case 'github':
        return {
          jti: randomUUID(),
          sub: 'repo:acme/app:environment:production',
          environment: 'production',
          aud: audience,
          ref: 'refs/heads/main',
          sha: 'c040cae0f0dc81641728557b80f09cfa23b83fe5',
          repository: 'acme/app',
          repository_owner: 'acme',
          actor_id: '12',
          repository_visibility: 'private',
          repository_id: '74',
          repository_owner_id: '65',
          run_id: '22259804324',
          run_number: '10',
          run_attempt: '1',
          runner_environment: 'github-hosted',
          actor: 'octocat',
          workflow: 'deploy',
          head_ref: '',
          base_ref: '',
          event_name: 'push',
          ref_type: 'branch',
          job_workflow_ref: 'acme/app/.github/workflows/deploy.yml@refs/heads/main',
          iss: issuerOf('github'),
          nbf: iat - 600,
          exp: iat + 300,
          iat,
        };
      case 'spiffe':
        return { sub: 'spiffe://acme.example/ns/payments/sa/api', aud: [audience], exp: iat + 300, iat, iss: issuerOf('spiffe') };
    }
  }

  const headerOf = (platform: 'kubernetes' | 'github' | 'spiffe', key: SigningKey): Record<string, unknown> =>
    platform === 'kubernetes' ? { alg: key.alg, kid: key.kid }
      : platform === 'github' ? { typ: 'JWT', alg: key.alg, x5t: key.kid.slice(0, 27), kid: key.kid }
        : { alg: key.alg, kid: key.kid, typ: 'JWT' };

  function mint(platform: 'kubernetes' | 'github' | 'spiffe', audience: string, options: MintOptions = {}): string {
    const key = options.key ?? keys[platform].at(-1)!;
    const claims: Record<string, unknown> = { ...claimsOf(platform, audience, Math.floor(now() / 1000)), ...options.claims };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    return signCompactJws(key.privateKey, key.alg)({ ...headerOf(platform, key), ...options.header }, claims);
  }

  return {
    url: base,
    caPem: ca.certificatePem,
    hits,
    issuer: issuerOf,
    mint,
    rotate(platform) {
      const key = makeKey(keys[platform][0]!.alg);
      keys[platform].push(key);
      return key.kid;
    },
    strayKey: makeKey,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * `npx jiti test/support/workload-issuer.ts [port]`: the issuer on https://127.0.0.1:8443 (or
 * the port given), its CA written to ./workload-issuer-ca.pem: what the plugin README's config
 * trusts, verbatim. Stop it with Ctrl-C.
 */
if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\/test\/support\//, '/test/support/'))) {
  const issuer = await startWorkloadIssuer({ port: Number(process.argv[2] ?? 8443) });
  writeFileSync('workload-issuer-ca.pem', issuer.caPem);
  process.stdout.write(`workload issuer on ${issuer.url} (CA in ./workload-issuer-ca.pem): ${['kubernetes', 'github', 'spiffe'].map((p) => issuer.issuer(p as Platform)).join(', ')}\n`);
}
