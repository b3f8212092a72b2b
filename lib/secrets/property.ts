import { gjsonGet, type JsonValue, type PathResult } from './gjson-path.js';

export type PropertyLookup = PathResult | { readonly kind: 'not-json' };

/**
 * ESO's `remoteRef.property` on a secret payload (`GetSecret` + `escapeDotsIfRequired`): a property with
 * a `.` is first tried as one literal top-level key (every `.` escaped), then as a gjson path. ESO
 * reports a payload that is not JSON as "does not exist"; the preflight says `not-json` instead.
 */
export function lookupProperty(payload: string, property: string): PropertyLookup {
  const root = parseJson(payload);
  if (root === undefined) return { kind: 'not-json' };
  if (property.includes('.')) {
    const literal = gjsonGet(root, property.replaceAll('.', '\\.'));
    if (literal.kind !== 'missing') return literal;
  }
  return gjsonGet(root, property);
}

/** `undefined` when the text is not JSON (JSON `null` parses to `null`). */
export function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

export function isJsonObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
