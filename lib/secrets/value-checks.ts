import type { DecodingStrategy, RemoteRef } from './external-secret.js';
import { type JsonValue, resultText } from './gjson-path.js';
import { isJsonObject, parseJson } from './property.js';
import type { SecretCheck } from './secret-check.js';

// Go's base64 StdEncoding/URLEncoding: padded, and the decoder skips `\r` and `\n`.
const STD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL = /^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}==|[A-Za-z0-9_-]{3}=)?$/;

/** Why ESO's `decodingStrategy` would fail on this value (`Auto` and `None` never fail). */
export function decodingProblem(strategy: DecodingStrategy, value: string): string | undefined {
  const text = value.replace(/[\r\n]/g, '');
  if (strategy === 'Base64' && !STD.test(text)) return 'value is not valid base64 (decodingStrategy: Base64)';
  if (strategy === 'Base64URL' && !URL.test(text))
    return 'value is not valid base64url (decodingStrategy: Base64URL)';
  return undefined;
}

/** ESO v1 `nullBytePolicy: Fail`. */
export function nullByteProblem(policy: 'Ignore' | 'Fail', value: string): string | undefined {
  return policy === 'Fail' && value.includes('\u0000')
    ? 'value contains null bytes (nullBytePolicy: Fail)'
    : undefined;
}

/** The decoded text for the null-byte check, when the strategy decodes. */
export function decodedText(strategy: DecodingStrategy, value: string): string {
  const text = value.replace(/[\r\n]/g, '');
  const std = STD.test(text);
  const url = URL.test(text);
  if (strategy === 'Base64' || (strategy === 'Auto' && std))
    return Buffer.from(text, 'base64').toString('latin1');
  if (strategy === 'Base64URL' || (strategy === 'Auto' && url))
    return Buffer.from(text, 'base64url').toString('latin1');
  return value;
}

type Base = Omit<SecretCheck, 'outcome'>;

/** `spec.data[]`: ESO decodes the value, checks null bytes, and writes it (empty for JSON null). */
export function checkDataValue(base: Base, ref: RemoteRef, value: JsonValue): SecretCheck {
  const text = resultText(value);
  const problem =
    decodingProblem(ref.decodingStrategy, text) ??
    nullByteProblem(ref.nullBytePolicy, decodedText(ref.decodingStrategy, text));
  if (problem) return { ...base, outcome: 'error', message: problem };
  if (text === '') {
    const what = value === null ? 'JSON null' : 'empty';
    return {
      ...base,
      outcome: 'ok',
      esoGap: 'empty-value',
      message: `value is ${what}: ESO writes an empty key`,
    };
  }
  return { ...base, outcome: 'ok' };
}

/** `dataFrom[].extract`: the value must be a JSON object; each of its values is decoded and checked. */
export function checkExtractValue(base: Base, ref: RemoteRef, value: JsonValue): SecretCheck {
  // gjson hands ESO text; a string holding a JSON object is as good as an object.
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (parsed === null) {
    return {
      ...base,
      outcome: 'ok',
      esoGap: 'empty-value',
      message: 'value is JSON null: extract yields no keys',
    };
  }
  if (!isJsonObject(parsed)) {
    return {
      ...base,
      outcome: 'not-json',
      message: `unable to unmarshal secret ${ref.key}: not a JSON object`,
    };
  }
  const entries = Object.entries(parsed);
  for (const item of Object.values(parsed)) {
    const text = typeof item === 'string' ? item : JSON.stringify(item);
    const problem =
      decodingProblem(ref.decodingStrategy, text) ??
      nullByteProblem(ref.nullBytePolicy, decodedText(ref.decodingStrategy, text));
    if (problem)
      return { ...base, outcome: 'error', message: `a value of the extracted object fails: ${problem}` };
  }
  if (entries.length === 0)
    return { ...base, outcome: 'ok', esoGap: 'empty-value', message: 'JSON object has no keys' };
  return { ...base, outcome: 'ok', message: `${entries.length} keys` };
}
