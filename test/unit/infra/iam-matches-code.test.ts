import { describe, expect, it } from 'vitest';
import { awsActions, bundleOf, queuesSentTo } from '../../helpers/aws-calls.js';
import { iamRoles, readCfnYaml, resourceNames, roleStatements } from '../../helpers/cfn-yaml.js';

interface FunctionSpec {
  readonly handler: string;
  readonly role: string;
  readonly events?: readonly { sqs?: { arn: unknown } }[];
}

const service = readCfnYaml('serverless.yml') as { functions: Record<string, FunctionSpec> };
const roles = iamRoles();

// Every function writes its own logs; an SQS-triggered one lets Lambda's event source mapping poll for it.
const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const SQS_CONSUMER = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

async function derive(name: string, spec: FunctionSpec) {
  const { files, code } = await bundleOf(`${spec.handler.replace(/\.handler$/, '')}.ts`);
  const actions = new Set([...awsActions(code), ...LOGS]);
  const consumed = (spec.events ?? []).flatMap((e) => (e.sqs ? resourceNames(e.sqs.arn) : []));
  if (consumed.length > 0) for (const a of SQS_CONSUMER) actions.add(a);
  return { name, files, actions, consumed, sentTo: queuesSentTo(code) };
}

const derived = await Promise.all(Object.entries(service.functions).map(([n, s]) => derive(n, s)));

describe('each function role grants exactly the AWS calls its code makes', () => {
  it.each(derived.map((d) => [d.name, d] as const))('%s: no action missing and none unused', (name, d) => {
    const role = service.functions[name]?.role ?? '';
    const granted = new Set(roleStatements(roles, role).flatMap((s) => s.Action));
    const missing = [...d.actions].filter((a) => !granted.has(a)).sort();
    const unused = [...granted].filter((a) => !d.actions.has(a)).sort();
    expect({ role, missing, unused }).toEqual({ role, missing: [], unused: [] });
  });

  it.each(derived.map((d) => [d.name, d] as const))(
    '%s: may send to exactly the queues its composition builds',
    (name, d) => {
      const role = service.functions[name]?.role ?? '';
      const sendTargets = roleStatements(roles, role)
        .filter((s) => s.Action.includes('sqs:SendMessage'))
        .flatMap((s) => resourceNames(s.Resource));
      const expected = d.actions.has('sqs:SendMessage') ? [...d.sentTo].sort() : [];
      expect(sendTargets.sort()).toEqual(expected);
    },
  );

  it.each(derived.filter((d) => d.consumed.length > 0).map((d) => [d.name, d] as const))(
    '%s: may receive from the queue that triggers it, and only that one',
    (name, d) => {
      const role = service.functions[name]?.role ?? '';
      const receive = roleStatements(roles, role)
        .filter((s) => s.Action.includes('sqs:ReceiveMessage'))
        .flatMap((s) => resourceNames(s.Resource));
      expect(receive).toEqual(d.consumed);
    },
  );

  it('derives calls from the code, so the derivation itself sees the known ones', () => {
    const fanout = derived.find((d) => d.name === 'fanout');
    const webhook = derived.find((d) => d.name === 'webhook');
    expect([...(fanout?.actions ?? [])]).toEqual(
      expect.arrayContaining(['sts:AssumeRole', 'secretsmanager:BatchGetSecretValue', 'dynamodb:Query']),
    );
    expect(fanout?.sentTo).toEqual(new Set(['FanoutQueue', 'TrackQueue']));
    expect(webhook?.actions.has('dynamodb:PutItem')).toBe(true);
    expect(webhook?.files.some((f) => f.includes('kubernetes/'))).toBe(false);
  });
});
