/** Times as people read them on the pages: `3 min ago`, `2 min 14 s`. The ISO time goes in a `title`. */

function parse(time: string | undefined): number | undefined {
  const ms = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isFinite(ms) ? ms : undefined;
}

/** `45 s`, `3 min 5 s`, `2 h 10 min`, `3 d 4 h`. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** `just now`, `5 min ago`, `in 3 min` (a soak's end); empty for a missing or unreadable time. */
export function relativeTime(time: string | undefined, now: Date): string {
  const at = parse(time);
  if (at === undefined) return '';
  const delta = now.getTime() - at;
  if (Math.abs(delta) < 5000) return 'just now';
  return delta > 0 ? `${durationText(delta)} ago` : `in ${durationText(-delta)}`;
}

/** From `start` to `end` (or to `now` while it runs); empty when either time is unreadable. */
export function spanText(start: string | undefined, end: string | undefined, now: Date): string {
  const from = parse(start);
  const to = end === undefined ? now.getTime() : parse(end);
  if (from === undefined || to === undefined || to < from) return '';
  return durationText(to - from);
}

/** An IAM principal ARN reads as its last part (`assumed-role/ops/alice` → `ops/alice`); others as they are. */
export function principalText(by: string): string {
  if (!by.startsWith('arn:')) return by;
  const tail = by.slice(by.lastIndexOf(':') + 1);
  return tail.replace(/^(assumed-role|user|role)\//, '') || by;
}
