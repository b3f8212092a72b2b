/** A header's value by case-insensitive name; empty or blank values count as absent. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const direct = headers[wanted];
  const value =
    direct ?? Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1] ?? undefined;
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
