import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { browserCookieName, createBrowserCookies, hostCookieName } from '../../src/pages/browser-cookie.js';

const secret = randomBytes(32);
const cookies = createBrowserCookies({ secret, secure: false, path: '/' });
const valueOf = (setCookie: string): string => setCookie.split(';')[0]!;

describe('the browser cookie every page shares', () => {
  it('is HttpOnly, SameSite=Lax, for the issuer\'s path, and Secure for an https issuer or a request that came over https', () => {
    const id = cookies.newId();
    expect(cookies.serialize(id, 36000)).toMatch(/^svc_session=[\w-]{43}\.[\w-]{43}; Max-Age=36000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookies.serialize(id, 36000, true)).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    // An https issuer's cookie is __Host-: Path=/ whatever the issuer's path, so a path gets its own name.
    const https = createBrowserCookies({ secret, secure: true, path: '/tenant' });
    expect(https.serialize(id, 0)).toMatch(/^__Host-svc_session-[\w-]{8}=[\w-]{43}\.[\w-]{43}; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('reads back the id it wrote, among other cookies; every id is new', () => {
    const id = cookies.newId();
    expect(cookies.read(valueOf(cookies.serialize(id, 60)))).toBe(id);
    expect(cookies.read(`a=b; ${valueOf(cookies.serialize(id, 60))}; c=d`)).toBe(id);
    expect(cookies.newId()).not.toBe(id);
  });

  it('rejects a changed id, a changed signature, another secret and garbage', () => {
    const id = cookies.newId();
    const [name, value] = valueOf(cookies.serialize(id, 60)).split('=') as [string, string];
    const [, mac] = value.split('.') as [string, string];
    expect(cookies.read(`${name}=${cookies.newId()}.${mac}`)).toBeUndefined();
    const altered = (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    expect(cookies.read(`${name}=${id}.${altered}`)).toBeUndefined();
    const other = createBrowserCookies({ secret: randomBytes(32), secure: false, path: '/' });
    expect(other.read(`${name}=${value}`)).toBeUndefined();
    for (const junk of [undefined, '', 'x', `${browserCookieName}=`, `${browserCookieName}=a.b.c`, `${browserCookieName}=${id}`]) {
      expect(cookies.read(junk)).toBeUndefined();
    }
  });
});

describe('cookie tossing: the __Host- name on https, and two session cookies', () => {
  const https = createBrowserCookies({ secret, secure: true, path: '/' });
  const cookieOf = (c: typeof cookies, id: string): string => valueOf(c.serialize(id, 60));
  const valueAlone = (c: typeof cookies, id: string): string => cookieOf(c, id).split('=')[1]!;

  it('an https issuer sets __Host-svc_session (Secure, Path=/, no Domain); an issuer with a path its own __Host- name', () => {
    expect(https.name).toBe('__Host-svc_session');
    expect(https.serialize(https.newId(), 60)).toMatch(/^__Host-svc_session=[\w-]{43}\.[\w-]{43}; Max-Age=60; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    expect(hostCookieName('/a')).not.toBe(hostCookieName('/b'));
    expect(hostCookieName('/a')).toMatch(/^__Host-svc_session-[\w-]{8}$/);
    expect(cookies.name).toBe('svc_session');
  });

  it('two authentic session cookies are a conflict, never the first one: two values of a name, or both names with different ids', () => {
    const [victim, attacker] = [cookies.newId(), cookies.newId()];
    expect(cookies.inspect(`${cookieOf(cookies, attacker)}; ${cookieOf(cookies, victim)}`)).toEqual({ kind: 'conflict' });
    expect(cookies.read(`${cookieOf(cookies, attacker)}; ${cookieOf(cookies, victim)}`)).toBeUndefined();
    expect(https.inspect(`${cookieOf(https, attacker)}; ${cookieOf(https, victim)}`)).toEqual({ kind: 'conflict' });
    // The old name (a pre-upgrade id) beside the new one with another id.
    expect(https.inspect(`svc_session=${valueAlone(cookies, attacker)}; ${cookieOf(https, victim)}`)).toEqual({ kind: 'conflict' });
    // A value that is not ours is no session cookie: it neither wins nor conflicts.
    expect(cookies.inspect(`svc_session=forged.value; ${cookieOf(cookies, victim)}`)).toEqual({ kind: 'one', id: victim, legacy: false });
  });

  it('transition: an https issuer reads the old name when it is the only one (to be set again), but no id issued under the new name', () => {
    const old = cookies.newId();
    expect(https.inspect(`svc_session=${valueAlone(cookies, old)}`)).toEqual({ kind: 'one', id: old, legacy: true });
    // The same id under both names (the old one not yet cleared): one browser, not a conflict.
    expect(https.inspect(`svc_session=${valueAlone(cookies, old)}; ${cookieOf(https, old)}`)).toEqual({ kind: 'one', id: old, legacy: true });
    // Each name has its own MAC key: a __Host- value planted under the old name is refused.
    const fresh = https.newId();
    expect(https.inspect(`svc_session=${valueAlone(https, fresh)}`)).toEqual({ kind: 'none' });
    expect(https.clearAll()).toEqual([
      '__Host-svc_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure',
      'svc_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure',
    ]);
    expect(https.clearLegacy()).toEqual(['svc_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure']);
    expect(cookies.clearLegacy()).toEqual([]);
  });
});
