import { describe, expect, it } from 'vitest';
import { collectManifests } from '../../../lib/git/manifest-collect.js';
import { parseManifestFile } from '../../../lib/git/manifest-parse.js';
import { createMemoryLogger } from '../../../lib/logger.js';
import { preflightApp } from '../../../lib/secrets/preflight.js';
import type { SecretsManagerApi } from '../../../lib/secrets/secrets-manager-api.js';
import { unparseableCheck, unparseableFromArgoCd } from '../../../lib/secrets/unparseable.js';
import { memoryTree } from '../../helpers/git.js';

const BROKEN = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: [3\n';
const SECRET_LOOKING = 'apiVersion: v1\nkind: ConfigMap\ndata:\n  password: "hunter2-canary\n  other: x\n';

// No reference reaches Secrets Manager in these inputs: any call is a failure of the test.
const api = new Proxy({} as SecretsManagerApi, {
  get: () => () => Promise.reject(new Error('Secrets Manager must not be called')),
});
const deps = { api, logger: createMemoryLogger() };

describe('a manifest that does not parse', () => {
  it('gives the line and column the YAML parser reports, and the code, never the content', () => {
    const parsed = parseManifestFile(SECRET_LOOKING);
    expect(parsed.objects).toEqual([]);
    expect(parsed.failures).toHaveLength(1);
    expect(parsed.failures[0]).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    expect(parsed.failures[0]?.line).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(parsed)).not.toContain('hunter2');
  });

  it('gives the line of a JSON manifest that does not parse', () => {
    const parsed = parseManifestFile('{\n  "kind": "ConfigMap",\n  "data": [1,\n}\n');
    expect(parsed.failures[0]?.line).toBe(4);
  });

  it('gives the line of a document that parses but is not an object', () => {
    const parsed = parseManifestFile('kind: A\n---\njust text\n');
    expect(parsed.failures).toEqual([{ message: 'document 2: not a Kubernetes object (a string)', line: 3 }]);
  });

  it('is marked unparseable with its file and line by the Git reader, in a plain directory', async () => {
    const tree = memoryTree({ 'apps/web/deploy.yaml': BROKEN, 'apps/web/svc.yaml': 'kind: Service\n' });
    const set = await collectManifests(tree, { path: 'apps/web' });
    expect(set.documents.map((d) => d.path)).toEqual(['apps/web/svc.yaml']);
    expect(set.errors).toEqual([
      expect.objectContaining({ path: 'apps/web/deploy.yaml', unparseable: true, line: 7, column: 1 }),
    ]);
  });

  it('is not unparseable where Argo CD skips it: a broken YAML file in a directory that is not a manifest', async () => {
    const tree = memoryTree({
      'apps/web/svc.yaml': 'kind: Service\n',
      'apps/web/tool-config.yaml': 'settings: [1\n',
      'apps/web/broken.json': '{"apiVersion": "v1",\n "kind": [\n',
    });
    const set = await collectManifests(tree, { path: 'apps/web' });
    expect(set.errors.filter((e) => e.unparseable).map((e) => e.path)).toEqual(['apps/web/broken.json']);
    expect(set.errors.find((e) => e.path === 'apps/web/tool-config.yaml')?.message).toMatch(
      /Argo CD ignores it/,
    );
    // The same file listed by a kustomization fails kustomize: unparseable there.
    const listed = memoryTree({
      'k/kustomization.yaml': 'resources: [tool-config.yaml]\n',
      'k/tool-config.yaml': 'settings: [1\n',
    });
    const kset = await collectManifests(listed, { path: 'k' });
    expect(kset.errors).toEqual([expect.objectContaining({ path: 'k/tool-config.yaml', unparseable: true })]);
  });

  it('is marked unparseable in a Kustomize directory: the kustomization itself, or a resource it lists', async () => {
    const own = memoryTree({ 'k/kustomization.yaml': 'resources: [a.yaml\n', 'k/a.yaml': 'kind: A\n' });
    const listed = memoryTree({
      'k/kustomization.yaml': 'resources:\n  - a.yaml\n  - b.yaml\n',
      'k/a.yaml': BROKEN,
      'k/b.yaml': 'kind: B\n',
    });
    const first = await collectManifests(own, { path: 'k' });
    expect(first.errors.filter((e) => e.unparseable)).toEqual([
      expect.objectContaining({ path: 'k/kustomization.yaml', line: 2 }),
    ]);
    const second = await collectManifests(listed, { path: 'k' });
    expect(second.errors).toEqual([
      expect.objectContaining({ path: 'k/a.yaml', unparseable: true, line: 7 }),
    ]);
    expect(second.documents.map((d) => d.path)).toEqual(['k/b.yaml']);
  });

  it('does not mark a missing resource unparseable', async () => {
    const tree = memoryTree({ 'k/kustomization.yaml': 'resources: [gone.yaml]\n' });
    const set = await collectManifests(tree, { path: 'k' });
    expect(set.errors).toEqual([{ path: 'k/gone.yaml', message: 'resource gone.yaml not found' }]);
  });

  it('maps to an unparseable check naming file:line:column', () => {
    const check = unparseableCheck({ path: 'apps/web/deploy.yaml', message: 'x', line: 7, column: 1 });
    expect(check).toMatchObject({ outcome: 'unparseable', file: 'apps/web/deploy.yaml', line: 7, column: 1 });
    expect(check.message).toMatch(/^apps\/web\/deploy\.yaml:7:1: the manifest does not parse/);
  });

  it("maps Argo CD's answer that a manifest does not parse, with its file and line, and nothing else", () => {
    const said =
      "Argo CD API answered 400: Failed to unmarshal \"deploy.yaml\": error converting YAML to JSON: yaml: line 6: did not find expected ',' or ']'";
    expect(unparseableFromArgoCd(said)).toMatchObject({
      outcome: 'unparseable',
      renderedBy: 'argocd',
      file: 'deploy.yaml',
      line: 6,
      message: expect.stringContaining(said),
    });
    const kustomize =
      'Argo CD API answered 500: error generating manifests: kustomize build k failed: MalformedYAMLError: yaml: line 3: mapping values are not allowed in this context in File: k/a.yaml';
    expect(unparseableFromArgoCd(kustomize)).toMatchObject({ file: 'k/a.yaml', line: 3 });
    expect(
      unparseableFromArgoCd('Argo CD API answered 503 after 3 attempts: injected fault'),
    ).toBeUndefined();
    expect(unparseableFromArgoCd('Argo CD API answered 403: the token may not get this application')).toBe(
      undefined,
    );
  });

  it('warns under policy warn and blocks under policy block', async () => {
    const unparseable = [unparseableCheck({ path: 'apps/web/deploy.yaml', message: 'x', line: 7 })];
    const input = { documents: [], unparseable, clusterStores: [], overrides: [] };
    const warned = await preflightApp({ ...input, policy: 'warn' }, deps);
    expect(warned.verdict).toBe('warn');
    expect(warned.checks).toEqual([expect.objectContaining({ outcome: 'unparseable', blocking: false })]);
    const blocked = await preflightApp({ ...input, policy: 'block' }, deps);
    expect(blocked.verdict).toBe('block');
    expect(blocked.checks).toEqual([expect.objectContaining({ outcome: 'unparseable', blocking: true })]);
    expect(blocked.summary).toContain('1 unparseable');
  });
});
