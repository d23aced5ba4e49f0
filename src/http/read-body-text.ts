/**
 * Reads a request body of one media type as text with @koa/bodyparser: decoded from its
 * Content-Encoding (gzip, deflate, br), capped at `bodyBytes` after decoding, in UTF-8. Every
 * failure while reading is the client's (see `unreadableBody`); the caller parses the text.
 */
import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import type { Context } from 'koa';
import { InvalidRequest } from '../oauth/errors.js';

export function bodyTextReader(mediaType: string, limits: { readonly bodyBytes: number }): (ctx: Context) => Promise<string> {
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: [mediaType] },
    textLimit: limits.bodyBytes,
    encoding: 'utf-8',
  });
  return async (ctx) => {
    let body: unknown;
    try {
      await withDecodersHeld(ctx.req, () => readText(ctx, async () => {
        body = ctx.request.body;
      }));
    } catch (err) {
      throw unreadableBody(err);
    }
    return typeof body === 'string' ? body : '';
  };
}

/**
 * A compressed body is inflated by a zlib stream the parser pipes the request into (co-body's
 * `inflation`). When raw-body gives up on that stream (past the size limit, 413) it stops
 * listening to it, yet the stream goes on inflating what it already holds: a corrupt byte a little
 * further on then raises an `error` nobody listens to, and Node stops the process. The fuzzer
 * found it with a gzip bomb that had one byte inserted. So each stream the request is piped into
 * while the body is read gets a listener of ours (raw-body still hears its errors first and
 * answers 400), and is unpiped and destroyed when reading fails.
 */
async function withDecodersHeld(req: IncomingMessage, read: () => Promise<void>): Promise<void> {
  if (req.headers['content-encoding'] === undefined) return read();
  const decoders: NodeJS.WritableStream[] = [];
  const pipe = req.pipe;
  req.pipe = function pipeHeld<T extends NodeJS.WritableStream>(this: IncomingMessage, destination: T, options?: { end?: boolean }): T {
    destination.on('error', ignoreLateError);
    decoders.push(destination);
    return pipe.call(this, destination, options) as T;
  };
  try {
    await read();
  } catch (err) {
    for (const decoder of decoders) {
      req.unpipe(decoder);
      (decoder as NodeJS.WritableStream & { destroy?: () => void }).destroy?.();
    }
    throw err;
  } finally {
    delete (req as { pipe?: unknown }).pipe;
  }
}

/** The body was already answered for (400 or 413); what the decoder meets afterwards is moot. */
function ignoreLateError(): void {}

/**
 * Anything that fails while the body is read is the client's doing: too large (413), an
 * unsupported encoding (415), or bytes that do not inflate as their Content-Encoding says (a
 * zlib error, with no status of its own), which would otherwise pass for a server error.
 */
function unreadableBody(err: unknown): unknown {
  const status = (err as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return err;
  const code = (err as { code?: unknown } | null)?.code;
  return new InvalidRequest('The request could not be read.', { logDetail: `body: ${typeof code === 'string' ? code : 'unreadable'}` });
}
