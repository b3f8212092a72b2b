import { KubeStatusError } from './kube-status.js';
import type { StoredObject } from './resource-store.js';

type Requirement =
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] }
  | { readonly key: string; readonly op: 'exists' | '!exists' };

/** A label selector (`a=b,c!=d,e in (x,y),f notin (z),g,!h`) as a predicate over labels. */
export function parseLabelSelector(
  selector: string | null | undefined,
): (labels: Record<string, string> | undefined) => boolean {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true;
  const requirements = splitTopLevel(selector).map(parseRequirement);
  return (labels = {}) =>
    requirements.every((r) => {
      const has = Object.hasOwn(labels, r.key);
      switch (r.op) {
        case 'exists':
          return has;
        case '!exists':
          return !has;
        case 'in':
          return has && r.values.includes(labels[r.key] as string);
        default:
          return !has || !r.values.includes(labels[r.key] as string);
      }
    });
}

/** `metadata.name=x,metadata.namespace!=y`: the field selectors every resource supports. */
export function parseFieldSelector(selector: string | null | undefined): (object: StoredObject) => boolean {
  if (selector === null || selector === undefined || selector.trim() === '') return () => true;
  const checks = selector.split(',').map((part) => {
    const match = /^\s*(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (match === null) throw new KubeStatusError(400, `field label not supported: ${part.split(/[=!]/)[0]}`);
    const [, field, op, value] = match;
    return (object: StoredObject) => {
      const actual = field === 'metadata.name' ? object.metadata.name : (object.metadata.namespace ?? '');
      return op === '!=' ? actual !== value : actual === value;
    };
  });
  return (object) => checks.every((check) => check(object));
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function parseRequirement(text: string): Requirement {
  const set = /^([\w./-]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set !== null) {
    const values = (set[3] as string).split(',').map((v) => v.trim());
    return { key: set[1] as string, op: set[2] as 'in' | 'notin', values };
  }
  const equality = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(text);
  if (equality !== null) {
    const op = equality[2] === '!=' ? 'notin' : 'in';
    return { key: equality[1] as string, op, values: [equality[3] as string] };
  }
  const exists = /^(!?)([\w./-]+)$/.exec(text);
  if (exists !== null) return { key: exists[2] as string, op: exists[1] === '!' ? '!exists' : 'exists' };
  throw new KubeStatusError(400, `unable to parse requirement: ${text}`);
}
