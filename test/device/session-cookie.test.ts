import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createSessionCookies, sessionCookieName } from '../../src/device/session-cookie.js';

const secret = randomBytes(32);
const now = Date.parse('2030-01-01T00:00:00Z');
const cookies = createSessionCookies({ secret, secure: false, path: '/device', lifetimeSeconds: 3600 });
const valueOf = (setCookie: string): string => setCookie.split(';')[0]!;

describe('session cookie', () => {
  it('is HttpOnly, SameSite=Lax, limited to the page path, and Secure only when asked', () => {
    const session = cookies.create(now);
    expect(cookies.serialize(session, now)).toMatch(/^svc_device_session=[\w-]+\.[\w-]+; Path=\/device; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    const secure = createSessionCookies({ secret, secure: true, path: '/device', lifetimeSeconds: 3600 });
    expect(secure.serialize(session, now)).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('reads back what it wrote, signed-in sessions included', () => {
    const session = cookies.create(now, { subject: 'sub-1', authTime: now / 1000 });
    expect(cookies.read(valueOf(cookies.serialize(session, now)), now)).toEqual(session);
    expect(session.sid).not.toBe(cookies.create(now).sid);
  });

  it('finds its cookie among others', () => {
    const session = cookies.create(now);
    expect(cookies.read(`a=b; ${valueOf(cookies.serialize(session, now))}; c=d`, now)).toEqual(session);
  });

  it('rejects a changed payload, a changed signature, another secret and garbage', () => {
    const session = cookies.create(now);
    const [name, value] = valueOf(cookies.serialize(session, now)).split('=') as [string, string];
    const [payload, mac] = value.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...session, subject: 'admin', authTime: 1 })).toString('base64url');
    expect(cookies.read(`${name}=${forged}.${mac}`, now)).toBeUndefined();
    const altered = (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    expect(cookies.read(`${name}=${payload}.${altered}`, now)).toBeUndefined();
    const other = createSessionCookies({ secret: randomBytes(32), secure: false, path: '/device', lifetimeSeconds: 3600 });
    expect(other.read(`${name}=${value}`, now)).toBeUndefined();
    for (const junk of ['', 'x', `${sessionCookieName}=`, `${sessionCookieName}=a.b.c`, `${sessionCookieName}=${payload}`]) {
      expect(cookies.read(junk, now)).toBeUndefined();
    }
  });

  it('expires', () => {
    const session = cookies.create(now);
    const header = valueOf(cookies.serialize(session, now));
    expect(cookies.read(header, now + 3599_000)).toEqual(session);
    expect(cookies.read(header, now + 3600_000)).toBeUndefined();
  });
});
