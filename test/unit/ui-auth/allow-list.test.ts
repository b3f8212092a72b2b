import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import { isAllowed, parseAllowList } from '../../../lib/ui-auth/allow-list.js';

const rules = parseAllowList('Alice@Example.com, @corp.example, group:platform-admins');

describe('OIDC_ALLOWED', () => {
  it.each([
    ['an exact email, in any case', { email: 'alice@example.COM', email_verified: true }, true],
    ['another address at the same domain as an exact email', { email: 'bob@example.com' }, false],
    ['any address at an @domain', { email: 'carol@corp.example' }, true],
    ['a domain that only ends like an @domain', { email: 'eve@evilcorp.example' }, false],
    ['a subdomain of an @domain', { email: 'dan@eu.corp.example' }, false],
    ['a member of a listed group', { email: 'x@else.io', groups: ['staff', 'platform-admins'] }, true],
    ['a groups claim sent as one name', { groups: 'platform-admins' }, true],
    ['a member of other groups only', { email: 'x@else.io', groups: ['platform'] }, false],
    [
      'an email the provider says is unverified',
      { email: 'alice@example.com', email_verified: false },
      false,
    ],
    [
      'an email marked unverified as a string',
      { email: 'carol@corp.example', email_verified: 'false' },
      false,
    ],
    ['no email and no groups', {}, false],
    ['an email that is not a string', { email: ['alice@example.com'] }, false],
  ])('%s → %s', (_name, claims, allowed) => {
    expect(isAllowed(rules, claims)).toBe(allowed);
  });

  it('reads emails, @domains and group:<name> entries', () => {
    expect(rules).toEqual([
      { kind: 'email', email: 'alice@example.com' },
      { kind: 'domain', domain: '@corp.example' },
      { kind: 'group', group: 'platform-admins' },
    ]);
  });

  it.each([
    ['an empty entry', 'alice@example.com,,@corp.example', 2],
    ['a bare domain without @', 'corp.example', 1],
    ['an empty group name', 'group:', 1],
    ['a wildcard', 'alice@example.com, *', 2],
  ])('refuses %s, naming its position and not its value', (_name, raw, position) => {
    let error: unknown;
    try {
      parseAllowList(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('OIDC_ALLOWED');
    expect((error as Error).message).toContain(`entry ${position} `);
  });
});
