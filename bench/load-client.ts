import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

// The load generator of `bench/load.ts`, in a process of its own: `--count` signed GitHub pushes to
// `--url`, every tenth a redelivery of an earlier one (same delivery id and body, as GitHub's "Redeliver"),
// `--concurrency` at a time over keep-alive. Prints one JSON line: statuses and answer times.
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    secret: { type: 'string' },
    count: { type: 'string' },
    concurrency: { type: 'string' },
  },
});
const count = Number(values.count ?? 1000);
const secret = values.secret ?? '';

function delivery(n: number): { id: string; body: string } {
  const sha = n.toString(16).padStart(40, 'c');
  const body = JSON.stringify({
    ref: 'refs/heads/main',
    before: 'b'.repeat(40),
    after: sha,
    created: false,
    deleted: false,
    forced: false,
    commits: [
      { id: sha, message: `load ${n}`, added: [], removed: [], modified: [`apps/svc-${n % 100}/x.yaml`] },
    ],
    head_commit: { id: sha, message: `load ${n}`, author: { name: 'Load' } },
    repository: {
      full_name: 'org/load',
      html_url: 'https://github.com/org/load',
      clone_url: 'https://github.com/org/load.git',
      default_branch: 'main',
    },
    pusher: { name: 'load' },
  });
  return { id: randomUUID(), body };
}

const distinct: { id: string; body: string }[] = [];
const plan: { id: string; body: string }[] = [];
for (let i = 0; i < count; i++) {
  if (i % 10 === 9 && distinct.length > 0)
    plan.push(distinct[(i * 7) % distinct.length] as { id: string; body: string });
  else {
    const d = delivery(i);
    distinct.push(d);
    plan.push(d);
  }
}
const statuses: Record<string, number> = {};
const samples: number[] = [];
let next = 0;
async function worker() {
  while (next < plan.length) {
    const d = plan[next++] as { id: string; body: string };
    const start = performance.now();
    const response = await fetch(values.url ?? '', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': d.id,
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(d.body).digest('hex')}`,
      },
      body: d.body,
    });
    await response.arrayBuffer();
    samples.push(performance.now() - start);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
}
await Promise.all(Array.from({ length: Number(values.concurrency ?? 10) }, worker));
process.stdout.write(`${JSON.stringify({ statuses, samples, distinct: distinct.length })}\n`);
