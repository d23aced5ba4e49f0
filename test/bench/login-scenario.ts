/**
 * Logins per second through the sign-in page (issue 34, issue 40): on every connection, a new
 * browser's GET of the authorization endpoint (the sign-in form, its CSRF field and cookie), then
 * the form's POST with the user's password, answered by the 303 with the code. The physical bound
 * of a login is one password hash (scrypt with the service's default cost), measured here in the
 * benchmark's own process: the note says how far the row is from it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { defaultScryptCost, hashPassword, verifyPassword } from '../../src/oauth/password-hash.js';
import { webRedirect } from './fixture.js';
import type { Scenario } from './scenarios.js';
import type { LoadSpec } from './measure.js';

const field = (html: string, name: string): string | undefined =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/**
 * CPU milliseconds of one password check at the default cost, in this process, made the way the
 * server makes them during the row: `inFlight` checks at a time on one CPU (this process is
 * pinned to one, as the server is to another). scrypt at the default cost works through 32 MiB
 * per check, so checks that share a CPU also share its caches, and each costs more than one made
 * alone; the bound is what the row's own hashes must cost. scrypt runs on libuv's threads;
 * `process.cpuUsage` counts them.
 */
async function hashCpuMillis(password: string, inFlight: number): Promise<number> {
  const hash = await hashPassword(password);
  if (!(await verifyPassword(password, hash))) throw new Error('the password made for the measurement does not verify');
  const rounds = 4;
  const before = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await Promise.all(Array.from({ length: inFlight }, () => verifyPassword(password, hash)));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (rounds * inFlight);
}

export const signInPageLogins: Scenario = {
  id: 'login',
  title: 'sign-in page login: GET authorize (the form) + POST sign-in → 303 with the code; two requests per login',
  server: 'es256',
  async prepare({ url, fixture }) {
    const verifier = randomBytes(32).toString('base64url');
    const authorize = `/connect/authorize?${new URLSearchParams({
      client_id: 'webapp', redirect_uri: webRedirect, response_type: 'code', scope: 'openid api1.read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    })}`;
    const probe = await fetch(`${url}${authorize}`);
    if (probe.status !== 200 || field(await probe.text(), 'interaction') === undefined) throw new Error(`the authorization endpoint gave no sign-in form (${probe.status})`);
    // Enough sign-ins in flight to keep scrypt's threads busy, not a queue in front of them.
    const connections = 4;
    const hashMs = await hashCpuMillis(fixture.user.password, connections);
    const credentials = `&username=${encodeURIComponent(fixture.user.username)}&password=${encodeURIComponent(fixture.user.password)}`;
    const page: LoadSpec = {
      method: 'GET',
      path: authorize,
      headers: {},
      success: (body) => (body.includes('name="interaction"') ? 'sign-in form' : 'unexpected'),
      intoContext(context, _status, body, headers) {
        // autocannon hands the headers as the server spelled them (Koa: `Set-Cookie`).
        const cookie = Object.entries(headers).find(([name]) => name.toLowerCase() === 'set-cookie')?.[1];
        const lines = (Array.isArray(cookie) ? cookie : [cookie]).filter((c): c is string => typeof c === 'string');
        context.form = { interaction: field(body, 'interaction'), csrf: field(body, 'csrf'), cookie: lines.map((c) => c.split(';')[0]).join('; ') };
      },
    };
    const signIn: LoadSpec = {
      method: 'POST',
      path: '/connect/authorize/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      fromContext(context) {
        const form = context.form as { interaction?: string; csrf?: string; cookie: string } | undefined;
        return {
          body: `step=sign-in&interaction=${encodeURIComponent(form?.interaction ?? '')}&csrf=${encodeURIComponent(form?.csrf ?? '')}${credentials}`,
          headers: form?.cookie ? { cookie: form.cookie } : ({} as Record<string, string>),
        };
      },
      success: () => 'unexpected', // the login's answer is the 303, counted as "303 redirect"
    };
    return {
      expectedRate: 100,
      connections,
      spec: [page, signIn],
      note: () =>
        `logins/s is the row's req/s ÷ 2, a login's CPU twice its CPU µs/request; its bound is one password check ` +
        `(scrypt N=2^${defaultScryptCost.ln}, r=${defaultScryptCost.r}, p=${defaultScryptCost.p}), ${connections} at a time on one CPU as in the row: ${hashMs.toFixed(1)} ms of CPU each in this process`,
    };
  },
};
