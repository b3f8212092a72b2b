import { APPLICATIONS } from '../../lib/kubernetes/resources.js';
import type { SeedObject, SimulatedWorld } from './default-fleet.js';
import { createOciRegistry, type OciRegistry } from './oci-registry.js';

export const CHART_ACCOUNT = '123456789012';
export const CHART_REGION = 'eu-west-1';
/** An ECR registry host: Helm OCI sources name it without a scheme, `repoURL: <host>/charts`. */
export const CHART_REGISTRY = `${CHART_ACCOUNT}.dkr.ecr.${CHART_REGION}.amazonaws.com`;

function helmApp(name: string, chart: string, targetRevision: string): SeedObject {
  return {
    resource: APPLICATIONS,
    object: {
      metadata: { name, namespace: 'argocd' },
      spec: {
        project: 'default',
        source: { repoURL: `${CHART_REGISTRY}/charts`, chart, targetRevision },
        destination: { name: 'in-cluster', namespace: name },
        syncPolicy: { automated: { prune: true, selfHeal: true } },
      },
    },
  };
}

/**
 * `npm run demo -- chart`'s world: two clusters whose Argo CD deploys Helm charts from one ECR registry,
 * three apps on the `web` chart and three on the `api` chart, and the registry holding the versions they
 * start at (web 1.4.0, api 2.3.1).
 */
export function chartWorld(): SimulatedWorld & { readonly registry: OciRegistry } {
  const registry = createOciRegistry(
    [
      ['web', '1.3.0'],
      ['web', '1.4.0'],
      ['api', '2.3.0'],
      ['api', '2.3.1'],
    ].map(([chart, version]) => ({
      repository: `${CHART_REGISTRY}/charts/${chart}`,
      tag: version as string,
      chartVersion: version as string,
    })),
  );
  return {
    registry,
    clusters: [
      { name: 'prod-eu', argocd: { namespace: 'argocd' } },
      { name: 'prod-us', argocd: { namespace: 'argocd' } },
    ],
    objects: {
      'prod-eu': [
        helmApp('web', 'web', '1.x'),
        helmApp('web-admin', 'web', '^1.2.0'),
        helmApp('api', 'api', '2.x'),
      ],
      'prod-us': [
        helmApp('web', 'web', '>=1.0.0 <2.0.0'),
        helmApp('api', 'api', '~2.3'),
        helmApp('api-jobs', 'api', '2.x'),
      ],
    },
  };
}
