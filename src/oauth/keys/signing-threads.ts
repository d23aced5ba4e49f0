/**
 * Signatures on worker threads (`signing.threads`), so that one process signs on more than one
 * core. Signing inline, a process is one core, and the RSA signature of an RS256 token (about
 * 260 µs) is most of a request. Measured on two cores (docs/guides/performance.md): one worker of the
 * service issued RS256 tokens 1.70× as fast with two threads (cluster mode's two workers: 1.91×),
 * and bare Koa plus one RS256 signature went 2.01× (test/bench/signing-pool.mjs).
 *
 * The signatures asked for in one turn of the event loop go out as one message per thread (the
 * turn's requests split evenly), so a cohort of requests (src/http/cohorts.ts) pays one round trip
 * per thread, not one per token. Keys go to every thread once, by `kid`; a thread that stops is
 * replaced, and what it held is refused with an error, never left waiting.
 */
import { Worker } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';
import type { Logger } from '../../sdk/contracts.js';
import { jwsSignature, jwsSignatureParameters, type JwsAlgorithm, type JwsSignatureParameters } from '../../sdk/jws.js';

export interface SigningThreads {
  /** Gives `key` to every thread under `kid`; signatures with it can be asked for from now on. */
  add(kid: string, alg: string, key: KeyObject): void;
  /** The threads drop the key (rotated out). */
  forget(kid: string): void;
  /** The base64url signature of a JWS signing input with the key `kid`. */
  sign(kid: string, signingInput: string): Promise<string>;
  /** Stops the threads; signatures asked for afterwards, or not yet answered, are refused. */
  close(): Promise<void>;
}

/** Thrown to a caller whose signature a thread could not make; names no key material. */
export class SigningThreadError extends Error {
  override readonly name = 'SigningThreadError';
}

// The thread's code, plain CommonJS run with `eval`, so the same text serves the TypeScript
// sources (run through jiti) and the compiled package. A signature that fails is answered with
// null rather than by throwing, which would stop the thread. The thread answers node:crypto's
// signature as it is (DER for ECDSA); the caller's side turns it into the JWS form (jws.ts).
const threadSource = `
const { parentPort } = require('node:worker_threads');
const { sign } = require('node:crypto');
const keys = new Map();
parentPort.on('message', (message) => {
  if (message.add) return void keys.set(message.add.kid, message.add.parameters);
  if (message.forget) return void keys.delete(message.forget);
  const signatures = message.jobs.map((job) => {
    const parameters = keys.get(job.kid);
    try {
      return parameters ? sign(parameters.hash, Buffer.from(job.input, 'latin1'), parameters.options) : null;
    } catch {
      return null;
    }
  });
  parentPort.postMessage({ batch: message.batch, signatures });
});
`;

interface Job {
  readonly kid: string;
  readonly alg: JwsAlgorithm;
  readonly input: string;
  readonly resolve: (signature: string) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  /** Batches sent and not yet answered, by batch number. */
  readonly waiting: Map<number, readonly Job[]>;
}

export function createSigningThreads({ threads: size, logger }: { threads: number; logger: Logger }): SigningThreads {
  if (!Number.isInteger(size) || size < 1) throw new Error(`signing threads: expected a positive integer, got ${size}`);
  const keys = new Map<string, JwsSignatureParameters>();
  const threads: Thread[] = [];
  let queued: Job[] = [];
  let nextBatch = 0;
  let nextThread = 0;
  let closed = false;

  function start(index: number): void {
    const worker = new Worker(threadSource, { eval: true, name: `svc-signing-${index}` });
    const thread: Thread = { worker, waiting: new Map() };
    threads[index] = thread;
    for (const [kid, parameters] of keys) worker.postMessage({ add: { kid, parameters } });
    worker.on('message', ({ batch, signatures }: { batch: number; signatures: Array<Uint8Array | null> }) => {
      const jobs = thread.waiting.get(batch);
      if (!jobs) return;
      thread.waiting.delete(batch);
      if (thread.waiting.size === 0) worker.unref();
      jobs.forEach((job, i) => {
        const signature = signatures[i];
        if (signature instanceof Uint8Array) job.resolve(jwsSignature(job.alg, Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength)));
        else job.reject(new SigningThreadError(`a signing thread could not sign with key ${job.kid}`));
      });
    });
    worker.on('error', (err) => logger.error({ err: { name: err.name, message: err.message }, thread: index }, 'a signing thread failed'));
    worker.once('exit', (code) => {
      for (const jobs of thread.waiting.values()) for (const job of jobs) job.reject(new SigningThreadError('the signing thread stopped'));
      thread.waiting.clear();
      if (closed) return;
      logger.error({ thread: index, code }, 'a signing thread stopped; starting another');
      start(index);
    });
    // Unreferenced (after the listeners, which take a reference) while it owes no answer: the
    // threads keep a process alive only for a signature in flight.
    worker.unref();
  }

  function flush(): void {
    const jobs = queued;
    queued = [];
    if (closed) {
      for (const job of jobs) job.reject(new SigningThreadError('the signing threads are stopped'));
      return;
    }
    const per = Math.ceil(jobs.length / size);
    for (let from = 0; from < jobs.length; from += per) {
      const part = jobs.slice(from, from + per);
      const thread = threads[nextThread]!;
      nextThread = (nextThread + 1) % size;
      const batch = nextBatch++;
      // Held open only while it owes answers (see `start`).
      if (thread.waiting.size === 0) thread.worker.ref();
      thread.waiting.set(batch, part);
      thread.worker.postMessage({ batch, jobs: part.map(({ kid, input }) => ({ kid, input })) });
    }
  }

  for (let i = 0; i < size; i++) start(i);

  return {
    add(kid, alg, key) {
      const parameters = jwsSignatureParameters(key, alg);
      keys.set(kid, parameters);
      for (const { worker } of threads) worker.postMessage({ add: { kid, parameters } });
    },
    forget(kid) {
      if (!keys.delete(kid)) return;
      for (const { worker } of threads) worker.postMessage({ forget: kid });
    },
    sign(kid, signingInput) {
      if (closed) return Promise.reject(new SigningThreadError('the signing threads are stopped'));
      const parameters = keys.get(kid);
      if (parameters === undefined) return Promise.reject(new SigningThreadError(`no key ${kid} on the signing threads`));
      return new Promise((resolve, reject) => {
        if (queued.length === 0) setImmediate(flush);
        queued.push({ kid, alg: parameters.alg, input: signingInput, resolve, reject });
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(threads.map(({ worker }) => worker.terminate()));
    },
  };
}
