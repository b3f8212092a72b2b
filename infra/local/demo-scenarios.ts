import type { FleetConfig } from '../../lib/fleet/fleet-config.js';
import { badManifest } from './demo-bad-manifest.js';
import { chart } from './demo-chart.js';
import { failedSync } from './demo-failed-sync.js';
import type { LocalStack, LocalStackOptions } from './stack.js';

// `npm run demo -- waves`, `npm run demo -- missing-secret`, `bad-manifest`, `failed-sync` and `chart`:
// release control, the preflight and registry triggers on a stack of their own (a fleet with waves; a
// secret created half way; a manifest that does not parse; a sync an admission webhook denies; a Helm
// chart pushed to ECR), each in well under a minute.

export interface DemoTarget {
  readonly url: string;
  readonly own?: LocalStack;
}

export interface DemoRollout {
  readonly status: string;
  readonly apps: readonly {
    cluster: string;
    name: string;
    state: string;
    message?: string;
    secrets?: readonly { outcome: string; message?: string }[];
    preflight?: { verdict: string; reasons: readonly string[] };
  }[];
  readonly waves?: readonly { name: string; state: string; clusters: string[]; reason?: string }[];
}

/** What demo.ts lends a scenario. */
export interface DemoKit {
  say(line?: string): void;
  ownStack(overlay?: LocalStackOptions['fleetOverlay'], env?: Record<string, string>): Promise<DemoTarget>;
  pushWeb(target: DemoTarget): Promise<string>;
  pushFiles(
    target: DemoTarget,
    push: { branch: string; changes: Record<string, string>; message: string },
  ): Promise<string>;
  follow(target: DemoTarget, sha: string, done?: (rollout: DemoRollout) => boolean): Promise<DemoRollout>;
  printRollout(target: DemoTarget, sha: string, rollout: DemoRollout): void;
}

const app = (r: DemoRollout, name: string) => r.apps.find((a) => a.cluster === 'hub' && a.name === name);

/** A canary wave (spoke-a) first, then the rest of the fleet, gated on the canary being synced and healthy. */
async function waves(kit: DemoKit): Promise<void> {
  const overlay = (fleet: FleetConfig): FleetConfig => ({
    ...fleet,
    waves: [
      // spoke-a's web-canary is scripted to degrade: the canary tolerates one unhealthy app.
      { name: 'canary', clusters: ['spoke-a'], soakMs: 2_000, maxUnhealthy: { count: 1 } },
      // The rest holds spoke-c's scripted failures: more than half unhealthy halts the rollout.
      { name: 'rest', soakMs: 0, maxUnhealthy: { percent: 50 } },
    ],
  });
  const target = await kit.ownStack(overlay);
  try {
    kit.say(
      'Fleet waves: canary = [spoke-a] (soak 2s, 1 unhealthy tolerated), rest = every other destination',
    );
    const sha = await kit.pushWeb(target);
    const held = await kit.follow(target, sha, (r) => app(r, 'web-spoke-b')?.state === 'held');
    kit.say(`  web-spoke-b (wave rest): held, "${app(held, 'web-spoke-b')?.message}"`);
    const done = await kit.follow(
      target,
      sha,
      (r) => r.waves?.every((w) => w.state === 'done' || w.state === 'halted') === true,
    );
    for (const w of done.waves ?? []) {
      kit.say(
        `  wave ${w.name} [${w.clusters.join(', ')}]: ${w.state}${w.reason === undefined ? '' : ` (${w.reason})`}`,
      );
    }
    kit.printRollout(target, sha, done);
  } finally {
    await target.own?.close();
  }
}

/** A push whose ExternalSecret names a missing property is blocked; once the secret has it, reconcile releases it. */
async function missingSecret(kit: DemoKit): Promise<void> {
  // The catch-up waits 2 minutes before it calls an app behind its ref; the demo does not.
  const target = await kit.ownStack(undefined, { MISSED_WEBHOOK_GRACE_SECONDS: '0' });
  const stack = target.own;
  if (stack?.world === undefined) throw new Error('the demo needs the simulated fleet');
  try {
    const sha = await kit.pushWeb(target);
    const blocked = await kit.follow(target, sha);
    kit.say(`  web-spoke-b: ${app(blocked, 'web-spoke-b')?.state}: ${app(blocked, 'web-spoke-b')?.message}`);
    kit.say('Creating the missing property spokeBToken in Secrets Manager (platform/web/analytics)...');
    stack.world.secretsManager.put({
      name: 'platform/web/analytics',
      string: JSON.stringify({ token: 'sim-analytics-token', spokeBToken: 'sim-spoke-b-token' }),
    });
    kit.say(
      'Running the scheduled reconciliation once (every 5 minutes in AWS): it preflights blocked apps again',
    );
    await stack.app.reconcile();
    const released = await kit.follow(target, sha, (r) => app(r, 'web-spoke-b')?.state === 'synced');
    kit.say(`  web-spoke-b: ${app(released, 'web-spoke-b')?.state} (released: its preflight passes now)`);
    kit.printRollout(target, sha, released);
  } finally {
    await target.own?.close();
  }
}

export const SCENARIOS: Readonly<Record<string, (kit: DemoKit) => Promise<void>>> = {
  waves,
  'missing-secret': missingSecret,
  'bad-manifest': badManifest,
  'failed-sync': failedSync,
  chart,
};
