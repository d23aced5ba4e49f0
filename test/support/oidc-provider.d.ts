/** The little of node-oidc-provider (which ships no types) the upstream sign-in tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (ctx: unknown, err: unknown) => void): this;
  }
}
