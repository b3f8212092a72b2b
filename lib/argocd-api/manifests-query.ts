import type { ManifestsQuery } from '../argocd/render-query.js';

export type { ManifestsQuery };

/** One rendered object; `path` says where it came from (`argocd:manifests[3]`), there is no file. */
export interface RenderedDocument {
  readonly path: string;
  readonly doc: Record<string, unknown>;
}

export interface RenderedManifests {
  readonly documents: readonly RenderedDocument[];
  /** The revision Argo CD resolved (single-source answers). */
  readonly revision?: string;
  readonly sourceType?: string;
}

/** The request URL under the fleet file's `argocdUrl` (which may carry a path, e.g. `/argocd`). */
export function manifestsUrl(base: string, query: ManifestsQuery): URL {
  const url = new URL(
    `${base.replace(/\/+$/, '')}/api/v1/applications/${encodeURIComponent(query.name)}/manifests`,
  );
  const params = url.searchParams;
  params.set('appNamespace', query.appNamespace);
  if (query.project !== undefined) params.set('project', query.project);
  if (query.sources !== undefined && query.sources.length > 0) {
    // grpc-gateway reads repeated fields from repeated keys, pairing them by order.
    for (const { position, revision } of query.sources) {
      params.append('sourcePositions', String(position));
      params.append('revisions', revision);
    }
  } else if (query.revision !== undefined) params.set('revision', query.revision);
  return url;
}

export class ManifestsAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestsAnswerError';
  }
}

/** Argo CD's `ManifestResponse`: `manifests` is a list of JSON strings, one object each. */
export function parseManifestsAnswer(body: string): RenderedManifests {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ManifestsAnswerError('the answer is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ManifestsAnswerError('the answer is not a ManifestResponse object');
  }
  const answer = value as Record<string, unknown>;
  const manifests = answer.manifests ?? [];
  if (!Array.isArray(manifests)) throw new ManifestsAnswerError('manifests is not a list');
  const documents = manifests.map((manifest, i): RenderedDocument => {
    const path = `argocd:manifests[${i}]`;
    if (typeof manifest !== 'string') throw new ManifestsAnswerError(`${path} is not a string`);
    let doc: unknown;
    try {
      doc = JSON.parse(manifest);
    } catch {
      throw new ManifestsAnswerError(`${path} is not a JSON object`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new ManifestsAnswerError(`${path} is not a JSON object`);
    }
    return { path, doc: doc as Record<string, unknown> };
  });
  return {
    documents,
    ...(typeof answer.revision === 'string' && answer.revision !== '' ? { revision: answer.revision } : {}),
    ...(typeof answer.sourceType === 'string' && answer.sourceType !== ''
      ? { sourceType: answer.sourceType }
      : {}),
  };
}

/** The `message` of a grpc-gateway error body (`{"error","code","message"}`), if there is one. */
export function errorBodyMessage(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { message?: unknown; error?: unknown };
    const message = typeof value.message === 'string' ? value.message : value.error;
    return typeof message === 'string' && message.trim() !== '' ? message.trim() : undefined;
  } catch {
    return undefined;
  }
}
