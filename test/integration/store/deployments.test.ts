import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDeployments } from '../../../lib/store/deployments.js';
import { createTableRef } from '../../../lib/store/dynamo.js';
import { startTestTable, type TestTable } from '../../helpers/dynamo.js';

describe('the deployment ledger under a rollout, in dynalite', () => {
  let table: TestTable;
  let ref: ReturnType<typeof createTableRef>;
  let n = 0;
  const sha = () => {
    n += 1;
    return n.toString(16).padStart(40, 'f');
  };
  beforeAll(async () => {
    table = await startTestTable();
    ref = createTableRef({ tableName: table.tableName, region: 'local', endpoint: table.endpoint });
  });
  afterAll(async () => {
    await table.close();
  });

  it('lets one caller create, refuses the next while the claim is fresh and once the deployment exists', async () => {
    const ledger = dynamoDeployments(ref, 3600);
    const at = sha();
    const claim = await ledger.claimCreate(at, 'hub', 'github');
    expect(claim).toBeDefined();
    expect(await ledger.claimCreate(at, 'hub', 'github')).toBeUndefined();
    expect(await ledger.claimStatus(at, 'hub', 'in_progress', 0)).toBe('not-created');
    await ledger.settleCreate(at, 'hub', claim ?? '', { deploymentId: '7', state: 'pending', rank: 0 });
    expect(await ledger.claimCreate(at, 'hub', 'github')).toBeUndefined();
    expect(await ledger.entries(at)).toEqual([{ kind: 'deployment', target: 'hub', state: 'pending' }]);
  });

  it("takes over a crashed caller's create claim once it is stale, and drops the late settle of the old one", async () => {
    const ledger = dynamoDeployments(ref, 3600, 0);
    const at = sha();
    const first = await ledger.claimCreate(at, 'hub', 'gitlab');
    await new Promise((r) => setTimeout(r, 5));
    const second = await ledger.claimCreate(at, 'hub', 'gitlab');
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await ledger.settleCreate(at, 'hub', first ?? '', { deploymentId: '1', state: 'running', rank: 0 });
    expect(await ledger.deploymentId(at, 'hub')).toBeUndefined();
    await ledger.settleCreate(at, 'hub', second ?? '', { deploymentId: '2', state: 'running', rank: 0 });
    expect(await ledger.deploymentId(at, 'hub')).toBe('2');
  });

  it('claims each state once, never for an older view, and releases a failed post with its error', async () => {
    const ledger = dynamoDeployments(ref, 3600);
    const at = sha();
    const claim = await ledger.claimCreate(at, 'hub', 'github');
    await ledger.settleCreate(at, 'hub', claim ?? '', { deploymentId: '9', state: 'pending', rank: 0 });
    expect(await ledger.claimStatus(at, 'hub', 'in_progress', 0)).toEqual({ deploymentId: '9' });
    expect(await ledger.claimStatus(at, 'hub', 'in_progress', 0)).toBe('unchanged');
    await ledger.settleStatus(at, 'hub', 'in_progress');
    expect(await ledger.claimStatus(at, 'hub', 'success', 1)).toEqual({ deploymentId: '9' });
    await ledger.settleStatus(at, 'hub', 'success', 'HTTP 503');
    expect(await ledger.entries(at)).toMatchObject([{ state: 'in_progress', error: 'HTTP 503' }]);
    expect(await ledger.claimStatus(at, 'hub', 'in_progress', 0)).toBe('unchanged');
    expect(await ledger.claimStatus(at, 'hub', 'success', 1)).toEqual({ deploymentId: '9' });
    await ledger.settleStatus(at, 'hub', 'success');
    expect(await ledger.claimStatus(at, 'hub', 'in_progress', 0)).toBe('unchanged');
    expect(await ledger.entries(at)).toEqual([{ kind: 'deployment', target: 'hub', state: 'success' }]);
  });
});
