import { matchesClusterGlob } from '../fleet/cluster-glob.js';

/**
 * A cluster name against a name or glob (`*`: any run of characters, `?`: one), case-sensitive: the fleet
 * file's matcher (no backtracking blow-up, at most pattern × name steps).
 */
export const clusterGlobMatches = matchesClusterGlob;

/** A cluster name or glob of fleet-name characters (letters, digits, `-`, `.`, `_`) and `*`, `?`. */
export const CLUSTER_PATTERN = /^[A-Za-z0-9*?][-A-Za-z0-9._*?]{0,252}$/;
