import type { RolloutStatus } from '../rollouts/model.js';
import { type Html, html } from './html.js';

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
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
