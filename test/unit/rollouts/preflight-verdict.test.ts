import { describe, expect, it } from 'vitest';
import { renderRolloutMessage } from '../../../lib/notify/rollout-message.js';
import type { SlackBlock } from '../../../lib/notify/types.js';
import type { AppRecord } from '../../../lib/rollouts/app-model.js';
import { describeBlock, preflightNote } from '../../../lib/rollouts/preflight-verdict.js';
import type { Rollout } from '../../../lib/rollouts/rollout-model.js';
import type { SecretCheck } from '../../../lib/secrets/secret-check.js';
import { unparseableCheck } from '../../../lib/secrets/unparseable.js';
import { renderRolloutPage } from '../../../lib/ui/rollout-page.js';
import { appRecord, rolloutSnapshot } from '../../helpers/slack.js';

const helm: SecretCheck = {
  externalSecret: '(helm)',
  field: 'manifests',
  outcome: 'not-rendered',
  message: 'Helm chart templates are not rendered; their ExternalSecrets were not checked: no Argo CD API',
};
const broken = unparseableCheck({ path: 'apps/web/deploy.yaml', message: 'BAD_INDENT', line: 7, column: 1 });

const blockText = (b: SlackBlock) =>
  b.type === 'divider' ? '' : b.type === 'context' ? b.elements.map((e) => e.text).join(' ') : b.text.text;

describe('the preflight verdict on the app record', () => {
  it('is warn with the reason for a Helm app that was not rendered', () => {
    expect(preflightNote({ verdict: 'warn', checks: [helm] })).toEqual({
      verdict: 'warn',
      reasons: [helm.message],
    });
  });

  it('is warn naming file and line for a manifest that does not parse', () => {
    const note = preflightNote({ verdict: 'warn', checks: [{ ...broken, blocking: false }] });
    expect(note.verdict).toBe('warn');
    expect(note.reasons[0]).toContain('apps/web/deploy.yaml:7:1');
  });

  it('is block naming file and line when the policy blocks on it', () => {
    const verdict = { verdict: 'block' as const, checks: [{ ...broken, blocking: true }] };
    expect(describeBlock(verdict)).toBe('apps/web/deploy.yaml:7:1: unparseable');
    expect(preflightNote(verdict)).toEqual({
      verdict: 'block',
      reasons: ['apps/web/deploy.yaml:7:1: unparseable'],
    });
  });

  it('is pass with no reasons when every check is ok', () => {
    const ok: SecretCheck = { externalSecret: 'a/b', field: 'spec.data[0]', outcome: 'ok' };
    expect(preflightNote({ verdict: 'pass', checks: [ok] })).toEqual({ verdict: 'pass', reasons: [] });
  });
});

describe('warned apps on the page and in Slack', () => {
  const warned = (name: string, reasons: string[]): AppRecord =>
    appRecord(name, { state: 'synced', secrets: [helm], preflight: { verdict: 'warn', reasons } });

  it('lists each warned app once in the Slack rollout message, with its reason', () => {
    const apps = [warned('chart', [helm.message as string]), appRecord('plain', { state: 'synced' })];
    const text = renderRolloutMessage(rolloutSnapshot(apps)).blocks.map(blockText).join('\n');
    expect(text.match(/\*warn\*/g)).toHaveLength(1);
    expect(text).toContain('/chart: Helm chart templates are not rendered');
    expect(text).not.toMatch(/\*warn\*[^\n]*plain/);
  });

  it('shows a warned app in its own section and on its line', () => {
    const rollout: Rollout = {
      sha: 'a'.repeat(40),
      repo: 'org/gitops',
      repoUrl: 'https://github.com/org/gitops',
      ref: 'refs/heads/main',
      refs: ['refs/heads/main'],
      trigger: 'webhook',
      receivedAt: '2026-12-01T09:50:00.000Z',
      status: 'succeeded',
      counts: {},
      decisions: {},
      apps: [warned('chart', ['apps/web/deploy.yaml:7:1: the manifest does not parse']), appRecord('plain')],
    };
    const page = renderRolloutPage(rollout, { nonce: 'n', argocdUrls: {}, now: new Date() });
    expect(page).toContain('<section id="warned"><h2>Preflight warnings (1)</h2>');
    expect(page).toMatch(/data-warned="[^"]*\/chart"/);
    expect(page).toContain('apps/web/deploy.yaml:7:1: the manifest does not parse');
    expect(page.match(/data-verdict="warn"/g)).toHaveLength(1);
  });
});
