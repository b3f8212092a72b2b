import type { OperatorAction, WaveState } from '../rollouts/rollout-model.js';
import { code, folded, safeText } from './mrkdwn.js';
import { appTotal, waveCounts } from './tally.js';
import type { RolloutSnapshot } from './types.js';

/** Waves given a line each; the rest are counted. */
export const MAX_WAVE_LINES = 10;
/** Reasons held apps are counted under, and ungated instances named. */
const MAX_HELD_REASONS = 3;
const MAX_UNGATED = 3;

export const WAVE_EMOJI: Readonly<Record<WaveState, string>> = {
  waiting: ':pause_button:',
  open: ':arrow_forward:',
  soaking: ':hourglass:',
  done: ':white_check_mark:',
  halted: ':octagonal_sign:',
  superseded: ':fast_forward:',
  aborted: ':heavy_multiplication_x:',
};

/**
 * What release control says about the rollout, one line each: why it halted, who paused or aborted it,
 * each wave with its apps synced, and the held apps by what holds them. Bounded whatever the fleet size.
 */
export function releaseLines(snapshot: RolloutSnapshot): string[] {
  const lines: string[] = [];
  const control = controlLine(snapshot);
  if (control !== undefined) lines.push(control);
  lines.push(...waveLines(snapshot));
  lines.push(...heldLines(snapshot));
  return lines;
}

function controlLine(snapshot: RolloutSnapshot): string | undefined {
  if (snapshot.status === 'halted') {
    const wave = snapshot.waves?.find((w) => w.state === 'halted');
    const why = wave?.reason ?? lastAction(snapshot, 'halt')?.detail;
    const where = wave === undefined ? '' : ` at wave ${code(safeText(wave.name, 63))}`;
    return `:octagonal_sign: *halted*${where}${why === undefined ? '' : `: ${safeText(folded(why), 300)}`}`;
  }
  if (snapshot.status === 'paused' || snapshot.status === 'aborted') {
    const action = lastAction(snapshot, snapshot.status === 'paused' ? 'pause' : 'abort');
    const emoji = snapshot.status === 'paused' ? ':double_vertical_bar:' : ':heavy_multiplication_x:';
    const who = action === undefined ? '' : ` by ${safeText(principalName(action.by), 100)}`;
    const detail = action?.detail === undefined ? '' : `: ${safeText(folded(action.detail), 200)}`;
    return `${emoji} *${snapshot.status}*${who}${detail}`;
  }
  return undefined;
}

/** `✅ *canary* done · 12/12 synced`, `🛑 *prod-eu* halted · 3/40 synced — 2 failed (maxUnhealthy 0)`. */
export function waveLines(snapshot: RolloutSnapshot): string[] {
  const waves = snapshot.waves ?? [];
  if (waves.length === 0) return [];
  const counts = new Map(
    [...waveCounts(snapshot)].map(([wave, c]) => [wave, { total: appTotal(c), synced: c.synced ?? 0 }]),
  );
  const lines = waves.slice(0, MAX_WAVE_LINES).map((wave) => {
    const c = counts.get(wave.name) ?? { total: 0, synced: 0 };
    const soak =
      wave.state === 'soaking' && wave.soakUntil !== undefined ? ` · soak ends ${clock(wave.soakUntil)}` : '';
    const reason =
      wave.reason === undefined || (wave.state !== 'halted' && wave.state !== 'superseded')
        ? ''
        : ` — ${safeText(folded(wave.reason), 200)}`;
    return `${WAVE_EMOJI[wave.state]} *${safeText(wave.name, 63)}* ${wave.state} · ${c.synced}/${c.total} synced${soak}${reason}`;
  });
  if (waves.length > MAX_WAVE_LINES) lines.push(`and ${waves.length - MAX_WAVE_LINES} more waves`);
  return lines;
}

/**
 * `⏸ 38 held: wave prod-eu waits for canary (36) · frozen: release freeze (2)`. Counted from the summary's
 * views (a tally), held apps are not read one by one: `⏸ 38 held` (the wave and control lines say why).
 */
function heldLines(snapshot: RolloutSnapshot): string[] {
  if (snapshot.tally !== undefined) {
    const n = snapshot.tally.counts.held ?? 0;
    return n === 0 ? [] : [`:pause_button: ${n} held`];
  }
  const reasons = new Map<string, number>();
  let held = 0;
  for (const app of snapshot.apps) {
    if (app.state !== 'held') continue;
    held += 1;
    const why = folded(app.message ?? '') || 'not refreshed yet';
    reasons.set(why, (reasons.get(why) ?? 0) + 1);
  }
  if (held === 0) return [];
  const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, MAX_HELD_REASONS);
  const parts = top.map(([why, n]) => `${safeText(why, 150)} (${n})`);
  const more = reasons.size > MAX_HELD_REASONS ? ` · ${reasons.size - MAX_HELD_REASONS} more reasons` : '';
  return [`:pause_button: ${held} held: ${parts.join(' · ')}${more}`];
}

/** Context lines: the Argo CD instances that are not gated, and the last operator action. */
export function releaseContext(snapshot: RolloutSnapshot): string[] {
  const lines: string[] = [];
  const ungated = snapshot.ungated ?? [];
  if (ungated.length > 0) {
    const named = ungated
      .slice(0, MAX_UNGATED)
      .map(
        (u) => `Argo CD on ${code(safeText(u.cluster, 63))} (${safeText(u.namespace, 63)}) polls Git itself`,
      );
    const more = ungated.length > MAX_UNGATED ? ` and ${ungated.length - MAX_UNGATED} more` : '';
    lines.push(`:warning: not gated: ${named.join('; ')}${more}`);
  }
  const last = snapshot.actions?.[snapshot.actions.length - 1];
  if (last !== undefined) {
    const detail = last.detail === undefined ? '' : ` — ${safeText(folded(last.detail), 200)}`;
    lines.push(
      `:bust_in_silhouette: last action: ${last.action} by ${safeText(principalName(last.by), 100)} at ${clock(last.at)}${detail}`,
    );
  }
  return lines;
}

function lastAction(snapshot: RolloutSnapshot, name: OperatorAction['action']): OperatorAction | undefined {
  return [...(snapshot.actions ?? [])].reverse().find((a) => a.action === name);
}

/** An IAM principal ARN by its last part (`assumed-role/ops/alice` → `ops/alice`). */
export function principalName(by: string): string {
  if (!by.startsWith('arn:')) return by;
  return by.slice(by.lastIndexOf(':') + 1).replace(/^(assumed-role|user|role)\//, '') || by;
}

function clock(time: string): string {
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? `${new Date(ms).toISOString().slice(11, 16)} UTC` : safeText(time, 40);
}
