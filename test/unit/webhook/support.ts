import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DeliveryRecord, DeliveryStore, Queue, SendOptions } from '../../../lib/ports.js';

type Payload = Record<string, unknown>;
interface Definition {
  readonly name: string;
  readonly examples: Payload[];
}

const require = createRequire(import.meta.url);
const githubDotCom = require('@octokit/webhooks-examples') as Definition[];
const ghes = require('@octokit/webhooks-examples/ghes-35/index.json') as Definition[];

/** A fresh copy of the first real example of `event` (from @octokit/webhooks-examples) that fits. */
export function githubExample(
  event: string,
  fits: (payload: Payload) => boolean = () => true,
  source: 'github.com' | 'ghes' = 'github.com',
): Payload {
  const definitions = source === 'ghes' ? ghes : githubDotCom;
  const example = definitions.find((d) => d.name === event)?.examples.find(fits);
  if (example === undefined) throw new Error(`no ${source} example of ${event} fits`);
  return structuredClone(example);
}

const isTag = (p: Payload) => String(p.ref).startsWith('refs/tags/');
export const githubPayloads = {
  tagCreated: () => githubExample('push', (p) => isTag(p) && p.created === true),
  tagDeleted: () => githubExample('push', (p) => isTag(p) && p.deleted === true),
  branchCreated: () => githubExample('push', (p) => !isTag(p) && p.created === true),
  gheTagCreated: () => githubExample('push', (p) => isTag(p), 'ghes'),
  ping: () => githubExample('ping'),
  /** The real branch example turned into an ordinary push on top of an existing commit. */
  branchPush: (commits?: readonly Partial<CommitFiles>[]): Payload => {
    const payload = githubExample('push', (p) => !isTag(p) && p.created === true);
    const template = payload.commits as Payload[];
    payload.created = false;
    payload.before = 'b'.repeat(40);
    if (commits !== undefined) {
      payload.commits = commits.map((files) => ({
        ...structuredClone(template[0]),
        added: files.added ?? [],
        modified: files.modified ?? [],
        removed: files.removed ?? [],
      }));
    }
    return payload;
  },
};

export interface CommitFiles {
  readonly added: readonly string[];
  readonly modified: readonly string[];
  readonly removed: readonly string[];
}

export function gitlabFixture(name: string): Payload {
  return JSON.parse(readFileSync(new URL(`../../fixtures/gitlab/${name}.json`, import.meta.url), 'utf8'));
}

/** An independent HMAC oracle (node:crypto, not octokit) for GitHub's X-Hub-Signature-256. */
export function signGitHub(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export const meta = { deliveryId: 'd-1', receivedAt: '2025-03-04T12:00:00.000Z' } as const;

/** DeliveryStore with the conditional-write semantics of the real one, and switchable failures. */
export function memoryDeliveryStore() {
  const records = new Map<string, DeliveryRecord>();
  const forgotten: string[] = [];
  const store = {
    records,
    forgotten,
    failRecord: false,
    async recordOnce(record: DeliveryRecord): Promise<'recorded' | 'duplicate'> {
      if (store.failRecord) throw new Error('dynamodb unavailable');
      const key = `${record.provider}#${record.deliveryId}`;
      if (records.has(key)) return 'duplicate';
      records.set(key, record);
      return 'recorded';
    },
    async forget(provider: string, deliveryId: string): Promise<void> {
      forgotten.push(`${provider}#${deliveryId}`);
      records.delete(`${provider}#${deliveryId}`);
    },
  };
  return store satisfies DeliveryStore;
}

export function memoryQueue<M>() {
  const sent: { message: M; options: SendOptions | undefined }[] = [];
  const queue = {
    sent,
    fail: false,
    async send(message: M, options?: SendOptions): Promise<void> {
      if (queue.fail) throw new Error('sqs unavailable');
      sent.push({ message, options });
    },
    async sendBatch(entries: readonly { message: M; delaySeconds?: number }[]): Promise<void> {
      for (const entry of entries) await queue.send(entry.message);
    },
  };
  return queue satisfies Queue<M>;
}
