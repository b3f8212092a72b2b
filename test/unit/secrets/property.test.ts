import { describe, expect, it } from 'vitest';
import { gjsonGet, type JsonValue, resultText } from '../../../lib/secrets/gjson-path.js';
import { lookupProperty } from '../../../lib/secrets/property.js';
import { SecretPayload } from '../../../lib/secrets/secrets-manager-api.js';

const found = (value: unknown) => ({ kind: 'found', value });
const missing = { kind: 'missing' };

describe('lookupProperty follows ESO escapeDotsIfRequired then gjson', () => {
  it.each([
    ['a top-level key is found', '{"password":"p"}', 'password', found('p')],
    ['a nested path a.b is found', '{"a":{"b":"x"}}', 'a.b', found('x')],
    ['a literal dotted key is found', '{"a.b":"literal"}', 'a.b', found('literal')],
    [
      'a literal dotted key wins over the nested path',
      '{"a.b":"literal","a":{"b":"nested"}}',
      'a.b',
      found('literal'),
    ],
    ['an escaped dot reaches a dotted key under a parent', '{"a":{"b.c":"x"}}', 'a.b\\.c', found('x')],
    ['a dotted key under a parent is not found without the escape', '{"a":{"b.c":"x"}}', 'a.b.c', missing],
    [
      'an array index is followed',
      '{"friends":[{"first":"Dale"},{"first":"Roger"}]}',
      'friends.1.first',
      found('Roger'),
    ],
    ['# gives an array length', '{"friends":[1,2,3]}', 'friends.#', found(3)],
    ['#.key collects from every element', '{"f":[{"a":1},{"b":2},{"a":3}]}', 'f.#.a', found([1, 3])],
    ['* matches any key, first in document order', '{"xa":1,"xb":2}', 'x*', found(1)],
    ['? matches one character', '{"ab":1,"abc":2}', 'a?c', found(2)],
    [
      'many wildcards against a long near-miss key are missing (RE2, no backtracking)',
      `{"${'a'.repeat(80)}":1}`,
      `${'*a'.repeat(16)}b`,
      missing,
    ],
    ['regexp metacharacters in a wildcard key are literal', '{"a.(b)":1,"axxb":2}', 'a.(*', found(1)],
    [
      'a wildcard tries later keys when a deeper step misses',
      '{"a1":{"z":0},"a2":{"y":"hit"}}',
      'a*.y',
      found('hit'),
    ],
    ['JSON null exists', '{"token":null}', 'token', found(null)],
    ['a missing key is missing', '{"a":1}', 'b', missing],
    ['an index past the end is missing', '{"a":[1]}', 'a.5', missing],
    ['a key on a scalar is missing', '{"a":"text"}', 'a.b', missing],
    ['a key starting with / works', '{"/shmoo":"x"}', '/shmoo', found('x')],
    ['a payload that is a JSON string has no properties', '"just text"', 'a', missing],
    ['a non-JSON payload is not-json', 'user=admin', 'user', { kind: 'not-json' }],
    [
      'queries are unsupported, not guessed',
      '{"f":[{"n":"a"}]}',
      'f.#(n=="a").n',
      { kind: 'unsupported', reason: 'queries (#(…))' },
    ],
    ['modifiers are unsupported', '{"a":[1]}', '@reverse', { kind: 'unsupported', reason: 'modifiers (@…)' }],
    [
      'modifiers after a dot are unsupported',
      '{"a":[1]}',
      'a.@reverse',
      { kind: 'unsupported', reason: 'modifiers or multipaths after a dot' },
    ],
    ['pipes are unsupported', '{"a":{"b":1}}', 'a|b', { kind: 'unsupported', reason: 'pipes (|)' }],
    [
      'multipaths are unsupported',
      '{"a":1}',
      '{a}',
      { kind: 'unsupported', reason: 'multipaths ([…] / {…})' },
    ],
  ])('%s', (_name, payload, property, expected) => {
    expect(lookupProperty(payload, property)).toEqual(expected);
  });
});

describe('secret payload precedence', () => {
  it('reads a property from the binary when both binary and string are set', () => {
    const payload = new SecretPayload({
      text: '{"k":"from-string"}',
      binary: Buffer.from('{"k":"from-binary"}'),
    });
    expect(lookupProperty(payload.forProperty(), 'k')).toEqual(found('from-binary'));
  });

  it('returns the string, not the binary, when no property is asked for', () => {
    const payload = new SecretPayload({ text: 'from-string', binary: Buffer.from('from-binary') });
    expect(payload.plain()).toBe('from-string');
  });

  it('shows no value through JSON, String or inspect', async () => {
    const { inspect } = await import('node:util');
    const payload = new SecretPayload({ text: 'canary-value' });
    expect(`${JSON.stringify({ payload })} ${String(payload)} ${inspect(payload)}`).not.toContain(
      'canary-value',
    );
  });
});

describe('resultText matches gjson Result.String()', () => {
  it.each<[string, JsonValue, string]>([
    ['null is empty', null, ''],
    ['a string is unquoted', 'x', 'x'],
    ['a number keeps its digits', 42, '42'],
    ['an object is JSON text', { a: 1 }, '{"a":1}'],
    ['true is true', true, 'true'],
  ])('%s', (_name, value, text) => {
    expect(resultText(value)).toBe(text);
  });

  it('gjsonGet on a scalar root finds nothing', () => {
    expect(gjsonGet(5, 'a')).toEqual(missing);
  });
});
