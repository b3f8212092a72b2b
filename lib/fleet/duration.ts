/** Fleet-file durations: `30s`, `5m`, `1h`, `1h30m`, `0` (hours, minutes, seconds, each at most once, in that order). */
const DURATION = /^(?:(\d{1,3})h)?(?:(\d{1,4})m)?(?:(\d{1,5})s)?$/;

/** Milliseconds, or undefined when `text` is not such a duration. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const match = DURATION.exec(text);
  if (match === null || text === '') return undefined;
  const [, hours, minutes, seconds] = match;
  return ((Number(hours ?? 0) * 60 + Number(minutes ?? 0)) * 60 + Number(seconds ?? 0)) * 1000;
}

/** `1h30m`, `5m`, `45s`, `0s`: the shortest form `parseDuration` reads back (whole seconds). */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const text = `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
  return text === '' ? '0s' : text;
}
