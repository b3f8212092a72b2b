import { cell, formatTable } from '../../lib/cli/table.js';
import { errorMessage } from '../../lib/errors.js';
import { createMemoryLogger } from '../../lib/logger.js';
import { defaultPush } from '../simulator/default-push.js';
import { SCENARIOS } from './demo-scenarios.js';
import { commitFiles } from './git-repos.js';
import { githubPush } from './sample-push.js';
import { LOCAL_GITHUB_SECRET, type LocalStack, type LocalStackOptions, startLocalStack } from './stack.js';
import { DEFAULT_PORT, readStackState } from './state-file.js';

// `npm run demo`: push a commit to the simulated platform repository, post the signed GitHub webhook, and
// follow the rollout to its end. Uses the running `npm start` if there is one, else a stack of its own.

export interface Target {
  readonly url: string;
  readonly reposRoot: string;
  readonly platformUrl: string;
  readonly secret: string;
  readonly own?: LocalStack;
}

async function runningStack(): Promise<Target | undefined> {
  // The stack on PORT (default 3000): each port keeps its own state under .local/<port>/.
  const state = readStackState(Number(process.env.PORT ?? DEFAULT_PORT));
  if (state?.reposRoot === undefined || state.platformUrl === undefined) return undefined;
  try {
    const health = await fetch(`${state.url}/healthz`, { signal: AbortSignal.timeout(1000) });
    if (!health.ok) return undefined;
  } catch {
    return undefined;
  }
  return {
    url: state.url,
    reposRoot: state.reposRoot,
    platformUrl: state.platformUrl,
    secret: state.githubSecret ?? LOCAL_GITHUB_SECRET,
  };
}

export async function ownStack(
  overlay?: LocalStackOptions['fleetOverlay'],
  env: Record<string, string> = {},
): Promise<Target> {
  say(
    overlay === undefined
      ? 'No running `npm start` found: starting a local stack for this demo...'
      : 'Starting a local stack for this demo...',
  );
  const stack = await startLocalStack({
    ...(overlay === undefined ? {} : { fleetOverlay: overlay }),
    env: { ...process.env, PORT: '0', TRACK_INTERVAL_SECONDS: '1', TRACK_MAX_INTERVAL_SECONDS: '2', ...env },
    controller: { tickMs: 100, syncMs: 800, healthMs: 600, retryMs: 500 },
    logger: createMemoryLogger(),
    print: (line) => say(line),
    schedule: false,
  });
  const world = stack.world;
  if (world === undefined) throw new Error('the demo needs the simulated fleet: unset FLEET_CONFIG');
  return {
    url: stack.url,
    reposRoot: world.reposRoot,
    platformUrl: world.repoUrl('platform'),
    secret: LOCAL_GITHUB_SECRET,
    own: stack,
  };
}

export const say = (line = '') => process.stdout.write(`${line}\n`);

export interface AppRow {
  cluster: string;
  kind: string;
  namespace: string;
  name: string;
  state: string;
  message?: string;
  durationSeconds?: number;
}

function table(apps: readonly AppRow[]): string[] {
  const rows = [...apps].sort((a, b) => `${a.cluster}/${a.name}`.localeCompare(`${b.cluster}/${b.name}`));
  // The same table `gitops-sync rollout <sha>` prints.
  return formatTable(
    ['CLUSTER', 'OBJECT', 'STATE', 'DETAIL'],
    rows.map((r) => [
      r.cluster,
      `${r.kind}/${r.name}`,
      r.state,
      cell(
        [r.durationSeconds === undefined ? '' : `${r.durationSeconds}s`, r.message ?? '']
          .filter(Boolean)
          .join('  '),
      ),
    ]),
  );
}

/** Commits a new web image to the platform repository and posts the signed GitHub push. */
export async function pushWeb(target: Target): Promise<string> {
  const push = defaultPush();
  const stamp = Date.now().toString(36);
  const changes = Object.fromEntries(
    Object.entries(push.changes).map(([path, text]) => [
      path,
      text.replace('web:1.9.0', `web:1.9.0-${stamp}`),
    ]),
  );
  return pushFiles(target, { branch: push.branch, changes, message: push.message });
}

/** Commits files to the platform repository and posts the signed GitHub push; the new commit's SHA. */
export async function pushFiles(
  target: Target,
  push: { readonly branch: string; readonly changes: Record<string, string>; readonly message: string },
): Promise<string> {
  const commit = await commitFiles(target.reposRoot, 'platform', push);
  say(
    `Pushed ${commit.after.slice(0, 7)} to platform@${push.branch}: ${push.message} (${commit.changed.join(', ')})`,
  );
  const delivery = githubPush(
    {
      repoUrl: target.platformUrl,
      fullName: 'example/platform',
      branch: push.branch,
      before: commit.before,
      after: commit.after,
      changed: commit.changed,
      message: push.message,
    },
    target.secret,
  );
  say(`POST ${target.url}/webhooks/github  (X-GitHub-Event: push, X-Hub-Signature-256: sha256=...)`);
  const answer = await fetch(`${target.url}/webhooks/github`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
  });
  say(`-> ${answer.status} ${await answer.text()}`);
  if (answer.status !== 202) throw new Error('the webhook was not accepted');
  return commit.after;
}

export type DemoRollout = {
  status: string;
  apps: AppRow[];
  decisions?: Record<string, number>;
  waves?: { name: string; state: string; clusters: string[]; reason?: string }[];
};

/** Follows the rollout, printing each change of its status (and waves), until `done` says so. */
export async function follow(
  target: Target,
  sha: string,
  done: (rollout: DemoRollout) => boolean = (r) => !['pending', 'in-progress'].includes(r.status),
  timeoutMs = 180_000,
): Promise<DemoRollout> {
  let seen = '';
  let rollout: DemoRollout | undefined;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(`${target.url}/rollouts/${sha}`);
    if (response.status === 200) {
      rollout = (await response.json()) as DemoRollout;
      const counts: Record<string, number> = {};
      for (const a of rollout.apps) counts[a.state] = (counts[a.state] ?? 0) + 1;
      const waves = (rollout.waves ?? []).map((w) => `${w.name}:${w.state}`).join(' ');
      const line = `rollout ${sha.slice(0, 7)}: ${rollout.status}  ${JSON.stringify(counts)}${waves === '' ? '' : `  waves ${waves}`}`;
      if (line !== seen) say(line);
      seen = line;
      if (done(rollout)) return rollout;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  if (rollout === undefined) throw new Error('no rollout was recorded');
  return rollout;
}

export function printRollout(target: Target, sha: string, rollout: DemoRollout): void {
  say();
  say(`GET ${target.url}/rollouts/${sha}  -> status ${rollout.status}`);
  for (const line of table(rollout.apps)) say(line);
  say(`decisions: ${JSON.stringify(rollout.decisions ?? {})}`);
  say(`page: ${target.url}/ui/rollouts/${sha.slice(0, 7)}`);
  say();
}

async function main(): Promise<void> {
  const scenario = process.argv[2] ?? 'push';
  if (scenario !== 'push') {
    const run = SCENARIOS[scenario];
    if (run === undefined) {
      throw new Error(`unknown demo "${scenario}": try push (default), ${Object.keys(SCENARIOS).join(', ')}`);
    }
    return run({ say, ownStack, pushWeb, pushFiles, follow, printRollout });
  }
  const target = (await runningStack()) ?? (await ownStack());
  try {
    const sha = await pushWeb(target);
    printRollout(target, sha, await follow(target, sha));
  } finally {
    await target.own?.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${errorMessage(error)}\n`);
  process.exit(1);
});
