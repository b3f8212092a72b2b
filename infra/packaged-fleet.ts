import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

/**
 * The fleet file `npm run package` / `npm run deploy` put in the zips: FLEET_CONFIG, else `fleet.yaml`,
 * else the shipped `fleet.example.yaml` (what CI and a fresh clone package). Relative to the repository,
 * since the same path names it inside the zip (the Lambda's working directory is the zip's root).
 */
export function packagedFleetPath(env: Readonly<Record<string, string | undefined>>, root: string): string {
  const given = env.FLEET_CONFIG?.trim();
  if (given) {
    const path = relative(root, isAbsolute(given) ? given : join(root, given));
    if (path.startsWith('..') || isAbsolute(path))
      throw new Error(`FLEET_CONFIG: ${given} must lie inside the repository (it is packaged by its path)`);
    return path;
  }
  return existsSync(join(root, 'fleet.yaml')) ? 'fleet.yaml' : 'fleet.example.yaml';
}
