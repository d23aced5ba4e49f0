/**
 * One admin operation, declared once: its method and path, the access it needs, the zod
 * declarations of its path parameters, query and body (the handler gets them parsed), whether
 * it needs `If-Match`, and its answers' schemas. The router (`admin-router.ts`) validates with
 * these declarations and the OpenAPI document (`openapi.ts`) is generated from them, so the
 * document cannot say one thing while the handler does another.
 */
import type { z } from '../config/fields.js';
import type { Access, Operator } from './authentication.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  /** The `ETag` of the representation answered (or, for a change, of the resource now). */
  readonly etag?: string | undefined;
  readonly location?: string;
}

export interface OperationInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Present whenever the operation declares `ifMatch` (the router answers 428 otherwise). */
  readonly ifMatch: string | undefined;
  readonly operator: Operator;
}

export interface SuccessAnswer {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** The answer carries an `ETag`. */
  readonly etag?: boolean;
}

export interface AdminOperation {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI form: `/clients/{clientId}`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly access: Access;
  readonly params?: z.ZodObject | undefined;
  readonly query?: z.ZodObject | undefined;
  readonly body?: z.ZodType | undefined;
  readonly ifMatch?: boolean | undefined;
  readonly responses: Readonly<Record<number, SuccessAnswer>>;
  handle(input: OperationInput<unknown, unknown, unknown>): Promise<Reply>;
}

/** Types the handler's input by the declarations; erased to `AdminOperation` for the router. */
export function defineOperation<P extends z.ZodObject = z.ZodObject<{}>, Q extends z.ZodObject = z.ZodObject<{}>, B extends z.ZodType = z.ZodUndefined>(spec: {
  operationId: string;
  method: HttpMethod;
  path: string;
  tag: string;
  summary: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  ifMatch?: boolean;
  responses: Record<number, SuccessAnswer>;
  handle(input: OperationInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<Reply>;
}): AdminOperation {
  return spec as unknown as AdminOperation;
}
