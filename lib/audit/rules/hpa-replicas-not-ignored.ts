import { type IgnoreTarget, replicasCoverage } from '../ignore-differences.js';
import { at, groupOf, type K8sObject, readObject, subjectOf, text } from '../k8s-object.js';
import { type AuditContext, type AuditRule, capped, draft } from '../rule.js';
import { hasOption } from '../sync-options.js';

const SCALED_KINDS = ['Deployment', 'StatefulSet'] as const;

export const hpaReplicasNotIgnoredRule: AuditRule = {
  id: 'hpa-replicas-not-ignored',
  severity: 'medium',
  title: 'Autoscaled workload whose replicas Argo CD also sets',
  docs: 'Remove spec.replicas from the manifest, or add ignoreDifferences (jsonPointers: [/spec/replicas]) for the workload together with the RespectIgnoreDifferences=true sync option.',
  needs: ['manifests'],
  check(context) {
    const { app, objects, input, options } = context;
    const scalers = autoscalers(context);
    const entries = [
      ...app.ignoreDifferences.map((entry) => ({ source: 'application' as const, entry })),
      ...(input.systemIgnoreDifferences ?? []).map((entry) => ({ source: 'system' as const, entry })),
    ];
    const respected = hasOption(app.syncOptions, 'RespectIgnoreDifferences=true');
    return objects.flatMap((workload) => {
      if (workload.group !== 'apps' || !(SCALED_KINDS as readonly string[]).includes(workload.kind))
        return [];
      const by = scalers.filter((s) => targets(s.target, workload));
      // No replicas in Git means Argo CD has nothing to set: the autoscaler owns the field alone.
      const replicas = at(workload.raw, 'spec', 'replicas');
      if (by.length === 0 || replicas === undefined || replicas === null) return [];
      const coverage = replicasCoverage(entries, workload);
      if (coverage !== undefined && respected) return [];
      const scaledBy = capped(
        by.map((s) => `${subjectOf(s.object)} (${s.origin})`),
        options.maxEvidenceItems,
      ).items;
      const evidence = {
        path: workload.path,
        'spec.replicas': typeof replicas === 'number' ? replicas : String(replicas),
        scaledBy,
        ignoreDifferences:
          coverage === undefined ? null : `${coverage.source} ${coverage.field}: ${coverage.value}`,
        respectIgnoreDifferences: respected,
        selfHeal: app.automated?.selfHeal ?? false,
      };
      if (coverage !== undefined) {
        return [
          draft(hpaReplicasNotIgnoredRule, context, {
            subject: subjectOf(workload),
            severity: 'low',
            message: `${workload.kind} ${workload.name} is autoscaled and /spec/replicas is ignored for diffing, but without RespectIgnoreDifferences=true every sync still applies replicas: ${evidence['spec.replicas']} from Git`,
            evidence,
          }),
        ];
      }
      return [
        draft(hpaReplicasNotIgnoredRule, context, {
          subject: subjectOf(workload),
          severity: app.automated?.selfHeal === true ? 'high' : 'medium',
          message: `${workload.kind} ${workload.name} is autoscaled by ${by[0]?.object.kind ?? 'an autoscaler'} but Git sets replicas: ${evidence['spec.replicas']} and /spec/replicas is not in ignoreDifferences: Argo CD and the autoscaler fight over it`,
          evidence,
        }),
      ];
    });
  },
};

interface Autoscaler {
  readonly object: K8sObject;
  readonly origin: 'manifest' | 'live';
  readonly target: IgnoreTarget;
}

/** HPAs and KEDA ScaledObjects from the manifests and, when read, the destination cluster. */
function autoscalers(context: AuditContext): Autoscaler[] {
  const seen = new Set<string>();
  const out: Autoscaler[] = [];
  const add = (object: K8sObject | undefined, origin: Autoscaler['origin']): void => {
    if (object === undefined) return;
    const target = scaleTarget(object);
    const key = subjectOf(object);
    if (target === undefined || seen.has(key)) return;
    seen.add(key);
    out.push({ object, origin, target });
  };
  for (const object of context.objects) add(object, 'manifest');
  for (const raw of context.input.liveObjects ?? []) add(readObject(raw), 'live');
  return out;
}

function scaleTarget(object: K8sObject): IgnoreTarget | undefined {
  const ref = at(object.raw, 'spec', 'scaleTargetRef');
  const name = text(at(ref, 'name'));
  if (name === undefined) return undefined;
  const namespace = object.namespace === undefined ? {} : { namespace: object.namespace };
  if (object.group === 'autoscaling' && object.kind === 'HorizontalPodAutoscaler') {
    const kind = text(at(ref, 'kind'));
    if (kind === undefined) return undefined;
    // apiVersion is optional in autoscaling/v1; the kinds this rule cares about live in apps.
    return { group: groupOf(text(at(ref, 'apiVersion')) ?? 'apps/v1'), kind, name, ...namespace };
  }
  if (object.group === 'keda.sh' && object.kind === 'ScaledObject') {
    // KEDA defaults: apiVersion apps/v1, kind Deployment (ScaledObject spec).
    const kind = text(at(ref, 'kind')) ?? 'Deployment';
    return { group: groupOf(text(at(ref, 'apiVersion')) ?? 'apps/v1'), kind, name, ...namespace };
  }
  return undefined;
}

function targets(target: IgnoreTarget, workload: K8sObject): boolean {
  if (target.kind !== workload.kind || target.name !== workload.name || target.group !== 'apps') return false;
  return (
    target.namespace === undefined ||
    workload.namespace === undefined ||
    target.namespace === workload.namespace
  );
}
