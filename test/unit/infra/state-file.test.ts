import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readStackState,
  removeStackState,
  stackDir,
  writeStackState,
} from '../../../infra/local/state-file.js';

describe('the local stack state files', () => {
  it('keeps one state per port, so a second stack does not clobber the first', async () => {
    const root = await mkdtemp(join(tmpdir(), 'stack-state-'));
    try {
      writeStackState(3000, { url: 'http://127.0.0.1:3000', pid: 1, reposRoot: '/tmp/a' }, root);
      writeStackState(3001, { url: 'http://127.0.0.1:3001', pid: 2 }, root);
      expect(readStackState(3000, root)).toEqual({
        url: 'http://127.0.0.1:3000',
        pid: 1,
        reposRoot: '/tmp/a',
      });
      expect(readStackState(3001, root)).toEqual({ url: 'http://127.0.0.1:3001', pid: 2 });
      removeStackState(3001, root);
      expect(readStackState(3001, root)).toBeUndefined();
      expect(readStackState(3000, root)?.pid).toBe(1);
      expect(existsSync(join(stackDir(3000, root), 'state.json'))).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
