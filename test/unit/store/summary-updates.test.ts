import { describe, expect, it } from 'vitest';
import { statusUpdate, viewsAndStatusUpdate } from '../../../lib/store/summary-updates.js';

// The summary's status updates built from a read: when they can be one write, what they set, and what the
// write is conditional on.

const read = {
  pk: 'ROLLOUT#abc',
  sk: 'SUMMARY',
  status: 'in-progress',
  viewsVersion: 3,
  paused: true,
  views: { hub: { c: { refreshed: 2 }, v: 2 } },
};

describe('the single write of gathered views', () => {
  it('is not one write without a read, without views, or with a view no newer than the stored one', () => {
    const view = { cluster: 'hub', view: { view: { c: { synced: 2 }, v: 2 } } };
    expect(viewsAndStatusUpdate(undefined, [view])).toBeUndefined();
    expect(viewsAndStatusUpdate({ ...read, views: undefined }, [view])).toBeUndefined();
    expect(viewsAndStatusUpdate(read, [view])).toBeUndefined();
  });

  it('sets each view and the status they make, on condition that versions and control flags are as read', () => {
    const built = viewsAndStatusUpdate(read, [
      { cluster: 'hub', view: { view: { c: { synced: 2 }, v: 4 } } },
      { cluster: 'spoke', view: { view: { c: { refreshed: 1 }, v: 1 } } },
    ]);
    expect(built?.status).toBe('paused');
    const update = built?.update;
    expect(update?.UpdateExpression).toMatch(/^SET #views\.#c = :view, #views\.#c1 = :view1, /);
    expect(update?.ExpressionAttributeNames).toMatchObject({ '#c': 'hub', '#c1': 'spoke' });
    expect(update?.ConditionExpression).toContain('viewsVersion = :readViews');
    expect(update?.ConditionExpression).toContain('attribute_not_exists(errorsVersion)');
    expect(update?.ConditionExpression).toContain('paused = :read_paused');
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':readViews': 3, ':read_paused': true });
  });
});

describe("the two-write way's status write", () => {
  it('sets the status the stored views make unless a write at least as new is there', () => {
    const built = statusUpdate({
      ...read,
      paused: undefined,
      views: { hub: { c: { synced: 2 }, v: 2, f: '2026-12-04T10:00:00.000Z' } },
    });
    expect(built.status).toBe('succeeded');
    expect(built.update.ConditionExpression).toContain('appsVersion < :v');
    expect(built.update.UpdateExpression).toContain('finishedAt = :f');
  });
});
