import { handleApi } from '../api/handle-api.js';
import type { ApiApp } from '../app.js';
import { type Config, type Env, loadConfig } from '../config.js';
import { errorMessage } from '../errors.js';
import type { FleetSource } from '../fleet/fleet-source.js';
import type { Logger, SecretReader } from '../ports.js';
import { dynamoFindingsReader } from '../store/findings.js';
import { dynamoLoginStates } from '../store/login-states.js';
import { dynamoRolloutIndex } from '../store/rollout-index.js';
import { dynamoRolloutReader } from '../store/rollout-items.js';
import { type UiAuthSettings, uiAuthSettings } from '../ui-auth/settings.js';
import { uiAccess } from '../ui-auth/ui-access.js';
import { fanoutQueueOf, fleetSourceOf, ownSecrets, runtimeBase, tableOf } from './runtime-adapters.js';
import { apiControl } from './runtime-control.js';
import type { RuntimeOverrides } from './runtime-model.js';

/** The API function's settings: every function's, and the page's login (only the API serves `/ui/`). */
export interface ApiConfig extends Config {
  /** `UI_AUTH` (none, iam, oidc) and the OpenID Connect settings of the page's login. */
  readonly uiAuth: UiAuthSettings;
}

/**
 * `loadConfig` and the login's settings, validated together at the API's cold start. The other functions
 * neither read nor bundle them (serverless.yml sets `UI_AUTH` and `OIDC_*` on the API function only).
 */
export function loadApiConfig(env: Env): ApiConfig {
  return Object.freeze({ ...loadConfig(env), uiAuth: uiAuthSettings(env) });
}

/** The API function: rollouts, findings, release control and the `/ui/` pages with their login. */
export function createApiApp(config: ApiConfig, overrides: RuntimeOverrides = {}): ApiApp {
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
