// json-server's `--static` directory (docs/json-server.md: Serving json-server's dialect): a GET or HEAD of a file
// under it is that file, as express.static serves it (a directory's index.html, no dotfiles, nothing outside it, its
// ETag and Last-Modified), before any route; the home page `/` is plainrest's unless the directory has an index.html.

import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import type { Reply } from '../http/respond.ts';

/** Media types by extension, for what a front end's directory usually holds; others are octet streams. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=UTF-8',
  '.htm': 'text/html; charset=UTF-8',
  '.css': 'text/css; charset=UTF-8',
  '.js': 'application/javascript; charset=UTF-8',
  '.mjs': 'application/javascript; charset=UTF-8',
  '.json': 'application/json; charset=UTF-8',
  '.map': 'application/json; charset=UTF-8',
  '.txt': 'text/plain; charset=UTF-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

export class StaticFiles {
  readonly #root: string;
  readonly #index: boolean;

  constructor(directory: string) {
    this.#root = resolve(directory);
    this.#index = existsSync(join(this.#root, 'index.html'));
  }

  /** Whether the directory had an index.html when the server started: `/` is then its. */
  hasIndex(): boolean {
    return this.#index;
  }

  /** The file a GET or HEAD of `path` names, or undefined when there is none (the routes then answer). */
  async answer(req: IncomingMessage, path: string): Promise<Reply | undefined> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    if (decoded.includes('\0') || decoded.split('/').some((step) => step.startsWith('.'))) return undefined;
    let file = resolve(this.#root, `.${decoded}`);
    if (file !== this.#root && !file.startsWith(this.#root + sep)) return undefined;
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const found = await stat(file);
      if (!found.isFile()) return undefined;
      const body = await readFile(file);
      return {
        status: 200,
        headers: {
          'Cache-Control': 'public, max-age=0',
          'Last-Modified': found.mtime.toUTCString(),
          // As the send package tags a file: weak, its size and time of change (a 304 follows: express-send.ts).
          ETag: `W/"${found.size.toString(16)}-${found.mtime.getTime().toString(16)}"`,
        },
        body,
        contentType: MEDIA_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      };
    } catch {
      return undefined;
    }
  }
}
