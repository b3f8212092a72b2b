import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

export interface CreateRepoOptions {
  /** The default branch (the bare repo's HEAD); `main` unless given. */
  readonly branch?: string;
  /** Lightweight tags on the initial commit. */
  readonly tags?: readonly string[];
  readonly author?: GitIdentity;
}

export interface CommitFilesOptions {
  readonly branch?: string;
  /** Where a branch that does not exist yet starts (default HEAD); `before` is then all zeros. */
  readonly from?: string;
  /** Path → new content; `null` removes the file. */
  readonly changes: Readonly<Record<string, string | null>>;
  readonly message: string;
  readonly author?: GitIdentity;
}

export interface CommitResult {
  readonly before: string;
  readonly after: string;
  /** Paths the commit changed against its parent (sorted; what a push webhook would list). */
  readonly changed: string[];
}

export interface TagOptions {
  readonly tag: string;
  /** Commit or ref to tag; the default branch's tip unless given. */
  readonly target?: string;
  /** An annotated tag (a tag object, peeled by `ls-refs`); lightweight unless given. */
  readonly message?: string;
}

const DEFAULT_AUTHOR: GitIdentity = { name: 'Demo Dev', email: 'dev@example.test' };

/** The directory of the bare repository `name` under `root` (`<root>/<name>.git`). */
export function bareRepoPath(root: string, name: string): string {
  return join(root, `${name}.git`);
}

/** Creates `<root>/<name>.git` holding one commit with `files`; returns that commit's SHA. */
export async function createBareRepo(
  root: string,
  name: string,
  files: Readonly<Record<string, string>>,
  options: CreateRepoOptions = {},
): Promise<string> {
  const branch = options.branch ?? 'main';
  const gitDir = bareRepoPath(root, name);
  await mkdir(gitDir, { recursive: true });
  await git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, gitDir]);
  const sha = await writeCommit(gitDir, {
    ref: `refs/heads/${branch}`,
    parent: undefined,
    changes: files,
    message: 'initial commit',
    author: options.author ?? DEFAULT_AUTHOR,
  });
  for (const tagName of options.tags ?? []) await git(['tag', tagName, sha], { gitDir });
  return sha;
}

/** Adds one commit on `branch` (default: the repo's HEAD branch), as a push would. */
export async function commitFiles(
  root: string,
  name: string,
  options: CommitFilesOptions,
): Promise<CommitResult> {
  const gitDir = bareRepoPath(root, name);
  const ref = options.branch === undefined ? await headRef(gitDir) : `refs/heads/${options.branch}`;
  const before = await commitOf(gitDir, ref);
  // A new branch starts from `from` (default HEAD), as `git push origin HEAD:new-branch` would.
  const parent = before ?? (await commitOf(gitDir, options.from ?? 'HEAD'));
  const after = await writeCommit(gitDir, {
    ref,
    parent,
    changes: options.changes,
    message: options.message,
    author: options.author ?? DEFAULT_AUTHOR,
  });
  const base = parent ?? (await git(['hash-object', '-t', 'tree', '/dev/null'], { gitDir }));
  const diff = await git(['diff-tree', '-r', '--no-renames', '--name-only', base, after], { gitDir });
  return {
    before: before ?? '0'.repeat(40),
    after,
    changed: diff === '' ? [] : diff.split('\n').sort(),
  };
}

/** Tags a commit; returns the SHA the tag ref points at (the tag object when annotated). */
export async function tag(root: string, name: string, options: TagOptions): Promise<string> {
  const gitDir = bareRepoPath(root, name);
  const target = options.target ?? (await headRef(gitDir));
  const args =
    options.message === undefined
      ? ['tag', options.tag, target]
      : ['tag', '-a', '-m', options.message, options.tag, target];
  await git(args, { gitDir, identity: DEFAULT_AUTHOR });
  return git(['rev-parse', `refs/tags/${options.tag}`], { gitDir });
}

/** Points the bare repo's HEAD (its default branch) at `branch`. */
export async function setDefaultBranch(root: string, name: string, branch: string): Promise<void> {
  await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir: bareRepoPath(root, name) });
}

/** A fresh temporary directory to hold bare repositories; remove it with `rm(dir, { recursive: true })`. */
export async function makeReposRoot(prefix = 'git-repos-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeReposRoot(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

function commitOf(gitDir: string, rev: string): Promise<string | undefined> {
  return git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { gitDir }).catch(() => undefined);
}

async function headRef(gitDir: string): Promise<string> {
  return git(['symbolic-ref', 'HEAD'], { gitDir });
}

/** Writes one commit on `ref` with a single `git fast-import` (one process, however many files). */
async function writeCommit(
  gitDir: string,
  commit: {
    ref: string;
    parent: string | undefined;
    changes: Readonly<Record<string, string | null>>;
    message: string;
    author: GitIdentity;
  },
): Promise<string> {
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  const who = `${commit.author.name} <${commit.author.email}> ${when}`;
  // Every command ends with a newline; `data <bytes>` blocks carry content verbatim.
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let stream = `commit ${commit.ref}\nauthor ${who}\ncommitter ${who}\n${data(commit.message)}`;
  if (commit.parent !== undefined) stream += `from ${commit.parent}\n`;
  for (const [path, content] of Object.entries(commit.changes)) {
    const clean = path.replace(/^\/+/, '');
    stream += content === null ? `D ${clean}\n` : `M 100644 inline ${clean}\n${data(content)}`;
  }
  await git(['fast-import', '--quiet', '--force'], { gitDir, input: `${stream}\n` });
  return git(['rev-parse', commit.ref], { gitDir });
}

interface GitRunOptions {
  readonly gitDir?: string;
  readonly input?: string;
  readonly identity?: GitIdentity;
}

/** Runs the `git` CLI isolated from the user's and the system's configuration; resolves trimmed stdout. */
export function git(args: readonly string[], options: GitRunOptions = {}): Promise<string> {
  const identity = options.identity ?? DEFAULT_AUTHOR;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
    ...(options.gitDir === undefined ? {} : { GIT_DIR: options.gitDir }),
  };
  return new Promise((resolve, reject) => {
    const input = options.input;
    const child = spawn('git', args, {
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8').trim());
      else
        reject(new Error(`git ${args[0]} failed (${code}): ${Buffer.concat(err).toString('utf8').trim()}`));
    });
    if (input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    }
  });
}
