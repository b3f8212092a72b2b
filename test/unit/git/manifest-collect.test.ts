import { describe, expect, it } from 'vitest';
import { collectManifests } from '../../../lib/git/manifest-collect.js';
import {
  MAX_KUSTOMIZATION_BYTES,
  MAX_KUSTOMIZATION_ENTRIES,
  type TreeSource,
} from '../../../lib/git/manifest-types.js';
import { memoryTree } from '../../helpers/git.js';

const obj = (kind: string, name: string) => `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
const names = (set: Awaited<ReturnType<typeof collectManifests>>) =>
  set.documents.map((d) => `${d.path}#${(d.doc.metadata as { name: string }).name}`);

describe('collectManifests on a plain directory', () => {
  const tree = memoryTree({
    'apps/web/deploy.yaml': obj('Deployment', 'web'),
    'apps/web/svc.yml': obj('Service', 'web'),
    'apps/web/extra.json': '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}',
    'apps/web/README.md': '# not a manifest',
    'apps/web/sub/es.yaml': obj('ExternalSecret', 'db'),
    'apps/webhooks/other.yaml': obj('Deployment', 'hooks'),
  });

  it('reads .yaml, .yml and .json files, recursively by default, and nothing beside the path', async () => {
    const set = await collectManifests(tree, { path: 'apps/web' });
    expect(names(set)).toEqual([
      'apps/web/deploy.yaml#web',
      'apps/web/extra.json#cm',
      'apps/web/sub/es.yaml#db',
      'apps/web/svc.yml#web',
    ]);
    expect(set).toMatchObject({ notRendered: false, errors: [], skipped: [] });
    expect(set.limitReached).toBeUndefined();
  });

  it('stays in the top directory when recurse is off, as Argo CD does by default', async () => {
    const set = await collectManifests(tree, { path: 'apps/web', recurse: false });
    expect(names(set)).not.toContain('apps/web/sub/es.yaml#db');
    expect(set.documents).toHaveLength(3);
  });

  it.each([
    ['a leading slash', '/apps/web/'],
    ['a ./ prefix', './apps/web'],
  ])('accepts a path with %s', async (_name, path) => {
    expect((await collectManifests(tree, { path })).documents).toHaveLength(4);
  });

  it('records a path that does not exist at the commit', async () => {
    const set = await collectManifests(tree, { path: 'apps/gone' });
    expect(set.documents).toEqual([]);
    expect(set.errors).toEqual([{ path: 'apps/gone', message: 'no such directory at this commit' }]);
  });

  it('refuses a source path that climbs out of the repository', async () => {
    const set = await collectManifests(tree, { path: '../outside' });
    expect(set.errors).toEqual([{ path: '../outside', message: 'path is outside the repository' }]);
  });

  it('does not follow a symlink', async () => {
    const set = await collectManifests(memoryTree({ 'a/x.yaml': { symlink: '/etc/passwd' } }), { path: 'a' });
    expect(set.documents).toEqual([]);
    expect(set.skipped).toEqual([{ path: 'a/x.yaml', message: 'symlink not followed' }]);
  });

  it('records a parse error per file and keeps reading the others', async () => {
    const set = await collectManifests(
      memoryTree({ 'a/bad.yaml': 'a: b\n  c: d\n', 'a/good.yaml': obj('ConfigMap', 'ok') }),
      { path: 'a' },
    );
    expect(names(set)).toEqual(['a/good.yaml#ok']);
    expect(set.errors.map((e) => e.path)).toEqual(['a/bad.yaml']);
  });
});

describe('collectManifests on a Kustomize tree', () => {
  const tree = memoryTree({
    'apps/web/overlays/prod/kustomization.yaml': [
      'resources:',
      '- ../../base',
      '- es.yaml',
      '- ../../../../shared/secret-store.yaml',
      '- ../../../../../etc/passwd',
      '- /abs/path.yaml',
      '- https://github.com/org/remote//base?ref=v1',
      '- github.com/org/other/base?ref=v2',
      'patches:',
      '- path: patch.yaml',
    ].join('\n'),
    'apps/web/overlays/prod/es.yaml': obj('ExternalSecret', 'prod-db'),
    'apps/web/overlays/prod/patch.yaml': obj('Deployment', 'patched'),
    'apps/web/overlays/prod/unlisted.yaml': obj('ConfigMap', 'unlisted'),
    'apps/web/base/Kustomization': 'resources: [deploy.yaml]\ncomponents: [../../../components/metrics]\n',
    'apps/web/base/deploy.yaml': obj('Deployment', 'web'),
    'components/metrics/kustomization.yml': 'kind: Component\nresources: [sm.yaml]\n',
    'components/metrics/sm.yaml': obj('ServiceMonitor', 'web'),
    'shared/secret-store.yaml': obj('SecretStore', 'aws'),
  });

  it('follows resources, bases and components within the repository, including ../', async () => {
    const set = await collectManifests(tree, { path: 'apps/web/overlays/prod' });
    expect(names(set)).toEqual([
      'apps/web/base/deploy.yaml#web',
      'components/metrics/sm.yaml#web',
      'apps/web/overlays/prod/es.yaml#prod-db',
      'shared/secret-store.yaml#aws',
    ]);
  });

  it('records an escape from the repository, an absolute path and remote bases as skipped, reading none', async () => {
    const set = await collectManifests(tree, { path: 'apps/web/overlays/prod' });
    expect(set.skipped).toEqual([
      { path: '../../../../../etc/passwd', message: 'outside the repository' },
      { path: '/abs/path.yaml', message: 'outside the repository' },
      { path: 'https://github.com/org/remote//base?ref=v1', message: 'remote resource not fetched' },
      { path: 'github.com/org/other/base?ref=v2', message: 'remote resource not fetched' },
    ]);
    expect(tree.reads).not.toContain('etc/passwd');
    expect(set.errors).toEqual([]);
  });

  it('reads no file the kustomization does not list (patches, unlisted files)', async () => {
    const set = await collectManifests(tree, { path: 'apps/web/overlays/prod' });
    expect(names(set)).not.toContain('apps/web/overlays/prod/patch.yaml#patched');
    expect(names(set)).not.toContain('apps/web/overlays/prod/unlisted.yaml#unlisted');
  });

  it('stops at a cycle of kustomizations instead of looping', async () => {
    const cyclic = memoryTree({
      'a/kustomization.yaml': 'resources: [../b, x.yaml]\n',
      'a/x.yaml': obj('ConfigMap', 'x'),
      'b/kustomization.yaml': 'resources: [../a]\n',
    });
    expect(names(await collectManifests(cyclic, { path: 'a' }))).toEqual(['a/x.yaml#x']);
  });

  it('records a missing resource and a directory resource without a kustomization', async () => {
    const broken = memoryTree({
      'k/kustomization.yaml': 'resources: [gone.yaml, plain]\n',
      'k/plain/x.yaml': obj('ConfigMap', 'x'),
    });
    const set = await collectManifests(broken, { path: 'k' });
    expect(set.errors).toEqual([
      { path: 'k/gone.yaml', message: 'resource gone.yaml not found' },
      { path: 'k/plain', message: 'directory resource without a kustomization' },
    ]);
  });
});

describe('collectManifests on Helm', () => {
  it('marks a chart not rendered and parses none of its templates', async () => {
    const chart = memoryTree({
      'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
      'charts/web/values.yaml': 'image: nginx\n',
      'charts/web/templates/es.yaml': 'kind: ExternalSecret\nmetadata:\n  name: {{ .Values.name }}\n',
    });
    const set = await collectManifests(chart, { path: 'charts/web' });
    expect(set).toEqual({ documents: [], notRendered: true, errors: [], skipped: [] });
    expect(chart.reads).toEqual([]);
  });

  it('marks a kustomization that inflates helmCharts not rendered but keeps its plain resources', async () => {
    const set = await collectManifests(
      memoryTree({
        'k/kustomization.yaml': 'resources: [cm.yaml]\nhelmCharts:\n- name: redis\n',
        'k/cm.yaml': obj('ConfigMap', 'c'),
      }),
      { path: 'k' },
    );
    expect(set.notRendered).toBe(true);
    expect(names(set)).toEqual(['k/cm.yaml#c']);
  });
});

describe('collectManifests bounds', () => {
  const many = memoryTree(
    Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`m/f${i}.yaml`, obj('ConfigMap', `c${i}`)])),
  );

  it('stops at the file bound and says so', async () => {
    const set = await collectManifests(many, { path: 'm' }, { maxFiles: 3, maxBytes: 1_000_000 });
    expect(set.documents).toHaveLength(3);
    expect(set.limitReached).toBe('files');
    expect(many.reads.filter((path) => path.startsWith('m/'))).toHaveLength(3);
  });

  it('stops at the byte bound and says so, keeping only whole files', async () => {
    const size = Buffer.byteLength(obj('ConfigMap', 'c0'));
    const set = await collectManifests(many, { path: 'm' }, { maxFiles: 100, maxBytes: size * 2 + 1 });
    expect(set.documents).toHaveLength(2);
    expect(set.limitReached).toBe('bytes');
  });
});

/** Counts every lookup the collector makes on a tree. */
function counting(tree: TreeSource): TreeSource & { lookups: () => number } {
  let lookups = 0;
  return {
    listDirectory: (path) => {
      lookups++;
      return tree.listDirectory(path);
    },
    readFile: (path) => {
      lookups++;
      return tree.readFile(path);
    },
    lookups: () => lookups,
  };
}

describe('collectManifests bounds on entries, lookups, problems and time', () => {
  const listing = (count: number, prefix = 'missing') =>
    `resources:\n${Array.from({ length: count }, (_, i) => `- ${prefix}-${i}.yaml\n`).join('')}`;

  it('refuses a kustomization of 200k missing entries by its size, before parsing or any lookup', async () => {
    const text = listing(200_000);
    const tree = counting(memoryTree({ 'k/kustomization.yaml': text }));
    const set = await collectManifests(tree, { path: 'k' });
    expect(set.limitReached).toBe('entries');
    expect(set.limitMessage).toBe(
      `too many entries: more than ${MAX_KUSTOMIZATION_ENTRIES} kustomization entries`,
    );
    expect(set.errors.map((e) => e.message)).toEqual([
      `too many entries: the file is ${Buffer.byteLength(text)} bytes (limit ${MAX_KUSTOMIZATION_BYTES})`,
      `reading stopped: ${set.limitMessage}`,
    ]);
    expect(tree.lookups()).toBe(2); // the root listing and the kustomization file
  });

  it('refuses a kustomization listing more entries than the bound, without looking any of them up', async () => {
    const tree = counting(memoryTree({ 'k/kustomization.yaml': listing(MAX_KUSTOMIZATION_ENTRIES + 1) }));
    const set = await collectManifests(tree, { path: 'k' });
    expect(set.limitReached).toBe('entries');
    expect(set.errors[0]?.message).toBe(`too many entries: ${MAX_KUSTOMIZATION_ENTRIES + 1} listed`);
    expect(tree.lookups()).toBe(2);
  });

  it('counts entries over nested kustomizations together', async () => {
    const tree = memoryTree({
      'k/kustomization.yaml': 'resources: [a, b]\n',
      'k/a/kustomization.yaml': listing(6, 'a'),
      'k/b/kustomization.yaml': listing(6, 'b'),
    });
    const set = await collectManifests(tree, { path: 'k' }, { maxEntries: 10 });
    expect(set.limitReached).toBe('entries');
    expect(set.errors.filter((e) => e.message.endsWith('not found'))).toHaveLength(6);
  });

  it('stops at the lookup bound in a tree of many empty directories', async () => {
    const files = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d/s${i}/README.md`, 'x']));
    const tree = counting(memoryTree(files));
    const set = await collectManifests(tree, { path: 'd' }, { maxLookups: 50 });
    expect(set.limitReached).toBe('lookups');
    expect(tree.lookups()).toBe(51); // the root listing plus the 50 the budget allows
  });

  it('stops at the time bound, read from the injected clock', async () => {
    let now = 0;
    const tree = memoryTree(
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`m/f${i}.yaml`, obj('ConfigMap', `c${i}`)])),
    );
    const ticking: TreeSource = {
      listDirectory: (path) => tree.listDirectory(path),
      readFile: (path) => {
        now += 1000;
        return tree.readFile(path);
      },
    };
    const set = await collectManifests(ticking, { path: 'm' }, { maxMillis: 5000 }, () => now);
    expect(set.limitReached).toBe('time');
    expect(set.documents).toHaveLength(4); // read at t = 1000…4000; the fifth read reaches t = 5000
  });

  it('keeps at most maxProblems problems and counts the rest', async () => {
    const entries = Array.from({ length: 30 }, (_, i) => `- gone-${i}.yaml\n`).join('');
    const set = await collectManifests(
      memoryTree({ 'k/kustomization.yaml': `resources:\n${entries}` }),
      { path: 'k' },
      { maxProblems: 10 },
    );
    expect(set.limitReached).toBeUndefined();
    expect(set.errors).toHaveLength(11);
    expect(set.errors.at(-1)?.message).toBe('and 20 more problems');
  });
});
