/** Telling an unknown method (501) from bytes that are no request at all (400), in Node's parse errors. */
import { describe, expect, it } from 'vitest';
import { isUnknownMethod } from '../../src/http/not-implemented.js';

const packet = (text: string) => Buffer.from(text, 'latin1');

describe('isUnknownMethod', () => {
  it.each<[string, string, number]>([
    ['a made-up token', 'BREW / HTTP/1.1\r\nHost: x\r\n\r\n', 1],
    ['a lower-case method', 'get /healthz HTTP/1.1\r\n\r\n', 0],
    ['an unknown method after a valid request in the same packet', 'GET / HTTP/1.1\r\nHost: x\r\n\r\nBREW / HTTP/1.1\r\n\r\n', 28],
  ])('is true for %s', (_case, text, bytesParsed) => {
    expect(isUnknownMethod(packet(text), bytesParsed)).toBe(true);
  });

  it.each<[string, unknown, unknown]>([
    ['random bytes', packet('\u0000\u0001\u0002 x HTTP/1.1\r\n'), 0],
    // A GET whose body went out without Content-Length: the body is parsed as the next request.
    // The packet starts with a valid request line, but the parser stopped in the body.
    ['a body parsed as the next request', packet('GET / HTTP/1.1\r\nHost: x\r\n\r\n\u001f\u008b\u0008junk'), 27],
    ['a token without a version', packet('BREW /\r\n'), 1],
    ['no packet', undefined, 0],
    ['no offset', packet('BREW / HTTP/1.1\r\n'), undefined],
  ])('is false for %s', (_case, raw, bytesParsed) => {
    expect(isUnknownMethod(raw, bytesParsed)).toBe(false);
  });
});
