/**
 * GET a JSON document (a discovery document, a JWK Set) with a deadline for the whole answer, a
 * size cap and no redirects: a key fetch must never hold a request for long nor read without end.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

const MAX_BYTES = 512 * 1024;

export interface FetchOptions {
  /** Milliseconds for connecting, the headers and the body together. */
  readonly timeoutMs: number;
  /** Extra PEM certificates to trust, beside Node's root store. */
  readonly tlsCa: string | undefined;
}

export type FetchJson = (url: URL, options: FetchOptions) => Promise<unknown>;

export const fetchJson: FetchJson = (url, { timeoutMs, tlsCa }) =>
  new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      headers: { accept: 'application/json, application/jwk-set+json' },
      ...(url.protocol === 'https:' && tlsCa !== undefined ? { ca: [...rootCertificates, tlsCa] } : {}),
    });
    const timer = setTimeout(() => req.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    req.on('error', fail);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        fail(new Error(`HTTP ${res.statusCode ?? '?'}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) req.destroy(new Error(`answer larger than ${MAX_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          reject(new Error('answer is not JSON'));
        }
      });
    });
    req.end();
  });
