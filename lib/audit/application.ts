import { at, isRecord, list, record, stringList, text, type UnknownRecord } from './k8s-object.js';

export interface AutomatedPolicy {
  /** `automated.enabled: false` turns automation off while keeping the other fields. */
  readonly enabled: boolean;
  readonly prune: boolean;
  readonly selfHeal: boolean;
  /** Undefined when the field is not set (Argo CD then treats it as false). */
  readonly allowEmpty: boolean | undefined;
}

export interface ResourceStatus {
  readonly group: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly status?: string;
  readonly health?: string;
}

/** The fields of an Argo CD Application the rules read, normalised; the raw object is never trusted. */
export interface ApplicationView {
  readonly name: string;
  readonly namespace: string;
  readonly finalizers: readonly string[];
  /** `spec.project`, with Argo CD's own fallback: empty means `default`. */
  readonly project: string;
  readonly destination: { readonly server?: string; readonly name?: string; readonly namespace?: string };
  /** Undefined when there is no automated sync policy. */
  readonly automated?: AutomatedPolicy;
  readonly syncOptions: readonly string[];
  readonly ignoreDifferences: readonly UnknownRecord[];
  readonly multiSource: boolean;
  readonly sync: {
    readonly status?: string;
    readonly revision?: string;
    readonly revisions: readonly string[];
  };
  readonly health: { readonly status?: string; readonly message?: string };
  readonly operation?: {
    readonly phase?: string;
    readonly startedAt?: string;
    readonly finishedAt?: string;
    readonly message?: string;
    readonly retryCount?: number;
  };
  readonly resources: readonly ResourceStatus[];
}

export function readApplication(raw: unknown, fallbackNamespace: string): ApplicationView | undefined {
  const name = text(at(raw, 'metadata', 'name'));
  if (!isRecord(raw) || name === undefined) return undefined;
  const spec = record(raw.spec) ?? {};
  const status = record(raw.status) ?? {};
  const automatedRaw = at(spec, 'syncPolicy', 'automated');
  const operation = record(status.operationState);
  return {
    name,
    namespace: text(at(raw, 'metadata', 'namespace')) ?? fallbackNamespace,
    finalizers: stringList(at(raw, 'metadata', 'finalizers')),
    project: text(spec.project) ?? 'default',
    destination: definedOnly({
      server: text(at(spec, 'destination', 'server')),
      name: text(at(spec, 'destination', 'name')),
      namespace: text(at(spec, 'destination', 'namespace')),
    }),
    ...(isRecord(automatedRaw) ? { automated: readAutomated(automatedRaw) } : {}),
    syncOptions: stringList(at(spec, 'syncPolicy', 'syncOptions')).map((o) => o.trim()),
    ignoreDifferences: list(spec.ignoreDifferences).filter(isRecord),
    multiSource: list(spec.sources).length > 0,
    sync: {
      ...definedOnly({
        status: text(at(status, 'sync', 'status')),
        revision: text(at(status, 'sync', 'revision')),
      }),
      revisions: stringList(at(status, 'sync', 'revisions')),
    },
    health: definedOnly({
      status: text(at(status, 'health', 'status')),
      message: text(at(status, 'health', 'message')),
    }),
    ...(operation === undefined ? {} : { operation: readOperation(operation) }),
    resources: list(status.resources).flatMap(readResourceStatus),
  };
}

function readAutomated(automated: UnknownRecord): AutomatedPolicy {
  const allowEmpty = automated.allowEmpty;
  return {
    enabled: automated.enabled !== false,
    prune: automated.prune === true,
    selfHeal: automated.selfHeal === true,
    allowEmpty: typeof allowEmpty === 'boolean' ? allowEmpty : undefined,
  };
}

function readOperation(operation: UnknownRecord): NonNullable<ApplicationView['operation']> {
  const retryCount = operation.retryCount;
  return definedOnly({
    phase: text(operation.phase),
    startedAt: text(operation.startedAt),
    finishedAt: text(operation.finishedAt),
    message: text(operation.message),
    retryCount: typeof retryCount === 'number' ? retryCount : undefined,
  });
}

function readResourceStatus(value: unknown): ResourceStatus[] {
  const kind = text(at(value, 'kind'));
  const name = text(at(value, 'name'));
  if (kind === undefined || name === undefined) return [];
  return [
    {
      group: text(at(value, 'group')) ?? '',
      kind,
      name,
      ...definedOnly({
        namespace: text(at(value, 'namespace')),
        status: text(at(value, 'status')),
        health: text(at(value, 'health', 'status')),
      }),
    },
  ];
}

/** Drops undefined values, so optional properties are absent rather than undefined. */
export function definedOnly<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

export function automatedPrune(app: ApplicationView): boolean {
  return app.automated?.enabled === true && app.automated.prune;
}
