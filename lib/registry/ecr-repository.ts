import { REPOSITORY_PATH } from './registry-event.js';

/** An ECR repository as DescribeImages names it, with the registry host and key its sources use. */
export interface EcrRepository {
  /** The image key `host/path` (`ociSourceKey`), what sources and registry pushes are matched on. */
  readonly key: string;
  readonly host: string;
  /** The 12-digit account that owns the registry (DescribeImages' `registryId`). */
  readonly registryId: string;
  readonly region: string;
  readonly repositoryName: string;
  /** `arn:<partition>:ecr:<region>:<account>:repository/<name>`: what IAM grants DescribeImages on. */
  readonly arn: string;
}

/** One image of a repository as DescribeImages reports it: its manifest digest, tags and push time. */
export interface RepositoryImage {
  /** `sha256:<64 lower-case hex>`. */
  readonly digest: string;
  readonly tags: readonly string[];
  /** Epoch ms (`imagePushedAt`), when ECR said. */
  readonly pushedAt?: number;
}

const ECR_HOST = /^([0-9]{12})\.dkr\.ecr\.([a-z]{2}(?:-[a-z]+)+-[0-9])\.amazonaws\.com(\.cn)?$/;

/** The ECR repository an image key names, or undefined when its host is not an ECR registry. */
export function ecrRepositoryOf(key: string): EcrRepository | undefined {
  const slash = key.indexOf('/');
  if (slash < 0) return undefined;
  const host = key.slice(0, slash);
  const repositoryName = key.slice(slash + 1);
  const match = ECR_HOST.exec(host);
  if (match === null || repositoryName.length > 256 || !REPOSITORY_PATH.test(repositoryName))
    return undefined;
  const [, registryId = '', region = '', china] = match;
  const partition = china === undefined ? 'aws' : 'aws-cn';
  return {
    key,
    host,
    registryId,
    region,
    repositoryName,
    arn: `arn:${partition}:ecr:${region}:${registryId}:repository/${repositoryName}`,
  };
}

/** IAM's resource matching: `*` any run of characters, `?` one. */
export function arnMatches(pattern: string, arn: string): boolean {
  let regex = '^';
  for (const ch of pattern) {
    regex += ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`${regex}$`).test(arn);
}
