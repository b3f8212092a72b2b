import type { RegistryImage } from '../registry/registry-event.js';

/**
 * Route names of `POST /webhooks/{provider}`; also the keys of each provider's secret. `ecr` and `harbor` are container
 * registries (its image pushes arrive as push events carrying `image`), the others Git hosts.
 */
export const GIT_PROVIDERS = [
  'github',
  'gitlab',
  'bitbucket',
  'bitbucket-server',
  'azure-devops',
  'gitea',
  'generic',
  'ecr',
  'harbor',
] as const;
export type GitProvider = (typeof GIT_PROVIDERS)[number];

export function isGitProvider(value: string): value is GitProvider {
  return (GIT_PROVIDERS as readonly string[]).includes(value);
}

export const REF_TYPES = ['branch', 'tag'] as const;
export type RefType = (typeof REF_TYPES)[number];

/** Why a push's changed-file list cannot be trusted to be complete. */
export const UNKNOWN_FILES_REASONS = [
  'no-commit-list',
  'truncated',
  'forced',
  'created',
  'compare-failed',
] as const;
export type UnknownFilesReason = (typeof UNKNOWN_FILES_REASONS)[number];

/**
 * Unknown is not empty: a known-empty list (an empty commit) refreshes nothing path-filtered,
 * an unknown list refreshes everything whose repository and revision match (fail open).
 */
export type ChangedFiles =
  | { readonly known: true; readonly files: readonly string[] }
  | { readonly known: false; readonly reason: UnknownFilesReason };

export interface PushRepository {
  /** `org/repo` or `group/subgroup/project`, for display. */
  readonly fullName: string;
  /** The repository's web URL (GitHub `html_url`, GitLab `web_url`). */
  readonly webUrl: string;
  /** Every URL form the payload gives (web, clone over HTTPS, SSH, git://). */
  readonly urls: readonly string[];
  readonly defaultBranch?: string;
  /** Provider API base, e.g. `https://api.github.com` or `https://gitlab.example/api/v4`. */
  readonly apiBaseUrl?: string;
  /** GitLab numeric project id (compare API). */
  readonly projectId?: number;
}

export interface PushAuthor {
  readonly name: string;
  readonly username?: string;
}

/** One provider-neutral push: nothing downstream of the provider edge reads provider payloads. */
export interface PushEvent {
  readonly provider: GitProvider;
  readonly deliveryId: string;
  readonly repo: PushRepository;
  /** Full ref as pushed, e.g. `refs/heads/main` or `refs/tags/v1.2.0`. */
  readonly ref: string;
  readonly refType: RefType;
  /** Short name: `main`, `release/1.0`, `v1.2.0`. */
  readonly refName: string;
  readonly before: string;
  /**
   * The commit the ref points at after the push: the rollout's SHA. An annotated tag is peeled to its
   * commit (the payload's `after` is then the tag object). All zeros when the ref was deleted.
   */
  readonly after: string;
  /** A branch push to the repository's default branch (tags never touch it, unlike Argo CD). */
  readonly touchedDefaultBranch: boolean;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly forced: boolean;
  /** The head commit's author when the payload names one, else the pusher. */
  readonly author: PushAuthor;
  /** Who pushed (GitHub `pusher`, GitLab `user_name`/`user_username`), when the payload says. */
  readonly pusher?: PushAuthor;
  readonly commitTitle: string;
  readonly commitUrl?: string;
  readonly changedFiles: ChangedFiles;
  /** ISO-8601 time the delivery was received. */
  readonly receivedAt: string;
  /**
   * A container registry push (`lib/registry/`): `after` is then the digest's hex, `ref` and `refName` the
   * tag, and no Git step (compare API, ref head, manifests in Git, commit statuses) applies.
   */
  readonly image?: RegistryImage;
}

export const ZERO_SHA = '0000000000000000000000000000000000000000';
