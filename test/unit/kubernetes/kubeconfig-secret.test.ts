import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../lib/errors.js';
import { parseTokenSecret } from '../../../lib/kubernetes/kubeconfig-secret.js';

const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: prod
clusters:
  - name: staging
    cluster: { server: https://staging.example }
  - name: prod
    cluster:
      server: https://prod.example:6443
      certificate-authority-data: Q0EtREFUQQ==
users:
  - name: ci
    user: { token: staging-token }
  - name: orchestrator
    user: { token: prod-token }
contexts:
  - name: staging
    context: { cluster: staging, user: ci }
  - name: prod
    context: { cluster: prod, user: orchestrator }
`;

describe('parseTokenSecret', () => {
  it.each([
    ['a bare token is used as is', '  eyJhbGciOi.abc.def \n', { token: 'eyJhbGciOi.abc.def' }],
    ['a JSON object with a token field gives that token', '{"token": "json-token"}', { token: 'json-token' }],
    [
      "a kubeconfig gives its current context's token, server and CA",
      KUBECONFIG,
      { token: 'prod-token', server: 'https://prod.example:6443', caData: 'Q0EtREFUQQ==' },
    ],
    [
      'a kubeconfig with one context and no current-context uses that context',
      'clusters: [{name: c, cluster: {server: "https://c"}}]\nusers: [{name: u, user: {token: t1}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n',
      { token: 't1', server: 'https://c' },
    ],
  ])('%s', (_name, value, expected) => {
    expect(parseTokenSecret('s', value)).toEqual(expected);
  });

  it.each([
    ['an empty secret', '   ', 'is empty'],
    [
      'a kubeconfig whose user runs an exec plugin',
      KUBECONFIG.replace('{ token: prod-token }', '{ exec: { command: aws } }'),
      'has no token',
    ],
    [
      'a kubeconfig naming a context that does not exist',
      KUBECONFIG.replace('current-context: prod', 'current-context: dev'),
      'no current context',
    ],
    ['JSON without a token', '{"password": "hunter2"}', 'has no "token"'],
  ])('rejects %s without quoting it', (_name, value, problem) => {
    let thrown: unknown;
    try {
      parseTokenSecret('arn:aws:secretsmanager:eu-west-1:123456789012:secret:k', value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect((thrown as UpstreamError).retryable).toBe(false);
    expect((thrown as Error).message).toContain(problem);
    expect((thrown as Error).message).not.toMatch(/hunter2|staging-token|prod-token/);
  });
});
