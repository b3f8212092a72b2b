/** Wall clocks of IANA time zones through Intl (no tz library): the offset at an instant, and back. */

const formatters = new Map<string, Intl.DateTimeFormat>();
const FORMATTER_LIMIT = 512;

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= FORMATTER_LIMIT) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Whether Go's `time.LoadLocation` would load `zone` as Argo CD runs it: an IANA name, spelt with its
 * case (the zoneinfo files are case-sensitive), not an offset such as `+01:00` that Intl also takes.
 */
export function isLoadableTimeZone(zone: string): boolean {
  if (zone === 'UTC' || zone === 'Local') return true;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  let resolved: string;
  try {
    resolved = formatter(zone).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
}

/** How far the zone's wall clock is ahead of UTC at `instantMs` (Europe/Berlin in July: 7_200_000). */
export function zoneOffsetMs(zone: string, instantMs: number): number {
  if (zone === 'UTC' || zone === 'Local') return 0;
  // Offsets change on whole minutes: one Intl call per zone and minute.
  const key = `${zone} ${Math.floor(instantMs / 60_000)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = readOffset(zone, instantMs);
    if (offsets.size >= OFFSET_LIMIT) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

const OFFSET_LIMIT = 4096;
const offsets = new Map<string, number>();

function readOffset(zone: string, instantMs: number): number {
  const parts = formatter(zone).formatToParts(new Date(instantMs));
  const part = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return wall - Math.floor(instantMs / 1000) * 1000;
}

/** The instant at which the zone's wall clock shows `wallMs` (read as UTC); in a DST gap, one nearby. */
export function wallToInstant(zone: string, wallMs: number): number {
  const guess = wallMs - zoneOffsetMs(zone, wallMs);
  return wallMs - zoneOffsetMs(zone, guess);
}

/** The first instant in `(fromMs, toMs]` at which the zone's offset differs from that at `fromMs`, if any. */
export function offsetChangeAfter(zone: string, fromMs: number, toMs: number): number | undefined {
  const before = zoneOffsetMs(zone, fromMs);
  if (toMs <= fromMs || zoneOffsetMs(zone, toMs) === before) return undefined;
  let lo = fromMs;
  let hi = toMs;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (zoneOffsetMs(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  const second = Math.floor(hi / 1000) * 1000;
  return second > lo && zoneOffsetMs(zone, second) !== before ? second : hi;
}
