import type { RolloutStatus } from '../rollouts/model.js';
import { type Html, html } from './html.js';

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

export function isRunning(status: RolloutStatus): boolean {
  return status === 'pending' || status === 'in-progress';
}

export function statusBadge(status: RolloutStatus): Html {
  return html`<span class="state s-${status}" data-status="${status}">${status}</span>`;
}
