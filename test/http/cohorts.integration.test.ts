/** Requests that arrive in one turn are started together and then move step by step in lockstep. */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { inCohorts } from '../../src/http/cohorts.js';

const fake = (n: number) => ({ req: { n } as unknown as IncomingMessage, res: { n, destroyed: false } as unknown as ServerResponse });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('cohorts', () => {
  it('starts the requests of a turn after the turn, in arrival order, and steps them in lockstep', async () => {
    const trace: string[] = [];
    const listener = inCohorts(async (req) => {
      const { n } = req as unknown as { n: number };
      trace.push(`read ${n}`);
      await Promise.resolve();
      trace.push(`authenticate ${n}`);
      await Promise.resolve();
      trace.push(`sign ${n}`);
    }, () => {});
    for (const n of [1, 2, 3]) listener(fake(n).req, fake(n).res);
    expect(trace).toEqual([]);
    await turn();
    await turn();
    expect(trace).toEqual(['read 1', 'read 2', 'read 3', 'authenticate 1', 'authenticate 2', 'authenticate 3', 'sign 1', 'sign 2', 'sign 3']);
  });

  it('puts a request that arrives while a cohort runs into the next one', async () => {
    const started: number[] = [];
    let listener: ReturnType<typeof inCohorts>;
    listener = inCohorts((req) => {
      const { n } = req as unknown as { n: number };
      started.push(n);
      if (n === 1) listener(fake(3).req, fake(3).res);
    }, () => {});
    listener(fake(1).req, fake(1).res);
    listener(fake(2).req, fake(2).res);
    await turn();
    expect(started).toEqual([1, 2]);
    await turn();
    expect(started).toEqual([1, 2, 3]);
  });

  it('hands a listener that throws to onError and starts the rest of the cohort', async () => {
    const started: number[] = [];
    const failed: Array<[string, number]> = [];
    const listener = inCohorts((req) => {
      const { n } = req as unknown as { n: number };
      if (n === 2) throw new Error('broken');
      started.push(n);
    }, (error, res) => failed.push([(error as Error).message, (res as unknown as { n: number }).n]));
    for (const n of [1, 2, 3]) listener(fake(n).req, fake(n).res);
    await turn();
    expect(started).toEqual([1, 3]);
    expect(failed).toEqual([['broken', 2]]);
  });

  it('answers real HTTP requests, each with its own response when they finish out of order', async () => {
    const server = createServer(inCohorts((req, res) => {
      setTimeout(() => res.end(req.url), req.url === '/slow' ? 30 : 0);
    }, () => {}));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (path: string) => new Promise<string>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk)).on('end', () => resolve(body));
      }).on('error', reject).end();
    });
    try {
      expect(await Promise.all(['/slow', '/a', '/b', '/c'].map(get))).toEqual(['/slow', '/a', '/b', '/c']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
