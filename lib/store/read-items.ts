import type { NativeItem } from './document-client.js';

/**
 * The stored item each app a read returned was made from (`listApps` in rollout-items.ts), kept beside the
 * returned objects and dropped with them: a lease holder whose lease tells no one wrote since that read
 * batches its changes from these items instead of reading the cluster's apps again (app-transitions.ts).
 */
const itemsOf = new WeakMap<object, NativeItem>();

/** `apps`, each remembered as made from the item at the same place in `items`. */
export function rememberItems<T extends object>(apps: T[], items: readonly NativeItem[]): T[] {
  apps.forEach((app, i) => {
    const item = items[i];
    if (item !== undefined) itemsOf.set(app, item);
  });
  return apps;
}

/** The items `apps` were made from, or undefined when one of them is not known (not from a read). */
export function itemsRead(apps: readonly object[]): readonly NativeItem[] | undefined {
  const items: NativeItem[] = [];
  for (const app of apps) {
    const item = itemsOf.get(app);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return items;
}
