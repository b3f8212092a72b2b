import type { Trigger } from '../rollouts/rollout-model.js';
import type { RolloutStatus } from '../rollouts/state-model.js';
import { type Html, html } from './html.js';

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** A registry rollout is keyed by its digest's hex: shown `sha256:` and seven hex, a commit as seven hex. */
export function shortRevision(sha: string, trigger: Trigger | undefined): string {
  return trigger === 'registry' ? `sha256:${shortSha(sha)}` : shortSha(sha);
}

/** What the rollout's key names: a Git commit, or (a registry push) the image or chart's digest. */
export function revisionNoun(trigger: Trigger | undefined): 'commit' | 'digest' {
  return trigger === 'registry' ? 'digest' : 'commit';
}

/** Still moving, so the page refreshes: a paused rollout too (it resumes); halted and aborted wait for a person. */
export function isRunning(status: RolloutStatus): boolean {
  return status === 'pending' || status === 'in-progress' || status === 'paused';
}

export function statusBadge(status: RolloutStatus): Html {
  return html`<span class="state s-${status}" data-status="${status}">${status}</span>`;
}

/** A time shown relative to now, with the exact ISO time on hover. */
export function timeTag(time: string | undefined, text: string): Html {
  return time === undefined ? html`` : html`<time datetime="${time}" title="${time}">${text}</time>`;
}
