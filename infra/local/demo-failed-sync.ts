import { compactText } from '../../lib/notify/compact-text.js';
import type { LocalStack } from './stack.js';

// `npm run demo -- failed-sync`: a push whose sync Argo CD runs and fails, shown with Argo CD's own
// per-resource reason (an admission webhook's denial), the Slack thread reply, and what to do next.

interface Target {
  readonly url: string;
  readonly own?: LocalStack;
}

interface FailedApp {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
  readonly state: string;
  readonly message?: string;
  readonly syncStatus?: string;
  readonly health?: string;
  readonly failures?: readonly {
    kind: string;
    namespace?: string;
    name: string;
    status: string;
    message: string;
  }[];
}

interface Rollout {
  readonly status: string;
  readonly apps: readonly { cluster: string; name: string; state: string; message?: string }[];
}

/** What the scenario borrows from demo.ts (the `DemoKit` of demo-scenarios.ts has it). */
export interface FailedSyncKit {
  say(line?: string): void;
  ownStack(): Promise<Target>;
  pushWeb(target: Target): Promise<string>;
  follow(target: Target, sha: string): Promise<Rollout>;
  printRollout(target: Target, sha: string, rollout: Rollout): void;
}

export async function failedSync(kit: FailedSyncKit): Promise<void> {
  const target = await kit.ownStack();
  try {
    kit.say("spoke-c's web-e2e is scripted to fail its sync: an admission webhook denies its Deployment.");
    const sha = await kit.pushWeb(target);
    const ended = await kit.follow(target, sha);
    const answer = await fetch(`${target.url}/rollouts/${sha}`);
    const rollout = (await answer.json()) as { status: string; apps: FailedApp[] };
    const failed = rollout.apps.filter((a) => a.state === 'failed');
    kit.say();
    kit.say(`rollout ${sha.slice(0, 7)} ended ${rollout.status}: ${failed.length} sync(s) failed in Argo CD`);
    for (const app of failed) {
      const status = [app.syncStatus, app.health].filter(Boolean).join('/');
      kit.say(`  ${app.cluster} ${app.namespace}/${app.name}: failed (${status}) — ${app.message ?? ''}`);
      for (const f of app.failures ?? []) {
        const where = f.namespace === undefined ? f.name : `${f.namespace}/${f.name}`;
        kit.say(`    ${f.kind} ${where} ${f.status}: ${f.message}`);
      }
    }
    printSlackReplies(kit, target.own, sha);
    const first = failed[0];
    if (first !== undefined) {
      kit.say('What to do: fix what the webhook refused and push again; once the cause is gone,');
      kit.say(`  npx gitops-sync retry ${sha.slice(0, 12)} --cluster ${first.cluster} --app ${first.name}`);
      kit.say('  retries the failed apps only (here it fails again: the failure is scripted).');
    }
    kit.printRollout(target, sha, ended);
  } finally {
    await target.own?.close();
  }
}

/** The thread replies the Slack double received for the rollout (what the team would read). */
function printSlackReplies(kit: FailedSyncKit, stack: LocalStack | undefined, sha: string): void {
  const slack = stack?.slack;
  if (slack === undefined) return;
  const root = slack.messages().find((m) => m.text.includes(sha.slice(0, 7)));
  if (root === undefined) return;
  const page = /<(https?:[^|>]+\/ui\/rollouts\/[^|>]+)\|rollout page>/.exec(JSON.stringify(root.blocks))?.[1];
  kit.say(`Slack message: ${compactText(root)[0] ?? ''}${page === undefined ? '' : ` (links ${page})`}`);
  kit.say('Slack thread replies (one per cause):');
  for (const reply of slack.replies(root.ts)) {
    for (const line of compactText(reply)) kit.say(`  | ${line}`);
  }
  kit.say();
}
