/** An RBAC PolicyRule, as in a Role/ClusterRole (`*` works as in Kubernetes). */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** Rules granted cluster-wide (no namespace) or within one namespace (a RoleBinding). */
export interface Grant {
  readonly namespace?: string;
  readonly rules: readonly PolicyRule[];
}

/** Who a bearer token is; without `grants` the token may do anything (a cluster admin). */
export interface TokenIdentity {
  readonly user: string;
  readonly grants?: readonly Grant[];
}

export interface AccessRequest {
  readonly verb: string;
  readonly group: string;
  /** Plural, with a subresource as `applications/status`. */
  readonly resource: string;
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
}

/** Bearer-token authentication and RBAC-style authorization, changeable at runtime. */
export class AccessControl {
  private readonly tokens = new Map<string, TokenIdentity>();

  constructor(tokens: Readonly<Record<string, TokenIdentity>> = {}) {
    for (const [token, identity] of Object.entries(tokens)) this.tokens.set(token, identity);
  }

  set(token: string, identity: TokenIdentity): void {
    this.tokens.set(token, identity);
  }

  revoke(token: string): void {
    this.tokens.delete(token);
  }

  authenticate(authorization: string | undefined): TokenIdentity | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    return match === null ? undefined : this.tokens.get(match[1] as string);
  }

  authorize(identity: TokenIdentity, request: AccessRequest): boolean {
    if (identity.grants === undefined) return true;
    return identity.grants.some(
      (grant) =>
        (grant.namespace === undefined || grant.namespace === request.namespace) &&
        grant.rules.some((rule) => allows(rule, request)),
    );
  }
}

function allows(rule: PolicyRule, request: AccessRequest): boolean {
  const names = rule.resourceNames ?? [];
  return (
    matches(rule.apiGroups, request.group) &&
    matches(rule.resources, request.resource) &&
    matches(rule.verbs, request.verb) &&
    (names.length === 0 || (request.name !== undefined && names.includes(request.name)))
  );
}

function matches(allowed: readonly string[], value: string): boolean {
  return allowed.includes('*') || allowed.includes(value);
}
