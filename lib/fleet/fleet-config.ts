/** The fleet file (`FLEET_CONFIG`), after validation. See README "Fleet file". */
import type { Severity } from '../audit/types.js';

export type ClusterAuth =
  | { readonly token: string }
  | { readonly tokenSecret: string }
  | { readonly eks: { readonly clusterName: string; readonly region: string; readonly roleArn?: string } };

/** External Secrets Operator's controller ServiceAccount on a cluster. */
export interface EsoController {
  readonly namespace: string;
  readonly serviceAccount: string;
}

export const SECRET_POLICIES = ['block', 'warn', 'off'] as const;
export type SecretPolicy = (typeof SECRET_POLICIES)[number];

export interface ClusterConfig {
  /** Unique; used in records and routes. */
  readonly name: string;
  /** The API server URL; absent only with `auth.eks`, whose endpoint then comes from EKS DescribeCluster. */
  readonly server?: string;
  /** Base64 PEM of the cluster CA (with `auth.eks` and absent: DescribeCluster's). */
  readonly caData?: string;
  readonly auth: ClusterAuth;
  /** This cluster runs Argo CD; Applications and ApplicationSets live in this namespace. */
  readonly argocd?: {
    /** The first (or only) namespace: where AppProjects and the Argo CD instance itself live. */
    readonly namespace: string;
    /** Every namespace holding Applications/ApplicationSets (apps in any namespace, or two instances). */
    readonly namespaces?: readonly string[];
  };
  /** This cluster runs Flux; GitRepositories live in this namespace. */
  readonly flux?: { readonly namespace: string };
  /** Concurrent refresh PATCHes against this cluster (default: REFRESH_CONCURRENCY). */
  readonly concurrency?: number;
  /** Per-request timeout against this cluster's API, in milliseconds (default 10000). */
  readonly timeoutMs?: number;
  /** ExternalSecret preflight policy for apps managed from this cluster (default: the fleet's). */
  readonly secretPolicy?: SecretPolicy;
  /** Role the ExternalSecret preflight assumes for stores on this cluster that name no identity of their own. */
  readonly preflightRoleArn?: string;
  /** Where ESO's controller runs (its ServiceAccount's IRSA or Pod Identity role serves stores without `auth`). */
  readonly eso?: EsoController;
  /** The Argo CD API server of this cluster's Argo CD (the rollout page's links to `{argocdUrl}/applications/{ns}/{name}`; rendered manifests with a token). */
  readonly argocdUrl?: string;
  /** Secrets Manager secret holding an Argo CD API token (`applications, get`): plain, or `{"token": "..."}`. */
  readonly argocdTokenSecret?: string;
  /** Literal Argo CD API token (local/testing only). */
  readonly argocdToken?: string;
  /** Base64 PEM of the CA that signed the Argo CD server's certificate. */
  readonly argocdCaData?: string;
  /** Labels for wave selectors (`tier: prod`); absent when the file gives none. */
  readonly labels?: Readonly<Record<string, string>>;
}

export const REPOSITORY_PROVIDERS = [
  'github',
  'gitlab',
  'bitbucket',
  'bitbucket-server',
  'azure-devops',
  'gitea',
  'generic',
] as const;
export type RepositoryProvider = (typeof REPOSITORY_PROVIDERS)[number];

/** `pin`: the orchestrator owns `targetRevision` of the repository's sources; `advisory`: holds only withhold its refresh. */
export const REPOSITORY_CONTROLS = ['pin', 'advisory'] as const;
export type RepositoryControl = (typeof REPOSITORY_CONTROLS)[number];

export interface RepositoryConfig {
  readonly url: string;
  /** Secrets Manager secret holding the token (plain string, or JSON `{"token": "..."}`, or `{"username","password"}`). */
  readonly tokenSecret?: string;
  /** Literal token (local/testing only). */
  readonly token?: string;
  /** Which compare API to call; guessed from the host when absent. */
  readonly provider?: RepositoryProvider;
  /** Provider API base URL (GitHub Enterprise, self-hosted GitLab, tests). */
  readonly apiUrl?: string;
  /** Post a commit status (context `gitops-sync`) for each rollout of this repository. */
  readonly commitStatus?: boolean;
  /** With `commitStatus`: one more status per cluster (context `gitops-sync/<cluster>`). */
  readonly commitStatusPerCluster?: boolean;
  /** A GitHub or GitLab deployment per commit and environment (destination cluster), moved as its apps move. */
  readonly deployments?: boolean;
  /** Slack channel for this repository's rollout messages (bot mode; default `SLACK_CHANNEL`). */
  readonly slackChannel?: string;
  /** How holds apply to this repository's apps; absent when the file gives none (read it with `repositoryControl`). */
  readonly control?: RepositoryControl;
  /** A GitHub check run (`gitops-sync`) per commit, through the fleet's `githubApp`. */
  readonly checkRun?: boolean;
}

/** The GitHub App the check runs (and deployments) authenticate as: its id, its key, its installation. */
export interface GitHubAppConfig {
  readonly appId: number;
  /** Secrets Manager secret holding the App's private key PEM (PKCS#1 or PKCS#8). */
  readonly privateKeySecret?: string;
  /** Literal private key PEM (local/testing only). */
  readonly privateKey?: string;
  /** Absent: looked up per repository (`GET /repos/{owner}/{repo}/installation`). */
  readonly installationId?: number;
}

/** A repository's `control`, `advisory` unless the fleet file says `pin`. */
export function repositoryControl(repository: Pick<RepositoryConfig, 'control'>): RepositoryControl {
  return repository.control ?? 'advisory';
}

/** How many apps of a wave may end unhealthy before the rollout halts: a count, or a percentage (rounded down). */
export type MaxUnhealthy = { readonly count: number } | { readonly percent: number };

/** One entry of the top-level `waves:` list, in order. */
export interface WaveConfig {
  /** Unique DNS label; named in messages ("wave prod-eu waits for canary"). */
  readonly name: string;
  /** Destination clusters by name or glob (`*`, `?`); exclusive with `selector`. */
  readonly clusters?: readonly string[];
  /** Destination clusters whose `labels` have every one of these values; exclusive with `clusters`. */
  readonly selector?: Readonly<Record<string, string>>;
  /** Wait after the wave's last app is synced and healthy, in milliseconds (default 0). */
  readonly soakMs: number;
  /** Default `{ count: 0 }`. */
  readonly maxUnhealthy: MaxUnhealthy;
}

/** What the reconcile pass's Slack digest leaves out (findings are still stored and served). */
export interface DigestFilter {
  /** Findings less severe than this are not posted. */
  readonly minSeverity?: Severity;
  /** Rule ids never posted. */
  readonly mute?: readonly string[];
}

/** A SecretStore/ClusterSecretStore stand-in for stores that are neither in Git nor on a fleet cluster. */
export interface StoreOverride {
  readonly kind: 'SecretStore' | 'ClusterSecretStore';
  readonly name: string;
  /** SecretStore only: the namespace it lives in (absent: any namespace). */
  readonly namespace?: string;
  readonly cluster?: string;
  readonly service: 'SecretsManager' | 'ParameterStore';
  readonly region: string;
  readonly role?: string;
  readonly prefix?: string;
}

export interface FleetConfig {
  readonly clusters: readonly ClusterConfig[];
  readonly repositories: readonly RepositoryConfig[];
  readonly secretPolicy: SecretPolicy;
  readonly secretStores: readonly StoreOverride[];
  readonly audit?: { readonly digest?: DigestFilter };
  /** Release waves in order; absent: one wave, the whole fleet (no gating). */
  readonly waves?: readonly WaveConfig[];
  /** The GitHub App of `checkRun: true` repositories. */
  readonly githubApp?: GitHubAppConfig;
}

/** The namespaces a cluster's Argo CD keeps Applications in (`namespaces`, else the one `namespace`). */
export function argocdNamespaces(cluster: Pick<ClusterConfig, 'argocd'>): readonly string[] {
  if (cluster.argocd === undefined) return [];
  return cluster.argocd.namespaces ?? [cluster.argocd.namespace];
}
