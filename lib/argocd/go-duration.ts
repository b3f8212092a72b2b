/** Go's `time.ParseDuration`, which Argo CD applies to a sync window's `duration`: `1h`, `30m`, `1h30m`, `1.5h`. */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export type GoDuration = { readonly ms: number } | { readonly error: string };

/** Milliseconds, or Go's reason for refusing it (e.g. `unknown unit "d" in duration "1d"`). */
export function parseGoDuration(text: string): GoDuration {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return { ms: 0 };
  if (rest === '') return { error: `invalid duration ${quoted}` };
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)?.[0] ?? '';
    if (number === '' || number === '.') return { error: `invalid duration ${quoted}` };
    rest = rest.slice(number.length);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') return { error: `missing unit in duration ${quoted}` };
    const factor = UNIT_MS[unit];
    if (factor === undefined) return { error: `unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    rest = rest.slice(unit.length);
    total += Number(number.endsWith('.') ? number.slice(0, -1) : number) * factor;
  }
  return { ms: sign * total };
}
