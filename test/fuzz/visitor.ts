/**
 * The unmutated requests a case sends before its mutated one: a page visited to get a real
 * cookie, CSRF token and interaction, a sign-in, a client registered or deleted, a code or a
 * pushed request made. Each goes through `Probe`, which the run judges with the same oracle as
 * the mutated request (a 500 on the way there is a finding too) and counts under the surface.
 * A step that does not give what a well-behaved client gets is a `SetupRefused`: the case is
 * skipped and counted, as state left by earlier cases (a deleted client, an ended session) can
 * cause it.
 */
import { formsOf } from '../support/sign-in.js';
import type { FuzzRequest, FuzzResponse } from './request.js';
import { form } from './request.js';

/** Sends one unmutated request, judged and counted; throws the run's `Finding` on a bad answer. */
export type Probe = (req: FuzzRequest) => Promise<FuzzResponse>;

export class SetupRefused extends Error {}

export interface Form {
  readonly action: string;
  readonly fields: Record<string, string>;
}

/** A browser without JavaScript: keeps its cookies, reads forms, follows no redirect. */
export class Visitor {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly probe: Probe) {}

  /** The Cookie header this browser sends ('' for none). */
  get cookie(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }

  private headers(): Array<[string, string]> {
    return this.cookies.size ? [['cookie', this.cookie]] : [];
  }

  private keep(res: FuzzResponse): FuzzResponse {
    for (const line of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      if (/Max-Age=0\b/i.test(line)) this.cookies.delete(pair!.slice(0, eq));
      else this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }

  async get(path: string, headers: Array<[string, string]> = []): Promise<FuzzResponse> {
    return this.keep(await this.probe({ seed: 'setup', method: 'GET', path, headers: [...this.headers(), ...headers] }));
  }

  async post(path: string, fields: Record<string, string>): Promise<FuzzResponse> {
    return this.keep(await this.probe({
      seed: 'setup', method: 'POST', path, headers: [['content-type', 'application/x-www-form-urlencoded'], ...this.headers()], body: form(Object.entries(fields)),
    }));
  }

  /** The page's sign-in, consent or logout form (the logout form has no `step`). */
  static formOf(res: FuzzResponse, step: 'sign-in' | 'consent' | 'logout'): Form {
    const found = formsOf(res.body).find((f) => (step === 'logout' ? f.fields.step === undefined && 'csrf' in f.fields : f.fields.step === step));
    if (!found) throw new SetupRefused(`expected the ${step} page, got ${res.status}: ${res.body.replace(/<style>[\s\S]*<\/style>/, '').replace(/\s+/g, ' ').slice(0, 300)}`);
    return found;
  }

  /** Signs in through the page's sign-in form, when `res` is the sign-in page; else returns `res`. */
  async signInIfAsked(res: FuzzResponse, user: { username: string; password: string }): Promise<FuzzResponse> {
    const page = formsOf(res.body).find((f) => f.fields.step === 'sign-in');
    return page ? this.post(page.action, { ...page.fields, username: user.username, password: user.password }) : res;
  }

  /** The form as the request a browser would send: this browser's cookie, the page's fields, then `extra`. */
  formRequest(name: string, page: Form, extra: Record<string, string>): FuzzRequest {
    return {
      seed: name, method: 'POST', path: page.action,
      headers: [['content-type', 'application/x-www-form-urlencoded'], ...this.headers()],
      body: form(Object.entries({ ...page.fields, ...extra })),
    };
  }
}

/** The `code` of a redirect to the client, or a `SetupRefused`. */
export function codeOf(res: FuzzResponse): string {
  const location = res.headers.location;
  const code = res.status === 303 && location ? new URL(location).searchParams.get('code') : null;
  if (!code) throw new SetupRefused(`expected a redirect with a code, got ${res.status}`);
  return code;
}
