import type { OciRegistry } from './oci-registry.js';

/** One image as DescribeImages lists it (the fields the double reads). */
export interface EcrImage {
  readonly registryId: string;
  readonly repositoryName: string;
  readonly imageDigest: string;
  readonly imageTags?: readonly string[];
  readonly imagePushedAt: number;
  readonly imageManifestMediaType: string;
  readonly artifactMediaType?: string;
}

const HELM_CHART = 'application/vnd.cncf.helm.config.v1+json';
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/**
 * The simulator registry's ECR repositories as DescribeImages lists them: for `registryId` (the account)
 * and `repositoryName` (`charts/web`), the images of `<registryId>.dkr.ecr.<region>.amazonaws.com/<name>`,
 * in any region (`region` narrows it), newest push first; undefined when there is no such repository
 * (ECR's RepositoryNotFoundException). The state the local DescribeImages double (infra/local/ecr-server.ts)
 * serves: push times in epoch milliseconds.
 */
export function ecrImagesOf(
  registry: OciRegistry,
  region?: string,
): { images(registryId: string, repositoryName: string): EcrImage[] | undefined } {
  return {
    images(registryId, repositoryName) {
      const name = repositoryName.toLowerCase();
      const repository = registry.repositories().find((key) => {
        const at = key.indexOf('/');
        const host = /^([0-9]{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com$/.exec(key.slice(0, at));
        return (
          host?.[1] === registryId &&
          (region === undefined || host[2] === region) &&
          key.slice(at + 1) === name
        );
      });
      if (repository === undefined) return undefined;
      return (registry.images(repository) ?? []).map((image) => ({
        registryId,
        repositoryName: name,
        imageDigest: image.digest,
        ...(image.tags.length === 0 ? {} : { imageTags: [...image.tags] }),
        imagePushedAt: image.pushedAt.getTime(),
        imageManifestMediaType: OCI_MANIFEST,
        ...(image.chartVersion === undefined ? {} : { artifactMediaType: HELM_CHART }),
      }));
    },
  };
}
