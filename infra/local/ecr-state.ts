/** One image as ECR's DescribeImages answers it (the fields the orchestrator and the demo use). */
export interface EcrImageDetail {
  /** `sha256:<64 hex>`. */
  readonly imageDigest: string;
  readonly imageTags?: readonly string[];
  /** When it was pushed (epoch ms). */
  readonly imagePushedAt?: number;
  readonly imageSizeInBytes?: number;
  readonly imageManifestMediaType?: string;
  readonly artifactMediaType?: string;
}

/**
 * What the ECR double serves: the images of a registry's repository, or undefined when the registry has
 * no such repository (`RepositoryNotFoundException`). Any registry state can stand behind it (the
 * simulator's OCI registry, a test's map); `memoryEcrState` is the plain one.
 */
export interface EcrRegistryState {
  images(registryId: string, repositoryName: string): readonly EcrImageDetail[] | undefined;
}

export interface MemoryEcrState extends EcrRegistryState {
  createRepository(registryId: string, repositoryName: string): void;
  /**
   * A `docker push` / `helm push`: the tag moves to this digest (ECR tags are mutable by default), the
   * image is added if new; the repository is created when missing.
   */
  push(
    registryId: string,
    repositoryName: string,
    image: { readonly digest: string; readonly tag: string; readonly pushedAt?: number },
  ): void;
}

export function memoryEcrState(): MemoryEcrState {
  const repositories = new Map<string, EcrImageDetail[]>();
  const key = (registryId: string, name: string) => `${registryId}/${name}`;
  const createRepository = (registryId: string, name: string) => {
    if (!repositories.has(key(registryId, name))) repositories.set(key(registryId, name), []);
  };
  return {
    images: (registryId, name) => repositories.get(key(registryId, name)),
    createRepository,
    push(registryId, name, image) {
      createRepository(registryId, name);
      const images = repositories.get(key(registryId, name)) ?? [];
      // Only the image holding the tag changes (a tag names one image of a repository).
      const moved = images.map((d) =>
        d.imageTags?.includes(image.tag) === true
          ? { ...d, imageTags: d.imageTags.filter((t) => t !== image.tag) }
          : d,
      );
      const at = moved.findIndex((d) => d.imageDigest === image.digest);
      const pushedAt = image.pushedAt ?? Date.now();
      if (at < 0) {
        moved.push({
          imageDigest: image.digest,
          imageTags: [image.tag],
          imagePushedAt: pushedAt,
          imageManifestMediaType: 'application/vnd.oci.image.manifest.v1+json',
        });
      } else {
        const found = moved[at] as EcrImageDetail;
        moved[at] = { ...found, imageTags: [...(found.imageTags ?? []), image.tag] };
      }
      repositories.set(key(registryId, name), moved);
    },
  };
}
