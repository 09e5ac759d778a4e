// Express 5 ships no types of its own, and @types/express is not a dev dependency: these are the few parts of its API
// the tests that mount plainrest in it use (express(), use, get, listen, and its body parsers), as Express 5 documents
// them.

declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  type Request = IncomingMessage & { body?: unknown; originalUrl: string };
  type Response = ServerResponse & { json(body: unknown): void };
  type Middleware = (req: Request, res: Response, next: (error?: unknown) => void) => void;
  type Listener = (req: IncomingMessage, res: ServerResponse) => void;

  interface Application {
    use(path: string, handler: Middleware | Listener): Application;
    use(handler: Middleware): Application;
    get(path: string, handler: (req: Request, res: Response) => void): Application;
    listen(port: number, host: string, ready: () => void): Server;
  }

  interface ParserOptions {
    /** The media types parsed: a type such as "application/json", or a function of the request. */
    readonly type?: string | readonly string[];
    readonly limit?: number | string;
  }

  interface Express {
    (): Application;
    json(options?: ParserOptions): Middleware;
    raw(options?: ParserOptions): Middleware;
    text(options?: ParserOptions): Middleware;
  }

  const express: Express;
  export default express;
}
