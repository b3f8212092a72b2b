/**
 * One image (or OCI chart) pushed to a container registry, provider-neutral: what ECR's EventBridge
 * event (and later GHCR's `package` and Harbor's `PUSH_ARTIFACT` webhooks) is turned into. Nothing
 * downstream of the provider edge reads a registry payload.
 */
export interface RegistryImage {
  /** Lower-case registry host, e.g. `123456789012.dkr.ecr.eu-west-1.amazonaws.com`. */
  readonly host: string;
  /** Repository path on that host, lower-case, no leading or trailing `/`: `charts/web`. */
  readonly repository: string;
  /** The tag pushed (case-sensitive, as OCI tags are). */
  readonly tag: string;
  /** `sha256:<64 lower-case hex>`: the manifest digest, which Argo CD reports for an OCI source. */
  readonly digest: string;
  /** The AWS account and region the event came from (ECR). */
  readonly account?: string;
  readonly region?: string;
}

export const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** OCI tags: up to 128 of `[A-Za-z0-9_.-]`, not starting with `.` or `-`. */
export const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** A repository path (ECR, GHCR, Harbor): lower-case segments of letters, digits and `._-` between `/`. */
export const REPOSITORY_PATH = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/;

/** The index key of an image repository: `host/path`, lower-case. */
export function imageKey(image: Pick<RegistryImage, 'host' | 'repository'>): string {
  return `${image.host}/${image.repository}`;
}

/** The rollout of a registry push is keyed by its digest's 64 hex characters (`GET /rollouts/<hex>`). */
export function digestHex(digest: string): string {
  return digest.slice('sha256:'.length);
}

/** ECR's registry host of an account and region (the China regions' under `amazonaws.com.cn`). */
export function ecrHost(account: string, region: string): string {
  return `${account}.dkr.ecr.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}
