import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import type { AuditInput, ManifestDoc } from '../../../lib/audit/types.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/audit/', import.meta.url));

/**
 * Reads `test/fixtures/audit/<name>.yaml` into an AuditInput. Manifests are written as files of YAML
 * text and parsed document by document, as the Git reader hands them over.
 */
export function loadFixture(name: string): AuditInput {
  const raw = parse(readFileSync(`${FIXTURES}${name}.yaml`, 'utf8')) as Record<string, unknown>;
  const { now, manifests, ...rest } = raw;
  const input = { ...rest, now: new Date(String(now)) } as unknown as AuditInput;
  if (manifests === undefined) return input;
  const { files, ...flags } = manifests as { files?: Record<string, string> };
  return { ...input, manifests: { ...flags, docs: parseFiles(files ?? {}) } };
}

export function parseFiles(files: Readonly<Record<string, string>>): ManifestDoc[] {
  return Object.entries(files).flatMap(([path, body]) =>
    parseAllDocuments(body).flatMap((doc) => ('toJS' in doc ? [{ path, doc: doc.toJS() as unknown }] : [])),
  );
}

/** A minimal valid Application for inline cases; `spec`/`status`/`metadata` are merged over it. */
export function application(
  overrides: { metadata?: object; spec?: object; status?: object } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'argocd', ...overrides.metadata },
    spec: {
      project: 'shop',
      destination: { server: 'https://spoke-eu.example:6443', namespace: 'shop' },
      ...overrides.spec,
    },
    status: { sync: { status: 'Synced' }, health: { status: 'Healthy' }, ...overrides.status },
  };
}

export const NOW = new Date('2026-08-01T12:00:00Z');

export function input(overrides: Partial<AuditInput> & { application?: unknown } = {}): AuditInput {
  return { cluster: 'hub-eu', application: application(), now: NOW, ...overrides };
}

/** Manifests from inline objects, each in its own file. */
export function manifests(...docs: readonly Record<string, unknown>[]): NonNullable<AuditInput['manifests']> {
  return { docs: docs.map((doc, i) => ({ path: `apps/web/${i}.yaml`, doc })) };
}
