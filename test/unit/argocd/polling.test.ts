import { describe, expect, it } from 'vitest';
import { isPollingOff, pollingFinding, pollingSetting } from '../../../lib/argocd/polling.js';

describe('isPollingOff', () => {
  it.each(['0', '0s', ' 0s ', '00', '0m', '0ms', '0h'])('%s turns polling off', (value) => {
    expect(isPollingOff(value)).toBe(true);
  });
  it.each(['180s', '3m', '1', '0.5s', 'off', 'never', '', '-0s', '10s0'])('%s does not', (value) => {
    expect(isPollingOff(value)).toBe(false);
  });
});

describe('pollingSetting', () => {
  it('reads timeout.reconciliation from the ConfigMap data', () => {
    expect(pollingSetting({ data: { 'timeout.reconciliation': '0s' } })).toEqual({
      polling: false,
      value: '0s',
    });
    expect(pollingSetting({ data: { 'timeout.reconciliation': '3m' } })).toEqual({
      polling: true,
      value: '3m',
    });
  });

  it('is the 180 s default when the key, the data or the object is missing or malformed', () => {
    for (const object of [
      { data: {} },
      {},
      null,
      'text',
      { data: 'x' },
      { data: { 'timeout.reconciliation': 7 } },
    ])
      expect(pollingSetting(object)).toEqual({ polling: true, value: '180s (default)' });
  });

  it('keeps at most 64 characters of a value in evidence', () => {
    const setting = pollingSetting({ data: { 'timeout.reconciliation': 'x'.repeat(500) } });
    expect(setting.polling).toBe(true);
    expect(setting.value).toHaveLength(65);
  });
});

describe('pollingFinding', () => {
  it('is high, carries the value and names both fixes', () => {
    const finding = pollingFinding('hub', 'argocd', { polling: true, value: '180s (default)' });
    expect(finding).toMatchObject({
      rule: 'argocd-polling-on',
      severity: 'high',
      cluster: 'hub',
      namespace: 'argocd',
      app: '',
      subject: 'ConfigMap/argocd/argocd-cm',
      evidence: { 'timeout.reconciliation': '180s (default)' },
    });
    expect(finding.message).toContain('control: pin');
    expect(finding.message).toContain('timeout.reconciliation: 0s');
  });
});
