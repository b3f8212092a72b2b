import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeReposRoot, removeReposRoot } from '../../infra/local/git-repos.js';
import { type GitServer, type GitServerAuth, startGitServer } from '../../infra/local/git-server.js';
import type { TreeEntry, TreeSource } from '../../lib/git/manifest-types.js';

export interface TestGitHost {
  /** Directory of the bare repositories; pass it to `createBareRepo`/`commitFiles`/`tag`. */
  readonly root: string;
  readonly server: GitServer;
  url(name: string): string;
  close(): Promise<void>;
}

/** A temporary repos root served by the real `git http-backend` on 127.0.0.1 (port 0). */
export async function startTestGitHost(
  options: { auth?: GitServerAuth; allowShaWants?: boolean; protocolV2?: boolean } = {},
): Promise<TestGitHost> {
  const root = await makeReposRoot();
  const server = await startGitServer({ root, ...options });
  return {
    root,
    server,
    url: (name) => server.url(name),
    close: async () => {
      await server.close();
      await removeReposRoot(root);
    },
  };
}

/** An in-memory commit tree for the pure manifest collector: path → content (`{ symlink }` for links). */
export function memoryTree(files: Readonly<Record<string, string | { symlink: string }>>): TreeSource & {
  readonly reads: string[];
} {
  const reads: string[] = [];
  const directories = new Map<string, Map<string, TreeEntry['type']>>([['', new Map()]]);
  for (const [path, content] of Object.entries(files)) {
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      const name = parts[i] ?? '';
      const isLeaf = i === parts.length - 1;
      const type: TreeEntry['type'] = isLeaf ? (typeof content === 'string' ? 'blob' : 'symlink') : 'tree';
      if (!directories.has(dir)) directories.set(dir, new Map());
      directories.get(dir)?.set(name, type);
      if (!isLeaf) {
        const sub = parts.slice(0, i + 1).join('/');
        if (!directories.has(sub)) directories.set(sub, new Map());
      }
    }
  }
  return {
    reads,
    listDirectory: async (path) => {
      const entries = directories.get(path);
      if (entries === undefined) return undefined;
      return [...entries.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, type]) => ({ name, type }));
    },
    readFile: async (path) => {
      const content = files[path];
      if (typeof content !== 'string') return undefined;
      reads.push(path);
      return Buffer.from(content, 'utf8');
    },
  };
}

/**
 * A proxy in front of a test host that answers the first protocol v2 POST with a 503 (a server error says
 * nothing of the protocol) and passes everything else through; `seen` lists each request as
 * `<method> v1|v2`.
 */
export async function startFailingOnceV2Proxy(host: TestGitHost): Promise<{
  readonly seen: string[];
  url(name: string): string;
  close(): Promise<void>;
}> {
  let failed = false;
  const seen: string[] = [];
  const origin = new URL(host.server.baseUrl).origin;
  const proxy = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      const v2 = req.headers['git-protocol'] === 'version=2';
      seen.push(`${req.method} ${v2 ? 'v2' : 'v1'}`);
      if (req.method === 'POST' && v2 && !failed) {
        failed = true;
        res.writeHead(503).end('busy');
        return;
      }
      const upstream = request(
        `${origin}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.end(Buffer.concat(parts));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  return {
    seen,
    url: (name) => `http://127.0.0.1:${port}/${name}.git`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}
