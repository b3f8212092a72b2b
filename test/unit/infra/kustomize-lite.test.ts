import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kustomizeBuild } from '../../../infra/simulator/kustomize-lite.js';
import { memoryTree } from '../../helpers/git.js';

const yaml = (...docs: object[]) => docs.map((d) => stringify(d)).join('---\n');
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
};

describe("the simulator's kustomize build", () => {
  it('applies namespace, namePrefix, commonLabels, a JSON6902 patch and a strategic-merge patch file', async () => {
    const tree = memoryTree({
      'base/kustomization.yaml': yaml({ resources: ['deployment.yaml'] }),
      'base/deployment.yaml': yaml(deployment),
      'prod/kustomization.yaml': yaml({
        resources: ['../base'],
        namespace: 'prod',
        namePrefix: 'prod-',
        commonLabels: { env: 'prod' },
        patches: [
          {
            target: { kind: 'Deployment', name: 'web' },
            patch: '- op: replace\n  path: /spec/replicas\n  value: 4\n',
          },
          { path: 'image.yaml' },
        ],
      }),
      'prod/image.yaml': yaml({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { template: { spec: { containers: [{ name: 'web', image: 'web:2' }] } } },
      }),
    });
    expect(await kustomizeBuild(tree, 'prod')).toEqual([
      {
        ...deployment,
        metadata: { name: 'prod-web', namespace: 'prod', labels: { env: 'prod' } },
        spec: { replicas: 4, template: { spec: { containers: [{ name: 'web', image: 'web:2' }] } } },
      },
    ]);
  });

  it('fails on a resource that is not there, as kustomize does', async () => {
    const tree = memoryTree({ 'a/kustomization.yaml': yaml({ resources: ['missing.yaml'] }) });
    await expect(kustomizeBuild(tree, 'a')).rejects.toThrow('a/missing.yaml: no such file');
  });
});
