import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { browserCookieName, createBrowserCookies } from '../../src/pages/browser-cookie.js';

const secret = randomBytes(32);
const cookies = createBrowserCookies({ secret, secure: false, path: '/' });
const valueOf = (setCookie: string): string => setCookie.split(';')[0]!;

describe('the browser cookie every page shares', () => {
  it('is HttpOnly, SameSite=Lax, for the issuer\'s path, and Secure for an https issuer or a request that came over https', () => {
    const id = cookies.newId();
    expect(cookies.serialize(id, 36000)).toMatch(/^svc_session=[\w-]{43}\.[\w-]{43}; Max-Age=36000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookies.serialize(id, 36000, true)).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    const https = createBrowserCookies({ secret, secure: true, path: '/tenant' });
    expect(https.serialize(id, 0)).toMatch(/; Max-Age=0; Path=\/tenant; HttpOnly; SameSite=Lax; Secure$/);
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
