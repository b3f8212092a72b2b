import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../../helpers/zip.js';

const run = promisify(execFile);
const FUNCTIONS = ['webhook', 'fanout', 'track', 'reconcile', 'api'] as const;
const FLEET_FUNCTIONS = ['fanout', 'track', 'reconcile'];

// Secret-looking values in the packager's environment: none may reach the template or a zip.
const CANARIES = {
  SLACK_BOT_TOKEN: 'xoxb-leak-canary-0001',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/leakcanary0002',
  GITHUB_WEBHOOK_SECRET: 'gh-leak-canary-0003',
  GITLAB_WEBHOOK_TOKEN: 'gl-leak-canary-0004',
  API_TOKEN: 'api-leak-canary-0005',
};
const SLACK_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:gitops-sync/dev/slack-AbCdEf';
const ALARM_TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:gitops-sync-alarms';

type Template = {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  Outputs: Record<string, unknown>;
  Conditions: Record<string, unknown>;
};

let dir: string;
let template: Template;
let templateText: string;
const zips = new Map<string, Map<string, Buffer>>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gitops-sync-package-'));
  // `npm run package` as CI runs it (the default stage, dev), then its output copied aside.
  await run('npm', ['run', 'package'], {
    env: {
      ...process.env,
      ...CANARIES,
      SLACK_SECRET_ARN,
      SLACK_CHANNEL: '#deploys',
      ALARM_TOPIC_ARN,
      VPC_SUBNET_IDS: 'subnet-0a,subnet-0b',
      VPC_SECURITY_GROUP_IDS: 'sg-0c',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  cpSync('.serverless', dir, { recursive: true });
  templateText = readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8');
  template = JSON.parse(templateText) as Template;
  for (const fn of FUNCTIONS) zips.set(fn, readZip(join(dir, `${fn}.zip`)));
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pascal = (s: string) => `${s[0]?.toUpperCase()}${s.slice(1)}`;
const fn = (name: string) => template.Resources[`${pascal(name)}LambdaFunction`]?.Properties ?? {};
const envOf = (name: string) =>
  ((fn(name).Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<
    string,
    unknown
  >;

describe('npm run package', () => {
  it('puts no secret value in the template, the state or any zip', () => {
    const texts = [
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => readFileSync(join(dir, f), 'utf8')),
      ...[...zips.values()].flatMap((files) => [...files.values()].map((b) => b.toString('utf8'))),
    ];
    for (const canary of Object.values(CANARIES)) {
      expect(texts.filter((t) => t.includes(canary))).toEqual([]);
    }
    const values = FUNCTIONS.flatMap((f) => Object.values(envOf(f))).map((v) => JSON.stringify(v));
    expect(values.filter((v) => /xox[abp]-|hooks\.slack\.com/.test(v))).toEqual([]);
  });

  it('gives Slack settings only to the functions that post to Slack; the webhook has none', () => {
    for (const name of FUNCTIONS) {
      const slack = Object.keys(envOf(name)).filter((k) => k.startsWith('SLACK_'));
      if (FLEET_FUNCTIONS.includes(name)) {
        expect(envOf(name)).toMatchObject({ SLACK_SECRET_ARN, SLACK_CHANNEL: '#deploys' });
      } else expect({ name, slack }).toEqual({ name, slack: [] });
    }
  });

  it("gives the page's login settings only to the API, and only the API's bundle reads them", () => {
    const bundled = (name: string) =>
      [...(zips.get(name)?.values() ?? [])].some((b) =>
        b.toString('utf8').includes('is required with UI_AUTH=oidc'),
      );
    for (const name of FUNCTIONS) {
      const login = Object.keys(envOf(name)).filter((k) => /^(UI_|OIDC_)/.test(k));
      expect({ name, login: login.length > 0, bundled: bundled(name) }).toEqual({
        name,
        login: name === 'api',
        bundled: name === 'api',
      });
    }
  });

  it('packs the fleet file into every function that reads it: the webhook and the page check it too', () => {
    for (const name of FUNCTIONS) {
      const packaged = [...(zips.get(name)?.keys() ?? [])].filter((f) => /\.ya?ml$/.test(f));
      const fleetFile = envOf(name).FLEET_CONFIG;
      expect(fleetFile).toBeTruthy();
      expect({ name, packaged }).toEqual({ name, packaged: [fleetFile] });
    }
  });

  it('alarms on every dead-letter queue, every queue age and every function error and throttle', () => {
    const alarms = Object.values(template.Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const watched = alarms.map((a) => {
      const p = a.Properties as { MetricName: string; Dimensions: { Value: unknown }[] };
      return `${p.MetricName} ${JSON.stringify(p.Dimensions[0]?.Value)}`;
    });
    const expected = [
      ...['FanoutDeadLetterQueue', 'TrackDeadLetterQueue'].map(
        (q) => `ApproximateNumberOfMessagesVisible {"Fn::GetAtt":["${q}","QueueName"]}`,
      ),
      ...['FanoutQueue', 'TrackQueue'].map(
        (q) => `ApproximateAgeOfOldestMessage {"Fn::GetAtt":["${q}","QueueName"]}`,
      ),
      ...FUNCTIONS.flatMap((f) =>
        ['Errors', 'Throttles'].map((m) => `${m} {"Ref":"${pascal(f)}LambdaFunction"}`),
      ),
    ];
    expect(watched.sort()).toEqual(expected.sort());
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual({
        'Fn::If': ['HasAlarmTopic', [ALARM_TOPIC_ARN], { Ref: 'AWS::NoValue' }],
      });
    }
    expect(template.Conditions.HasAlarmTopic).toEqual({
      'Fn::Not': [{ 'Fn::Equals': [ALARM_TOPIC_ARN, ''] }],
    });
  });

  it('outputs every role ARN, the HTTP API URL and every queue and dead-letter queue URL', () => {
    expect(Object.keys(template.Outputs)).toEqual(
      expect.arrayContaining([
        ...FUNCTIONS.map((f) => `${pascal(f)}RoleArn`),
        'HttpApiUrl',
        'FanoutQueueUrl',
        'FanoutDeadLetterQueueUrl',
        'TrackQueueUrl',
        'TrackDeadLetterQueueUrl',
      ]),
    );
    const role = template.Resources.FanoutRole?.Properties.RoleName;
    expect(role).toBe('gitops-sync-dev-fanout');
  });

  it('hands every function the patterns its role may read and assume, as the policies name them', () => {
    const policy = JSON.stringify(template.Resources.FanoutRole?.Properties.Policies);
    for (const name of FUNCTIONS) {
      const env = envOf(name);
      expect(JSON.stringify(env.OWN_SECRETS_ARN)).toContain('secret:gitops-sync/dev/*');
      expect(JSON.stringify(env.ASSUMABLE_ROLE_ARNS)).toContain('role/gitops-sync-dev-access-*');
      expect(policy).toContain(JSON.stringify(env.OWN_SECRETS_ARN));
      expect(policy).toContain(JSON.stringify(env.ASSUMABLE_ROLE_ARNS));
    }
    // The example's one EKS cluster calls DescribeCluster through its roleArn: nothing for the functions.
    expect(template.Conditions.HasEksDescribe).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', ''] }] });
  });

  it('runs the fleet functions in the VPC when subnets are given, the public ones outside it', () => {
    expect(template.Conditions.HasVpc).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['subnet-0a,subnet-0b', ''] }],
    });
    for (const name of FLEET_FUNCTIONS) {
      expect(fn(name).VpcConfig).toEqual({
        'Fn::If': [
          'HasVpc',
          {
            SubnetIds: { 'Fn::Split': [',', 'subnet-0a,subnet-0b'] },
            SecurityGroupIds: { 'Fn::Split': [',', 'sg-0c'] },
          },
          { Ref: 'AWS::NoValue' },
        ],
      });
    }
    expect(fn('webhook').VpcConfig).toBeUndefined();
    expect(fn('api').VpcConfig).toBeUndefined();
  });

  it('serves every JSON API route behind IAM auth, release control included; the page and /healthz open', () => {
    const routes = Object.values(template.Resources)
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties as { RouteKey: string; AuthorizationType?: string });
    const api = routes.filter((r) => !r.RouteKey.includes('/webhooks/'));
    // A browser cannot sign its requests: the function checks the session (UI_AUTH=oidc) or refuses.
    const open = new Set(['GET /healthz', 'GET /ui', 'GET /ui/{proxy+}']);
    expect(api.map((r) => r.RouteKey)).toEqual(
      expect.arrayContaining([
        ...open,
        'GET /rollouts/{sha}',
        'GET /freezes',
        'POST /rollouts/{sha}/pause',
        'POST /rollouts/{sha}/resume',
        'POST /rollouts/{sha}/abort',
        'POST /rollouts/{sha}/retry',
        'POST /freezes',
        'DELETE /freezes/{id}',
        'POST /unpin',
      ]),
    );
    for (const route of api)
      expect({ route: route.RouteKey, auth: route.AuthorizationType ?? 'NONE' }).toEqual({
        route: route.RouteKey,
        auth: open.has(route.RouteKey) ? 'NONE' : 'AWS_IAM',
      });
  });

  it('links the page at the HTTP API URL by default, with no dependency cycle in the template', () => {
    for (const name of ['api', ...FLEET_FUNCTIONS])
      expect({ name, url: envOf(name).PUBLIC_URL }).toEqual({
        name,
        url: { 'Fn::GetAtt': ['HttpApi', 'ApiEndpoint'] },
      });
    expect(envOf('api').UI_AUTH).toBe('iam');
    expect(dependencyCycle(template.Resources)).toEqual([]);
  });

  it('outputs a read-only and an operator API policy: only the operator one may call the control routes', () => {
    const invoke = (name: string) => {
      const policy = template.Resources[name]?.Properties as {
        ManagedPolicyName: string;
        PolicyDocument: { Statement: { Action: string[]; Resource: { 'Fn::Sub': string }[] }[] };
      };
      expect(policy.ManagedPolicyName).toBe(
        `gitops-sync-dev-${name === 'ApiReadOnlyPolicy' ? 'api-read' : 'api-operator'}`,
      );
      return policy.PolicyDocument.Statement.flatMap((st) =>
        st.Resource.map((r) => r['Fn::Sub'].split('HttpApi}/*/')[1]),
      );
    };
    expect(invoke('ApiReadOnlyPolicy')).toEqual(['GET/*']);
    expect(invoke('ApiOperatorPolicy')).toEqual(
      expect.arrayContaining([
        'GET/*',
        'POST/rollouts/*/abort',
        'POST/freezes',
        'DELETE/freezes/*',
        'POST/unpin',
      ]),
    );
    expect(template.Outputs).toHaveProperty('ApiReadOnlyPolicyArn');
    expect(template.Outputs).toHaveProperty('ApiOperatorPolicyArn');
  });

  it('builds bundles that import in a fresh Node process and export a handler', async () => {
    for (const name of FUNCTIONS) {
      const root = join(dir, 'unzipped', name);
      for (const [file, data] of zips.get(name) ?? []) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), data);
      }
      const script = 'const m = await import(process.argv[1]); console.log(typeof m.handler);';
      const { stdout } = await run(process.execPath, [
        '--input-type=module',
        '-e',
        script,
        join(root, 'functions', `${name}.mjs`),
      ]);
      expect({ name, handler: stdout.trim() }).toEqual({ name, handler: 'function' });
    }
  });

  it('defines the ECR push rule on the webhook function, off unless ECR_EVENTS=true, scoped to the stack', () => {
    const rules = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Events::Rule');
    const rule = rules.find((r) => JSON.stringify(r.Properties.EventPattern ?? {}).includes('aws.ecr'));
    expect(rule?.Properties).toMatchObject({
      State: 'DISABLED',
      EventPattern: {
        source: ['aws.ecr'],
        'detail-type': ['ECR Image Action'],
        detail: { 'action-type': ['PUSH'], result: ['SUCCESS'], 'repository-name': [{ prefix: '' }] },
      },
    });
    expect(JSON.stringify(rule?.Properties.Targets)).toContain('WebhookLambdaFunction');
    expect(envOf('webhook')).toMatchObject({
      ECR_EVENTS_ACCOUNT: { Ref: 'AWS::AccountId' },
      ECR_EVENTS_REGION: { Ref: 'AWS::Region' },
    });
  });

  it('wires every setting docs/configuration.md lists, or the page says it is local', () => {
    // The settings table moved from the README to docs/configuration.md (the whole page is the section).
    const section = readFileSync('docs/configuration.md', 'utf8');
    const listed = new Set(
      section
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? '')),
    );
    const wired = new Set(FUNCTIONS.flatMap((f) => Object.keys(envOf(f))));
    const localOnly = new Set(
      section
        .split('\n')
        .filter((l) => l.startsWith('| `') && /local only|tests only|set by Lambda/.test(l))
        .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? '')),
    );
    expect(listed.size).toBeGreaterThan(10);
    expect([...listed].filter((name) => !wired.has(name) && !localOnly.has(name))).toEqual([]);
  });
});

/** Resources each resource refers to (Ref, Fn::GetAtt, Fn::Sub, DependsOn); a cycle's members, or []. */
function dependencyCycle(resources: Record<string, unknown>): string[] {
  const names = new Set(Object.keys(resources));
  const edges = new Map<string, Set<string>>();
  const collect = (value: unknown, into: Set<string>): void => {
    if (Array.isArray(value)) for (const v of value) collect(v, into);
    else if (value !== null && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        if (key === 'Ref' && typeof v === 'string' && names.has(v)) into.add(v);
        else if (key === 'Fn::GetAtt') {
          const target = Array.isArray(v) ? v[0] : String(v).split('.')[0];
          if (typeof target === 'string' && names.has(target)) into.add(target);
        } else if (key === 'Fn::Sub') {
          const text = Array.isArray(v) ? v[0] : v;
          for (const m of String(text).matchAll(/\$\{([A-Za-z0-9]+)(\.[^}]*)?\}/g))
            if (names.has(m[1] ?? '')) into.add(m[1] ?? '');
          collect(Array.isArray(v) ? v[1] : undefined, into);
        } else if (key === 'DependsOn') {
          for (const d of Array.isArray(v) ? v : [v]) if (typeof d === 'string') into.add(d);
        } else collect(v, into);
      }
    }
  };
  for (const [name, resource] of Object.entries(resources)) {
    const into = new Set<string>();
    collect(resource, into);
    edges.set(name, into);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] => {
    if (state.get(name) === 'done') return [];
    if (state.get(name) === 'open') return stack.slice(stack.indexOf(name));
    state.set(name, 'open');
    stack.push(name);
    for (const next of edges.get(name) ?? []) {
      const cycle = visit(next);
      if (cycle.length > 0) return cycle;
    }
    stack.pop();
    state.set(name, 'done');
    return [];
  };
  for (const name of names) {
    const cycle = visit(name);
    if (cycle.length > 0) return cycle;
  }
  return [];
}
