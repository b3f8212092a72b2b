import { handleApi } from '../api/handle-api.js';
import type { ApiApp } from '../app.js';
import type { Config } from '../config.js';
import { errorMessage } from '../errors.js';
import type { FleetSource } from '../fleet/fleet-source.js';
import type { Logger, SecretReader } from '../ports.js';
import { dynamoFindingsReader } from '../store/findings.js';
import { dynamoLoginStates } from '../store/login-states.js';
import { dynamoRolloutIndex } from '../store/rollout-index.js';
import { dynamoRolloutReader } from '../store/rollout-items.js';
import { uiAccess } from '../ui-auth/ui-access.js';
import { fanoutQueueOf, fleetSourceOf, ownSecrets, runtimeBase, tableOf } from './runtime-adapters.js';
import { apiControl } from './runtime-control.js';
import type { RuntimeOverrides } from './runtime-model.js';

/** The API function: rollouts, findings, release control and the `/ui/` pages with their login. */
export function createApiApp(config: Config, overrides: RuntimeOverrides = {}): ApiApp {
  const base = runtimeBase(config, overrides);
  const { logger, metrics } = base;
  const table = tableOf(config);
  const reader = dynamoRolloutReader(table);
  const findings = overrides.findings ?? dynamoFindingsReader(table);
  let fleet: FleetSource | undefined;
  const fleetOnce = () => {
    fleet ??= fleetSourceOf(base);
    return fleet;
  };
  let links: Promise<Readonly<Record<string, string>>> | undefined;
  const control = apiControl(base, table, reader, fleetOnce, fanoutQueueOf(base, table));
  let secrets: SecretReader | undefined;
  const access = uiAccess(config.uiAuth, {
    // Built on the first sign-in: a function without UI_AUTH=oidc never makes a Secrets Manager client.
    secrets: {
      getSecretString: (id) => {
        secrets ??= ownSecrets(base);
        return secrets.getSecretString(id);
      },
    },
    states: dynamoLoginStates(table),
    publicUrl: () => config.publicUrl ?? overrides.publicUrl?.(),
    logger,
  });
  return {
    logger,
    metrics,
    api: (request) =>
      handleApi(request, {
        rollouts: reader,
        index: dynamoRolloutIndex(table),
        argocdUrls: () => {
          links ??= argocdUrls(fleetOnce(), logger);
          return links;
        },
        findings,
        control,
        ...(config.apiToken === undefined ? {} : { apiToken: config.apiToken }),
        uiAccess: access,
        health: async () => ({ stage: config.stage }),
        logger,
      }),
  };
}

/** The rollout page's Argo CD links, from the fleet (the page renders without links when it is unreadable). */
function argocdUrls(
  fleet: Pick<FleetSource, 'current'>,
  logger: Logger,
): Promise<Readonly<Record<string, string>>> {
  return fleet.current().then(
    (current) =>
      Object.fromEntries(current.clusters.flatMap((c) => (c.argocdUrl ? [[c.name, c.argocdUrl]] : []))),
    (error: unknown) => {
      logger.warn('fleet unreadable for page links', { error: errorMessage(error) });
      return {};
    },
  );
}
