import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localMetrics } from '../../../infra/local/local-metrics.js';
import { type LocalStack, startLocalStack } from '../../../infra/local/stack.js';
import { createMemoryLogger, type LogLine } from '../../../lib/logger.js';

const CONTROLLER = { tickMs: 20, syncMs: 60, healthMs: 60, retryMs: 60 };
let stack: LocalStack;
const printed: string[] = [];
const logLines: LogLine[] = [];

/** What the process writes on stdout while `run` runs (Powertools writes its EMF documents there). */
async function stdoutDuring(run: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await run();
  } finally {
    process.stdout.write = original;
  }
  return chunks.join('');
}

beforeAll(async () => {
  // As `npm start` runs it: scheduled (an hour apart, so only the start-up pass runs here).
  stack = await startLocalStack({
    env: { PORT: '0', RECONCILE_INTERVAL_SECONDS: '3600' },
    controller: CONTROLLER,
    logger: createMemoryLogger(logLines),
    print: (line) => printed.push(line),
  });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

describe('the local stack at start-up', () => {
  it('runs a first reconcile pass as soon as it listens, not an interval later', async () => {
    expect(stack.firstPass).toBeDefined();
    await stack.firstPass;
    const answer = await fetch(`${stack.url}/findings?limit=1`);
    const body = (await answer.json()) as {
      lastReconcile: { startedAt: string; clustersRead: number } | null;
    };
    expect(body.lastReconcile).not.toBeNull();
    // Every cluster that runs Argo CD was read (the others hold no Applications).
    const argocd = stack.world?.fleetConfig.clusters.filter((c) => c.argocd !== undefined) ?? [];
    expect(argocd.length).toBeGreaterThan(0);
    expect(body.lastReconcile?.clustersRead).toBe(argocd.length);
  }, 60_000);

  it("posts that pass's findings digest without low and info findings (DIGEST_MIN_SEVERITY default medium)", async () => {
    await stack.firstPass;
    const digest = stack.slack?.messages().find((m) => m.text.toLowerCase().includes('finding'));
    const text = JSON.stringify(digest?.blocks ?? []);
    expect(text).toContain('New · Critical');
    expect(text).not.toContain('New · Low');
    expect(text).not.toContain('New · Info');
    // Every finding is still stored and served, the low ones too.
    const low = (await (await fetch(`${stack.url}/findings?severity=low&limit=1`)).json()) as {
      items: unknown[];
    };
    expect(low.items).toHaveLength(1);
  }, 60_000);

  it('prints no EMF metric lines unless LOCAL_METRICS=1', async () => {
    const output = await stdoutDuring(async () => {
      for (let i = 0; i < 3; i++) await (await fetch(`${stack.url}/healthz`)).text();
    });
    expect(output).not.toContain('"_aws"');
  });
});

describe('LOCAL_METRICS=1', () => {
  it('prints the EMF lines Lambda writes', async () => {
    const metered = await startLocalStack({
      env: { PORT: '0', LOCAL_METRICS: '1' },
      controller: CONTROLLER,
      logger: createMemoryLogger([]),
      schedule: false,
    });
    try {
      const output = await stdoutDuring(async () => (await fetch(`${metered.url}/healthz`)).text());
      const emf = output.split('\n').filter((line) => line.includes('"_aws"'));
      expect(emf.length).toBeGreaterThan(0);
      expect(JSON.parse(emf[0] ?? '{}')).toMatchObject({ service: 'gitops-sync', ApiRequests: 1 });
    } finally {
      await metered.close();
    }
  }, 60_000);

  it('refuses a value it does not understand, naming the setting', () => {
    expect(() => localMetrics({ LOCAL_METRICS: 'yes please' })).toThrow(/^LOCAL_METRICS: must be 1/);
    expect(localMetrics({ LOCAL_METRICS: '0' }).flush).toBeTypeOf('function');
  });
});

describe('the local Slack double', () => {
  const post = async (body: Record<string, unknown>) => {
    const api = stack.slack?.apiUrl ?? '';
    const answer = await fetch(`${api}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: 'Bearer xoxb-local', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await answer.json()) as { ok: boolean; ts: string };
  };

  it('serves what it received at a local URL, newest thread first with its replies, and prints one short line each', async () => {
    const seen = printed.length;
    const older = await post({ channel: '#deploys', text: 'first rollout R&D "quoted"' });
    const newer = await post({ channel: '#deploys', text: 'second rollout' });
    const reply = await post({ channel: '#deploys', thread_ts: older.ts, text: 'a reply:\nline two' });
    expect([older.ok, newer.ok, reply.ok]).toEqual([true, true, true]);

    const url = stack.slackViewUrl ?? '';
    expect(url).toBe(`${stack.url}/_local/slack`);
    const text = await (await fetch(`${url}.txt`)).text();
    // The reply is newer than the second message: its thread comes first, the reply under its root.
    const at = (needle: string) => text.indexOf(needle);
    expect(at('first rollout')).toBeGreaterThanOrEqual(0);
    expect(at('first rollout')).toBeLessThan(at('a reply:'));
    expect(at('a reply:')).toBeLessThan(at('line two'));
    expect(at('line two')).toBeLessThan(at('second rollout'));

    const page = await fetch(url);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).not.toContain('R&D "quoted"');
    expect(html).toContain('first rollout R&#38;D &#34;quoted&#34;');

    const lines = printed.slice(seen);
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain('\n');
      expect(line).toMatch(new RegExp(`^\\[slack\\] .*\\(${url.replace(/[.:/]/g, '\\$&')}\\)$`));
    }
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });
});
