import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { Clock, SecretReader } from '../ports.js';
import type { AwsCredentialsProvider } from './eks-token.js';
import { createEksTokenSource } from './eks-token-source.js';
import { parseTokenSecret } from './kubeconfig-secret.js';

export interface TokenSource {
  token(): Promise<string>;
  /** Forget the cached token (the cluster answered 401): the next call fetches or generates a new one. */
  invalidate(): void;
}

/** Where and how to reach a cluster right now. */
export interface ClusterAccess {
  readonly server: string;
  readonly caData?: string;
  readonly token: string;
}

export interface AccessSource {
  access(): Promise<ClusterAccess>;
  invalidate(): void;
}

export interface AccessDeps {
  readonly secrets: SecretReader;
  /** AWS credentials of the orchestrator, or of `roleArn` assumed from them. */
  readonly awsCredentials: (options: { roleArn?: string; region: string }) => AwsCredentialsProvider;
  readonly clock: Clock;
}

/** One cluster's credentials: literal token, Secrets Manager (token or kubeconfig), or an EKS IAM token. */
export function createAccessSource(cluster: ClusterConfig, deps: AccessDeps): AccessSource {
  const base = {
    server: cluster.server,
    ...(cluster.caData === undefined ? {} : { caData: cluster.caData }),
  };
  const { auth } = cluster;
  if ('token' in auth) {
    const access = { ...base, token: auth.token };
    return { access: async () => access, invalidate: () => undefined };
  }
  if ('eks' in auth) {
    const tokens = createEksTokenSource({
      clusterName: auth.eks.clusterName,
      region: auth.eks.region,
      credentials: deps.awsCredentials({
        region: auth.eks.region,
        ...(auth.eks.roleArn === undefined ? {} : { roleArn: auth.eks.roleArn }),
      }),
      clock: deps.clock,
    });
    return { access: async () => ({ ...base, token: await tokens.token() }), invalidate: tokens.invalidate };
  }
  const secretId = auth.tokenSecret;
  let cached: Promise<ClusterAccess> | undefined;
  const load = async (): Promise<ClusterAccess> => {
    const credentials = parseTokenSecret(secretId, await deps.secrets.getSecretString(secretId));
    return {
      server: credentials.server ?? base.server,
      ...(credentials.caData === undefined
        ? base.caData === undefined
          ? {}
          : { caData: base.caData }
        : { caData: credentials.caData }),
      token: credentials.token,
    };
  };
  return {
    access() {
      cached ??= load().catch((error: unknown) => {
        cached = undefined;
        throw error;
      });
      return cached;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
