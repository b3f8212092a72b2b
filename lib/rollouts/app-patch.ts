import {
  applicationRefreshPatch,
  applicationSetRefreshPatch,
  gitRepositoryRefreshPatch,
} from '../argocd/refresh-patch.js';
import type { ObjectMatch } from '../matching/match-index.js';
import type { Clock } from '../ports.js';
import { type PinScope, withPinMove } from './app-pin.js';

// The PATCH that refreshes a matched object, by kind: an Application's (with its pin moved), an
// ApplicationSet's, a Flux GitRepository's.

/** The match as it would be of the object read again (the pin patch is built from `raw`). */
export function withRaw(match: ObjectMatch, raw: unknown): ObjectMatch {
  return { ...match, object: { ...match.object, raw } } as ObjectMatch;
}

export function patchFor(match: ObjectMatch, clock: Clock, pin?: PinScope): object | undefined {
  switch (match.object.kind) {
    case 'Application': {
      const refresh = applicationRefreshPatch(match.object.value, { hydrate: match.hydrate });
      return withPinMove(match, refresh, pin);
    }
    case 'ApplicationSet':
      return applicationSetRefreshPatch();
    case 'GitRepository':
      return gitRepositoryRefreshPatch(clock);
  }
}
