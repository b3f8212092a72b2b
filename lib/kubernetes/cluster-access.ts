import { needsEksDescribe } from '../fleet/aws-scopes.js';
import type { ClusterConfig } from '../fleet/fleet-config.js';
import type { Clock, SecretReader } from '../ports.js';
import type { DescribeEksCluster } from './eks-describe.js';
import type { AwsCredentialsProvider } from './eks-token.js';
import { createEksTokenSource } from './eks-token-source.js';

export type { TokenSource } from './token-source.js';

import { parseTokenSecret } from './kubeconfig-secret.js';

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
  /** For an `auth.eks` cluster without `server` or `caData`: EKS DescribeCluster. */
  readonly describeEks?: DescribeEksCluster;
}

/** One cluster's credentials: literal token, Secrets Manager (token or kubeconfig), or an EKS IAM token. */
export function createAccessSource(cluster: ClusterConfig, deps: AccessDeps): AccessSource {
  const { auth } = cluster;
  if ('eks' in auth) return eksAccess(cluster, auth.eks, deps);
  const base = {
    server: cluster.server ?? '',
    ...(cluster.caData === undefined ? {} : { caData: cluster.caData }),
  };
  if ('token' in auth) {
    const access = { ...base, token: auth.token };
    return { access: async () => access, invalidate: () => undefined };
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

type EksAuth = Extract<ClusterConfig['auth'], { eks: unknown }>['eks'];

/**
 * An EKS IAM token; the endpoint and CA the fleet leaves out come from DescribeCluster, asked once per cold
 * start (a failure is not kept: the next call asks again, within the cluster's retry policy).
 */
function eksAccess(cluster: ClusterConfig, eks: EksAuth, deps: AccessDeps): AccessSource {
  const role = eks.roleArn === undefined ? {} : { roleArn: eks.roleArn };
  const tokens = createEksTokenSource({
    clusterName: eks.clusterName,
    region: eks.region,
    credentials: deps.awsCredentials({ region: eks.region, ...role }),
    clock: deps.clock,
  });
  const given = {
    ...(cluster.server === undefined ? {} : { server: cluster.server }),
    ...(cluster.caData === undefined ? {} : { caData: cluster.caData }),
  };
  let where: Promise<Omit<ClusterAccess, 'token'>> | undefined;
  const locate = async (): Promise<Omit<ClusterAccess, 'token'>> => {
    if (given.server !== undefined && !needsEksDescribe(cluster)) return { ...given, server: given.server };
    if (deps.describeEks === undefined) {
      throw new Error(`cluster ${cluster.name}: no server, and no DescribeCluster to find it`);
    }
    const info = await deps.describeEks({ clusterName: eks.clusterName, region: eks.region, ...role });
    const caData = given.caData ?? info.caData;
    return { server: given.server ?? info.endpoint, ...(caData === undefined ? {} : { caData }) };
  };
  return {
    async access() {
      where ??= locate().catch((error: unknown) => {
        where = undefined;
        throw error;
      });
      const [location, token] = await Promise.all([where, tokens.token()]);
      return { ...location, token };
    },
    invalidate: tokens.invalidate,
  };
}
