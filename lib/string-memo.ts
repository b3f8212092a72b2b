/**
 * A pure function of a short string, remembered: a fleet names a handful of repository URLs, read once per
 * app and file in a work item, and each reading parses the URL again. At most `max` answers are kept (all
 * dropped when full, so the memory stays bounded whatever the input); inputs longer than `maxLength` are
 * computed and never kept (a caller's payload may carry one).
 */
export function memoizeString<T>(
  fn: (input: string) => T,
  { max = 1_024, maxLength = 512 }: { readonly max?: number; readonly maxLength?: number } = {},
): (input: string) => T {
  const known = new Map<string, T>();
  return (input) => {
    const found = known.get(input);
    if (found !== undefined || known.has(input)) return found as T;
    const value = fn(input);
    if (input.length > maxLength) return value;
    if (known.size >= max) known.clear();
    known.set(input, value);
    return value;
  };
}
