import { floatingTag } from '../image-ref.js';
import { at, list, subjectOf, text } from '../k8s-object.js';
import type { ManifestObject } from '../manifests.js';
import { type AuditRule, capped, draft } from '../rule.js';

/** Where each workload kind keeps its pod spec. */
const POD_SPEC_PATHS: Readonly<Record<string, { group: string; path: readonly string[] }>> = {
  Deployment: { group: 'apps', path: ['spec', 'template', 'spec'] },
  StatefulSet: { group: 'apps', path: ['spec', 'template', 'spec'] },
  DaemonSet: { group: 'apps', path: ['spec', 'template', 'spec'] },
  ReplicaSet: { group: 'apps', path: ['spec', 'template', 'spec'] },
  Job: { group: 'batch', path: ['spec', 'template', 'spec'] },
  CronJob: { group: 'batch', path: ['spec', 'jobTemplate', 'spec', 'template', 'spec'] },
  Pod: { group: '', path: ['spec'] },
};

export const floatingImageTagRule: AuditRule = {
  id: 'floating-image-tag',
  severity: 'medium',
  title: 'Container image with a floating tag',
  docs: 'Pin every image to an immutable version tag or, better, a digest (image:1.4.2@sha256:…), so a sync deploys what was reviewed.',
  needs: ['manifests'],
  check(context) {
    const { objects, options } = context;
    return objects.flatMap((workload) => {
      const floating = floatingImages(workload);
      if (floating.length === 0) return [];
      const shown = capped(floating, options.maxEvidenceItems);
      const first = floating[0];
      return [
        draft(floatingImageTagRule, context, {
          subject: subjectOf(workload),
          message: `${workload.kind} ${workload.name} runs ${floating.length} image(s) without a pinned tag, e.g. ${first?.image} (${first?.reason})`,
          evidence: {
            path: workload.path,
            containers: shown.items.map((c) => ({ ...c })),
            ...(shown.more > 0 ? { moreContainers: shown.more } : {}),
          },
        }),
      ];
    });
  },
};

function floatingImages(workload: ManifestObject): { container: string; image: string; reason: string }[] {
  const where = POD_SPEC_PATHS[workload.kind];
  if (where === undefined || where.group !== workload.group) return [];
  const podSpec = at(workload.raw, ...where.path);
  return (['initContainers', 'containers'] as const).flatMap((field) =>
    list(at(podSpec, field)).flatMap((container) => {
      const image = text(at(container, 'image'));
      const reason = image === undefined ? undefined : floatingTag(image);
      if (image === undefined || reason === undefined) return [];
      return [{ container: `${field}/${text(at(container, 'name')) ?? '?'}`, image, reason }];
    }),
  );
}
