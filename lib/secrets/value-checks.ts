import type { DecodingStrategy } from './external-secret.js';

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
