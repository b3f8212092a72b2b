/** A plain-text table as the demo prints it: two-space indent, padded columns, the last one free. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')}`.trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** Keeps a table cell on one line and within `max` characters. */
export function cell(value: unknown, max = 120): string {
  if (value === undefined || value === null) return '';
  const text = String(value)
    .replace(/\s*[\r\n\t]+\s*/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
