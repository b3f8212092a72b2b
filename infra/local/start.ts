import { parseArgs } from 'node:util';
import { errorMessage } from '../../lib/errors.js';
import { writeClusterAccess } from './cluster-access.js';
import { localMetricsOn } from './local-metrics.js';
import { LOCAL_GITHUB_SECRET, LOCAL_GITLAB_TOKEN, startLocalStack } from './stack.js';
import { removeStackState, stackDir, writeStackState } from './state-file.js';

// `npm start [-- --data DIR]`: the local stack on PORT (default 3000). LOCAL_DATA_DIR also keeps data on disk.
const { values } = parseArgs({ options: { data: { type: 'string' } }, allowPositionals: false });
const dataDir = values.data ?? process.env.LOCAL_DATA_DIR;

try {
  const stack = await startLocalStack({
    env: process.env,
    ...(dataDir === undefined ? {} : { dataDir }),
    controller: { tickMs: 200, syncMs: 2500, healthMs: 2000, retryMs: 1500 },
    print: (line) => process.stdout.write(`${line}\n`),
  });
  const world = stack.world;
  const port = Number(new URL(stack.url).port);
  const access =
    world === undefined ? undefined : writeClusterAccess(stackDir(port), world.fleetConfig, stack.url);
  writeStackState(port, {
    url: stack.url,
    pid: process.pid,
    ...(world === undefined || access === undefined
      ? {}
      : {
          reposRoot: world.reposRoot,
          platformUrl: world.repoUrl('platform'),
          githubSecret: LOCAL_GITHUB_SECRET,
          ...access,
        }),
  });
  const lines = [
    '',
    `gitops-sync local stack listening on ${stack.url}`,
    '',
    'Webhook URLs (content type application/json):',
    `  GitHub  ${stack.url}/webhooks/github   secret: ${process.env.GITHUB_WEBHOOK_SECRET === undefined ? LOCAL_GITHUB_SECRET : '(GITHUB_WEBHOOK_SECRET)'}`,
    `  GitLab  ${stack.url}/webhooks/gitlab   token:  ${process.env.GITLAB_WEBHOOK_TOKEN === undefined ? LOCAL_GITLAB_TOKEN : '(GITLAB_WEBHOOK_TOKEN)'}`,
    `  also    ${stack.url}/webhooks/{bitbucket,bitbucket-server,azure-devops,gitea,generic} once their secrets are set (README "More Git hosts")`,
    'Read API:',
    `  ${stack.url}/rollouts/<sha>   ${stack.url}/apps/<cluster>/<namespace>/<name>/history   ${stack.url}/findings   ${stack.url}/healthz`,
    `Rollout page: ${stack.url}/ui/${stack.config.apiToken === undefined ? '' : '?token=<API_TOKEN>  (once: it becomes a cookie)'}`,
    `DynamoDB: ${stack.dynamodbEndpoint} (table ${stack.config.tableName}${dataDir === undefined ? ', in memory' : `, on disk in ${dataDir}`})`,
  ];
  if (world !== undefined) {
    lines.push(
      'Simulated fleet (no FLEET_CONFIG given), cluster / server / orchestrator token:',
      ...world.fleet.clusters.map((c) => `  ${c.name.padEnd(8)} ${c.server}   ${c.token}`),
      `  kubeconfig: ${access?.kubeconfig}   (kubectl --kubeconfig ${access?.kubeconfig} --context hub get app -n argocd)`,
      `  fleet file: ${access?.fleetFile}   (for another stack: FLEET_CONFIG=<it> PORT=3001 npm start)`,
      `Git: ${world.repoUrl('platform')}  ${world.repoUrl('payments')}`,
      `Secrets Manager double: ${world.secretsManager.endpoint}`,
    );
  }
  if (stack.slackViewUrl !== undefined)
    lines.push(
      `Slack: the messages that would be sent, newest first: ${stack.slackViewUrl}  (${stack.slackViewUrl}.txt as text; one [slack] line each below)`,
    );
  lines.push(
    `Reconcile: a first pass now, then every ${stack.config.reconcileIntervalSeconds}s (RECONCILE_INTERVAL_SECONDS); gitops-sync findings once it ends`,
    `Metrics: ${localMetricsOn(process.env) ? 'EMF lines printed (LOCAL_METRICS=1)' : 'not printed (LOCAL_METRICS=1 prints the EMF lines Lambda writes)'}`,
  );
  lines.push(
    '',
    'Try it: npm run demo   (pushes a commit, posts the signed webhook, prints the rollout)',
    '',
  );
  // The handlers before the banner: a pipe's write is synchronous on Linux, so whoever waits for the banner
  // may signal at once, before a handler registered after it (the default action: killed, no cleanup).
  const shutdown = async () => {
    removeStackState(port);
    await stack.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  process.stdout.write(lines.join('\n'));
  void stack.firstPass?.then(() =>
    process.stdout.write('[reconcile] first pass ended: npx gitops-sync findings (or GET /findings)\n'),
  );
} catch (error) {
  process.stderr.write(`local stack failed to start: ${errorMessage(error)}\n`);
  process.exit(1);
}
