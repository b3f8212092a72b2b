import type { K8sObject } from './k8s-object.js';

export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

/** The annotation is comma-separated with whitespace trimmed; items compare exactly (gitops-engine). */
export function annotationOptions(object: Pick<K8sObject, 'annotations'>): readonly string[] {
  const value = object.annotations[SYNC_OPTIONS_ANNOTATION];
  if (value === undefined) return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function hasOption(options: readonly string[], option: string): boolean {
  return options.includes(option);
}

/** The value of `Name=value` among the options (resource-level first, then app-level), if any. */
export function optionValue(name: string, ...sources: readonly (readonly string[])[]): string | undefined {
  for (const options of sources) {
    for (const item of options) {
      if (item.startsWith(`${name}=`)) return item.slice(name.length + 1);
    }
  }
  return undefined;
}
