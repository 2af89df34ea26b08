/** The little of `oidc-provider` (no bundled types) the test provider uses. */
declare module 'oidc-provider' {
  import type { RequestListener } from 'node:http';
  interface KoaContext {
    path: string;
    status: number;
    body: unknown;
  }
  export default class Provider {
    constructor(issuer: string, configuration: object);
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): RequestListener;
  }
}
