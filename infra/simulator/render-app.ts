import { posix } from 'node:path';
import { argoCdFailsOn } from '../../lib/git/manifest-collect.js';
import { parseManifestFile } from '../../lib/git/manifest-parse.js';
import type { TreeSource } from '../../lib/git/manifest-types.js';
import type { ResolveRevision } from './argocd-controller.js';
import { kustomizeBuild } from './kustomize-lite.js';

type Obj = Record<string, unknown>;

/**
 * Canned `helm template` output for a Helm source: a repository path (read at the rendered revision), on
 * the Application. For a multi-source app, `<position>=<path>` pairs separated by `;`.
 */
export const HELM_OUTPUT_ANNOTATION = 'sim.gitops-sync.dev/helm-output';

export interface SimRenderDeps {
  /** The tree of a repository at a commit (the local bare repositories), or undefined. */
  readonly treeAt: (repoURL: string, sha: string) => Promise<TreeSource | undefined>;
  readonly resolveRevision: ResolveRevision;
}

export interface SimRendered {
  readonly manifests: Obj[];
  readonly revision?: string;
  readonly sourceType: string;
}

/** Why the simulated repo-server could not render (Argo CD answers these as a 500, gRPC `Unknown`). */
export class RenderFailure extends Error {
  constructor(
    message: string,
    readonly grpcCode = 2,
    readonly httpStatus = 500,
  ) {
    super(message);
  }
}

const FULL_SHA = /^[0-9a-f]{40}$/i;

/** Renders an Application the way repo-server would: each source at its (overridden) revision, concatenated. */
export async function renderApplication(
  app: Obj,
  revisions: ReadonlyMap<number, string>,
  deps: SimRenderDeps,
): Promise<SimRendered> {
  const spec = (app.spec ?? {}) as Obj;
  const multi = Array.isArray(spec.sources) && spec.sources.length > 0;
  const sources = (multi ? spec.sources : [spec.source]) as (Obj | undefined)[];
  const annotations = ((app.metadata as Obj | undefined)?.annotations ?? {}) as Record<string, string>;
  const manifests: Obj[] = [];
  let revision: string | undefined;
  let sourceType = 'Directory';
  for (const [i, source] of sources.entries()) {
    if (source === undefined) continue;
    if (typeof source.ref === 'string' && source.path === undefined && source.chart === undefined) continue;
    const repoURL = String(source.repoURL ?? '');
    const wanted = revisions.get(i + 1) ?? String(source.targetRevision ?? 'HEAD');
    const sha = FULL_SHA.test(wanted) ? wanted.toLowerCase() : await deps.resolveRevision(repoURL, wanted);
    const tree = sha === undefined ? undefined : await deps.treeAt(repoURL, sha);
    if (sha === undefined || tree === undefined) {
      throw new RenderFailure(`rpc error: unable to resolve '${wanted}' to a commit SHA`);
    }
    revision ??= sha;
    const path = String(source.path ?? '').replace(/^\/+|\/+$/g, '');
    const entries = (await tree.listDirectory(path)) ?? [];
    const has = (name: string) => entries.some((e) => e.type === 'blob' && e.name === name);
    let objects: Obj[];
    if (has('Chart.yaml')) {
      sourceType = 'Helm';
      const canned = cannedPath(annotations[HELM_OUTPUT_ANNOTATION], i + 1, multi);
      if (canned === undefined) {
        throw new RenderFailure(
          `helm template ${path}: the simulator renders no chart without ${HELM_OUTPUT_ANNOTATION}`,
        );
      }
      objects = [...parseManifestFile(await read(tree, canned)).objects];
    } else if (has('kustomization.yaml') || has('kustomization.yml') || has('Kustomization')) {
      sourceType = 'Kustomize';
      objects = await kustomizeBuild(tree, path).catch((error: unknown) => {
        throw new RenderFailure(`kustomize build ${path} failed: ${(error as Error).message}`);
      });
    } else {
      const recurse = (source.directory as Obj | undefined)?.recurse === true;
      objects = await plainDirectory(tree, path, recurse, path);
    }
    manifests.push(...objects.map((o) => tracked(hideSecretData(o), String(meta(app).name ?? ''))));
  }
  return { manifests, ...(revision === undefined ? {} : { revision }), sourceType };
}

function cannedPath(annotation: string | undefined, position: number, multi: boolean): string | undefined {
  if (annotation === undefined || annotation.trim() === '') return undefined;
  if (!multi || !annotation.includes('=')) return annotation.trim();
  const pair = annotation.split(';').find((p) => p.trim().startsWith(`${position}=`));
  return pair?.slice(pair.indexOf('=') + 1).trim();
}

async function plainDirectory(tree: TreeSource, dir: string, recurse: boolean, root: string): Promise<Obj[]> {
  const out: Obj[] = [];
  for (const entry of (await tree.listDirectory(dir)) ?? []) {
    const path = dir === '' ? entry.name : posix.join(dir, entry.name);
    if (entry.type === 'tree' && recurse) out.push(...(await plainDirectory(tree, path, recurse, root)));
    else if (entry.type === 'blob' && /\.(ya?ml|json)$/i.test(entry.name)) {
      const text = await read(tree, path);
      const parsed = parseManifestFile(text);
      const [failure] = parsed.failures;
      if (failure !== undefined && argoCdFailsOn(path, text, parsed.objects.length)) {
        // repo-server's findManifests: gRPC FailedPrecondition (HTTP 400), the path relative to the app's.
        const relative = root === '' ? path : posix.relative(root, path);
        const line = failure.line === undefined ? '' : ` line ${failure.line}:`;
        throw new RenderFailure(
          `Failed to unmarshal "${relative}": error converting YAML to JSON: yaml:${line} ${failure.message}`,
          9,
          400,
        );
      }
      out.push(...parsed.objects.filter((o) => typeof o.kind === 'string'));
    }
  }
  return out;
}

/** Argo CD's API masks Secret values (`HideSecretData`): keys stay, values become `+` runs. */
function hideSecretData(object: Obj): Obj {
  if (object.kind !== 'Secret' || object.apiVersion !== 'v1') return object;
  const data = {
    ...((object.data as Obj | undefined) ?? {}),
    ...((object.stringData as Obj | undefined) ?? {}),
  };
  const { stringData: _, ...rest } = object;
  return { ...rest, data: Object.fromEntries(Object.keys(data).map((k) => [k, '++++++++'])) };
}

/** The annotation tracking method (Argo CD 3's default) marks every object with its app. */
function tracked(object: Obj, app: string): Obj {
  const m = meta(object);
  const group = String(object.apiVersion ?? '').includes('/') ? String(object.apiVersion).split('/')[0] : '';
  const id = `${app}:${group}/${String(object.kind)}:${String(m.namespace ?? '')}/${String(m.name ?? '')}`;
  const annotations = { ...((m.annotations as Obj | undefined) ?? {}), 'argocd.argoproj.io/tracking-id': id };
  return { ...object, metadata: { ...m, annotations } };
}

async function read(tree: TreeSource, path: string): Promise<string> {
  const bytes = await tree.readFile(path);
  if (bytes === undefined) throw new RenderFailure(`${path}: no such file at this revision`);
  return Buffer.from(bytes).toString('utf8');
}

const meta = (object: Obj): Obj => (object.metadata as Obj | undefined) ?? {};
