import type { PinOwner } from './pin-owner.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const TRACKING_ID = 'argocd.argoproj.io/tracking-id';
const INSTANCE_LABEL = 'app.kubernetes.io/instance';

/**
 * Who would write an Application's spec back over a pin, found in the same listing: the ApplicationSet of
 * its `ownerReferences`, and the app-of-apps parent that tracks it (Argo CD's tracking annotation
 * `<app>:<group>/<kind>:<ns>/<name>`, else the `app.kubernetes.io/instance` label). An owner not in the
 * listing is not returned (nothing to judge it by).
 */
export function pinOwnersIn(objects: readonly { readonly kind: string; readonly raw: unknown }[]) {
  const byKey = new Map<string, PinOwner>();
  for (const { kind, raw } of objects) {
    if (kind !== 'ApplicationSet' && kind !== 'Application') continue;
    const meta = obj(obj(raw).metadata);
    const name = str(meta.name);
    if (name === undefined) continue;
    byKey.set(`${kind}/${str(meta.namespace) ?? ''}/${name}`, { kind, name, object: raw });
  }
  return (app: unknown): PinOwner[] => {
    const meta = obj(obj(app).metadata);
    const namespace = str(meta.namespace) ?? '';
    const owners: PinOwner[] = [];
    for (const ref of Array.isArray(meta.ownerReferences) ? meta.ownerReferences : []) {
      const reference = obj(ref);
      if (reference.kind !== 'ApplicationSet') continue;
      const owner = byKey.get(`ApplicationSet/${namespace}/${str(reference.name) ?? ''}`);
      if (owner !== undefined) owners.push(owner);
    }
    const annotations = obj(meta.annotations);
    const labels = obj(meta.labels);
    const tracked = str(annotations[TRACKING_ID])?.split(':')[0] ?? str(labels[INSTANCE_LABEL]);
    if (tracked !== undefined) {
      // Apps in any namespace are tracked as `<namespace>_<name>`.
      const [parentNs, parentName] = tracked.includes('_') ? tracked.split('_', 2) : [namespace, tracked];
      const parent = byKey.get(`Application/${parentNs}/${parentName}`);
      if (parent !== undefined && parent.name !== str(meta.name)) owners.push(parent);
    }
    return owners;
  };
}
