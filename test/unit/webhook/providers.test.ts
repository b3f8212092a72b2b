import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../lib/errors.js';
import { parseDelivery, WebhookUnauthorizedError } from '../../../lib/webhook/parse-delivery.js';
import type { WebhookProvider } from '../../../lib/webhook/provider-model.js';
import { WEBHOOK_PROVIDERS } from '../../../lib/webhook/providers.js';
import { GIT_PROVIDERS } from '../../../lib/webhook/push-event.js';

const SECRET = 'table-secret-5d41402abc4b2a76';
const secrets = Object.fromEntries(GIT_PROVIDERS.map((p) => [p, [SECRET]])) as never;
const rows = Object.values(WEBHOOK_PROVIDERS);

/** The headers a row's scheme asks for, computed here from the row (an oracle apart from the verifiers). */
function signed(row: WebhookProvider, body: Buffer, secret = SECRET): Record<string, string> {
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  const scheme = row.signature;
  switch (scheme.kind) {
    case 'github-sha256':
      return { 'x-hub-signature-256': `sha256=${hex}` };
    case 'token':
      return { [scheme.header]: secret };
    case 'hmac-sha256':
      return { [scheme.names[0] ?? '']: `${scheme.prefix}${hex}` };
    case 'basic-auth':
      return { authorization: `Basic ${Buffer.from(`hook:${secret}`).toString('base64')}` };
  }
}

function delivery(row: WebhookProvider, event: string, extra: Record<string, string> = {}, secret = SECRET) {
  const source = row.eventName;
  const payload = 'bodyField' in source ? { [source.bodyField]: event, id: 'n-1' } : { id: 'n-1' };
  const body = Buffer.from(JSON.stringify(payload));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...signed(row, body, secret),
  };
  if ('header' in source) headers[source.header[0] ?? ''] = event;
  if ('header' in row.deliveryId) headers[row.deliveryId.header[0] ?? ''] = 'delivery-0001';
  return {
    provider: row.name,
    headers: { ...headers, ...extra },
    body,
    secrets,
    receivedAt: '2026-01-01T00:00:00Z',
  };
}

describe('the engine, through every row of the provider table', () => {
  it('has one row per route, each under its own name, with no event both a push and a ping', () => {
    expect(Object.keys(WEBHOOK_PROVIDERS).sort()).toEqual([...GIT_PROVIDERS].sort());
    for (const [key, row] of Object.entries(WEBHOOK_PROVIDERS)) {
      expect(row.name).toBe(key);
      expect(row.events.push.length).toBeGreaterThan(0);
      expect(row.events.push.filter((e) => row.events.ping?.includes(e))).toEqual([]);
    }
  });

  it.each(rows.map((row) => [row.name, row] as const))(
    '%s: a delivery signed with another secret is a 401',
    async (_, row) => {
      const wrong = delivery(row, row.events.push[0] ?? '', {}, 'not-the-secret');
      await expect(parseDelivery(wrong)).rejects.toBeInstanceOf(WebhookUnauthorizedError);
    },
  );

  const named = rows.filter((row) => !('fixed' in row.eventName));
  it.each(named.map((row) => [row.name, row] as const))(
    '%s: an event it does not handle is ignored, not refused',
    async (_, row) => {
      const parsed = await parseDelivery(delivery(row, 'some:other-event'));
      expect(parsed).toMatchObject({ kind: 'ignored', eventName: 'some:other-event' });
      expect(parsed.kind === 'ignored' && parsed.reason).toBe('event "some:other-event" is not handled');
    },
  );

  const pinged = rows.filter((row) => (row.events.ping ?? []).length > 0);
  it.each(pinged.map((row) => [row.name, row] as const))(
    '%s: its ping event is answered as a ping',
    async (_, row) => {
      const parsed = await parseDelivery(delivery(row, row.events.ping?.[0] ?? ''));
      expect(parsed).toMatchObject({ kind: 'ping', deliveryId: 'delivery-0001' });
    },
  );

  const headed = rows.filter((row) => 'header' in row.eventName);
  it.each(headed.map((row) => [row.name, row] as const))(
    '%s: without its event header, a 400 naming it',
    async (_, row) => {
      const name = 'header' in row.eventName ? (row.eventName.header[0] ?? '') : '';
      await expectMissingHeader(row, name);
    },
  );

  const strictPushIds = rows.filter((row) => 'header' in row.deliveryId && !row.deliveryId.orBodyHash);
  it.each(strictPushIds.map((row) => [row.name, row] as const))(
    '%s: a push without its delivery id is a 400 naming the header',
    async (_, row) => {
      const name = 'header' in row.deliveryId ? (row.deliveryId.header[0] ?? '') : '';
      await expectMissingHeader(row, name);
    },
  );
});

/** A push delivery for `row` without header `name` is refused 400 `header … is required`. */
async function expectMissingHeader(row: WebhookProvider, name: string): Promise<void> {
  const input = delivery(row, row.events.push[0] ?? '');
  const headers = Object.fromEntries(Object.entries(input.headers).filter(([key]) => key !== name));
  const error = await parseDelivery({ ...input, headers }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BadRequestError);
  expect((error as BadRequestError).message).toBe(`header ${name} is required`);
}
