/**
 * Handles the requests that arrive in one turn of the event loop together, as a cohort: they
 * are started back to back once the turn's input has been read (in a `setImmediate` callback),
 * and since each one's later steps are promise continuations, which run in the order they were
 * queued, the cohort then moves through every step in lockstep: all bodies are read, then all
 * clients authenticated, then all tokens signed, then all responses written.
 *
 * Why: started one at a time, as Node does by default, each request runs the whole service
 * (HTTP parsing, Koa, body reading, authentication, signing, JSON, the socket write) before the
 * next starts, and every step finds the CPU caches full of the other steps: an ES256 signature
 * took about 55 µs that way against 39 µs right after another one. Step by step across a
 * cohort, each step's code and data stay cached. This is cohort scheduling (Larus and Parkes,
 * "Using Cohort Scheduling to Enhance Server Performance", USENIX 2002); docs/guides/performance.md
 * has the measurements.
 *
 * A request waits at most for the rest of its turn, and an idle server answers as before. No
 * request waits for another's I/O: a cohort only shares the CPU, as the same requests would
 * one after another.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export function inCohorts(
  listener: (req: IncomingMessage, res: ServerResponse) => unknown,
  onError: (error: unknown, res: ServerResponse) => void,
): RequestListener {
  let arrived: Array<[IncomingMessage, ServerResponse]> = [];

  function start(): void {
    const cohort = arrived;
    arrived = [];
    for (const [req, res] of cohort) {
      // The listener answers its own errors (Koa does); one that throws must not stop the cohort.
      try {
        listener(req, res);
      } catch (error) {
        onError(error, res);
      }
    }
  }

  return (req, res) => {
    if (arrived.length === 0) setImmediate(start);
    arrived.push([req, res]);
  };
}
