import type { Decision, TargetKind } from '../../lib/rollouts/app-model.js';
import type { AppState } from '../../lib/rollouts/state-model.js';
import { defaultRepoFiles } from './default-repos.js';

/** The demo's sample push: the web image bumped in `apps/web/base/` of the platform repository, on main. */
export function defaultPush(): {
  repository: 'platform';
  branch: string;
  message: string;
  changes: Record<string, string>;
} {
  const path = 'apps/web/base/deployment.yaml';
  const before = defaultRepoFiles().platform[path] ?? '';
  return {
    repository: 'platform',
    branch: 'main',
    message: 'web: release 1.9.0',
    changes: { [path]: before.replace('ghcr.io/example/web:1.8.0', 'ghcr.io/example/web:1.9.0') },
  };
}

export interface ExpectedOutcome {
  readonly cluster: string;
  readonly namespace: string;
  readonly kind: TargetKind;
  readonly name: string;
  readonly decision: Decision;
  /** Where the object ends once tracking is done (absent: it was not refreshed). */
  readonly state?: AppState;
  readonly why: string;
}

const hub = (name: string, decision: Decision, why: string, state?: AppState): ExpectedOutcome => ({
  cluster: 'hub',
  namespace: 'argocd',
  kind: 'Application',
  name,
  decision,
  why,
  ...(state === undefined ? {} : { state }),
});
const spokeC = (name: string, decision: Decision, why: string, state?: AppState): ExpectedOutcome => ({
  ...hub(name, decision, why, state),
  cluster: 'spoke-c',
});

/**
 * What `defaultPush()` should do to every object of the platform repository (payments objects are not
 * touched: another repository). The rollout ends `partial`.
 */
export function defaultPushExpectations(): ExpectedOutcome[] {
  const pathsMiss = 'its manifest-generate-paths do not cover apps/web/base/';
  const outcomes: ExpectedOutcome[] = [
    hub('root', 'refreshed', 'no manifest-generate-paths: every push to main refreshes it', 'synced'),
    hub('web-spoke-a', 'refreshed', '../../base covers the change', 'synced'),
    hub(
      'web-spoke-b',
      'blocked',
      'ExternalSecret web/web-analytics: property spokeBToken missing in platform/web/analytics',
      'blocked',
    ),
    hub('web-canary', 'refreshed', 'scripted to degrade', 'degraded'),
    hub('web-release', 'revision-miss', 'pinned to tag v1.4.2'),
    hub('web-preview', 'refreshed', 'apps/web covers the change', 'synced'),
    hub('platform-shared-spoke-a', 'refreshed', 'no manifest-generate-paths; manifests unchanged', 'synced'),
    hub('platform-shared-spoke-b', 'refreshed', 'no manifest-generate-paths; manifests unchanged', 'synced'),
    spokeC('web', 'refreshed', 'scripted to fail once, then succeed on retry', 'synced'),
    spokeC('web-e2e', 'refreshed', 'scripted to fail', 'failed'),
    spokeC('web-dr', 'refreshed', 'no automated sync policy: a person must sync', 'out-of-sync'),
    spokeC('web-stable', 'revision-miss', 'semver constraint ~1.4 does not match branch main'),
    spokeC('platform-shared', 'refreshed', 'no manifest-generate-paths; manifests unchanged', 'synced'),
    spokeC('api', 'paths-miss', pathsMiss),
    spokeC('worker', 'paths-miss', pathsMiss),
    {
      cluster: 'hub',
      namespace: 'argocd',
      kind: 'ApplicationSet',
      name: 'previews',
      decision: 'refreshed',
      why: 'git directories generator apps/* covers apps/web/',
    },
    {
      cluster: 'spoke-c',
      namespace: 'flux-system',
      kind: 'GitRepository',
      name: 'platform',
      decision: 'refreshed',
      why: 'follows branch main of the platform repository',
    },
  ];
  for (const service of ['api', 'worker', 'auth', 'search', 'webhooks']) {
    const why =
      service === 'webhooks' ? 'apps/webhooks is not under apps/web (directory boundary)' : pathsMiss;
    outcomes.push(hub(`${service}-spoke-a`, 'paths-miss', why), hub(`${service}-spoke-b`, 'paths-miss', why));
    outcomes.push(hub(`${service}-preview`, 'paths-miss', why));
  }
  return outcomes;
}
