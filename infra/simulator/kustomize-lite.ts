import { posix } from 'node:path';
import { parse } from 'yaml';
import { KUSTOMIZATION_FILES } from '../../lib/git/kustomization.js';
import { parseManifestFile } from '../../lib/git/manifest-parse.js';
import type { TreeSource } from '../../lib/git/manifest-types.js';

type Obj = Record<string, unknown>;

/**
 * Enough of `kustomize build` for the simulator's repositories: `resources`/`bases`/`components` (files
 * and directories), `namespace`, `namePrefix`/`nameSuffix`, `commonLabels`, and `patches` /
 * `patchesStrategicMerge` / `patchesJson6902` (inline or from a file, with a kind/name target). It is a
 * simulator of what Argo CD would render, not a kustomize: generators and replacements are not done.
 */
export async function kustomizeBuild(tree: TreeSource, dir: string, depth = 0): Promise<Obj[]> {
  if (depth > 10) throw new Error(`kustomization nesting too deep at ${dir}`);
  const file = await kustomizationIn(tree, dir);
  if (file === undefined) throw new Error(`no kustomization in ${dir || '.'}`);
  const k = parsedOrFail(await text(tree, join(dir, file)), join(dir, file))[0] ?? {};
  let objects: Obj[] = [];
  for (const entry of [...list(k.resources), ...list(k.bases), ...list(k.components)]) {
    if (typeof entry !== 'string') continue;
    const path = posix.normalize(join(dir, entry));
    if ((await kustomizationIn(tree, path)) !== undefined)
      objects.push(...(await kustomizeBuild(tree, path, depth + 1)));
    else objects.push(...parsedOrFail(await text(tree, path), path));
  }
  for (const patch of [...list(k.patches), ...list(k.patchesJson6902), ...list(k.patchesStrategicMerge)]) {
    objects = await applyPatch(tree, dir, objects, patch);
  }
  return objects.map((o) => transform(o, k));
}

/** kustomize refuses a file that does not parse (`MalformedYAMLError: yaml: line 4: … in File: a.yaml`). */
function parsedOrFail(body: string, path: string): Obj[] {
  const parsed = parseManifestFile(body);
  const [failure] = parsed.failures;
  if (failure === undefined) return [...parsed.objects];
  const line = failure.line === undefined ? '' : ` line ${failure.line}:`;
  throw new Error(`MalformedYAMLError: yaml:${line} ${failure.message} in File: ${path}`);
}

async function applyPatch(tree: TreeSource, dir: string, objects: Obj[], patch: unknown): Promise<Obj[]> {
  const spec: Obj = typeof patch === 'string' ? { path: patch } : ((patch as Obj) ?? {});
  const body =
    typeof spec.patch === 'string'
      ? spec.patch
      : typeof spec.path === 'string'
        ? await text(tree, join(dir, spec.path))
        : '';
  const target = (spec.target as Obj | undefined) ?? undefined;
  const ops = asOps(body);
  const parsed = ops === undefined ? parseManifestFile(body).objects : [];
  return objects.map((object) => {
    if (ops !== undefined)
      return target !== undefined && matches(object, target) ? jsonPatch(object, ops) : object;
    const merge = parsed.find((p) => matches(object, { kind: p.kind, name: meta(p).name }));
    if (target !== undefined && !matches(object, target)) return object;
    return merge === undefined ? object : (strategicMerge(object, merge) as Obj);
  });
}

/** A JSON6902 patch, as a YAML or JSON list (`- op: replace …`). */
function asOps(body: string): Obj[] | undefined {
  const trimmed = body.trim();
  if (!trimmed.startsWith('-') && !trimmed.startsWith('[')) return undefined;
  const value = parse(body) as unknown;
  return Array.isArray(value) ? (value as Obj[]) : undefined;
}

function jsonPatch(object: Obj, ops: readonly Obj[]): Obj {
  const copy = structuredClone(object);
  for (const op of ops) {
    const path = String(op.path ?? '')
      .split('/')
      .slice(1)
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = path.pop();
    if (last === undefined) continue;
    let at: unknown = copy;
    for (const part of path) at = (at as Obj)?.[part];
    if (typeof at !== 'object' || at === null) continue;
    const parent = at as Obj & unknown[];
    if (op.op === 'remove') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (op.op === 'add' && Array.isArray(parent)) {
      parent.splice(last === '-' ? parent.length : Number(last), 0, op.value);
    } else if (op.op === 'add' || op.op === 'replace') parent[last] = structuredClone(op.value);
  }
  return copy;
}

/** Maps merge key by key; lists of named maps (containers, env) merge by `name`; other lists replace. */
function strategicMerge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(patch)) {
    if (!patch.every((p) => typeof (p as Obj)?.name === 'string')) return structuredClone(patch);
    const out = structuredClone(base) as Obj[];
    for (const item of patch as Obj[]) {
      const i = out.findIndex((b) => b?.name === item.name);
      if (i < 0) out.push(structuredClone(item));
      else out[i] = strategicMerge(out[i], item) as Obj;
    }
    return out;
  }
  if (isObj(base) && isObj(patch)) {
    const out: Obj = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete out[key];
      else out[key] = key in base ? strategicMerge(base[key], value) : structuredClone(value);
    }
    return out;
  }
  return structuredClone(patch);
}

function transform(object: Obj, k: Obj): Obj {
  const m = { ...meta(object) };
  if (typeof m.name === 'string') m.name = `${str(k.namePrefix)}${m.name}${str(k.nameSuffix)}`;
  if (typeof k.namespace === 'string' && object.kind !== 'Namespace') m.namespace = k.namespace;
  if (isObj(k.commonLabels)) m.labels = { ...(m.labels as Obj | undefined), ...k.commonLabels };
  return { ...object, metadata: m };
}

function matches(object: Obj, target: Obj): boolean {
  if (typeof target.kind === 'string' && target.kind !== object.kind) return false;
  if (typeof target.name === 'string' && target.name !== meta(object).name) return false;
  return true;
}

async function kustomizationIn(tree: TreeSource, dir: string): Promise<string | undefined> {
  const entries = await tree.listDirectory(dir);
  return KUSTOMIZATION_FILES.find((name) => entries?.some((e) => e.type === 'blob' && e.name === name));
}

async function text(tree: TreeSource, path: string): Promise<string> {
  const bytes = await tree.readFile(path);
  if (bytes === undefined) throw new Error(`${path}: no such file`);
  return Buffer.from(bytes).toString('utf8');
}

const join = (dir: string, name: string) => (dir === '' ? name : posix.join(dir, name));
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const meta = (object: Obj): Obj => (isObj(object.metadata) ? object.metadata : {});
const str = (value: unknown) => (typeof value === 'string' ? value : '');
