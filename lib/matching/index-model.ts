import type { Application } from '../argocd/application.js';
import type { ApplicationSet } from '../argocd/application-set.js';
import type { GitRepository } from '../flux/git-repository.js';
import type { RegistryImage } from '../registry/registry-event.js';
import type { AppTarget, TargetKind } from '../rollouts/app-model.js';
import type { ChangedFiles } from '../webhook/push-event.js';
import type { Verdict } from './decide.js';
import type { PushedRef } from './revision.js';

/** One object as listed from one cluster of the fleet. */
export interface FleetObject {
  readonly cluster: string;
  readonly kind: TargetKind;
  readonly raw: unknown;
}

/** `raw` is kept for what fan-out reads beyond matching (annotations, destination stores). */
export type IndexedObject = { readonly cluster: string; readonly raw: unknown } & (
  | { readonly kind: 'Application'; readonly value: Application }
  | { readonly kind: 'ApplicationSet'; readonly value: ApplicationSet }
  | { readonly kind: 'GitRepository'; readonly value: GitRepository }
);

/** An object whose repository matched the push, with what to do about it and why. */
export interface ObjectMatch extends Verdict {
  readonly target: AppTarget;
  readonly object: IndexedObject;
}

/** An object that could not be read; fan-out records it (decision `error`) instead of guessing. */
export interface ParseFailure {
  readonly cluster: string;
  readonly kind: TargetKind;
  readonly namespace?: string;
  readonly name?: string;
  readonly reason: string;
}

export interface PushToMatch extends PushedRef {
  readonly repo: { readonly urls: readonly string[]; readonly webUrl?: string };
  /** A registry push: matched against OCI and Helm OCI sources on that repository, not Git ones. */
  readonly image?: RegistryImage;
}

export interface MatchResult {
  /** Every object whose repository matched, whatever its decision. */
  readonly matches: readonly ObjectMatch[];
  /**
   * Objects that failed to parse and might name this repository somewhere (searched leniently), and
   * multi-source apps whose only source on it was ignored. Objects naming no recognisable repository are
   * not reported to any push (they would flood every rollout): `unparseableObjects` lists them for reconcile.
   */
  readonly failures: readonly ParseFailure[];
}

export interface MatchIndex {
  /**
   * Costs O(objects of the pushed repository + changed files), not O(fleet) or O(objects × files): the
   * changed files are normalised once per push and each object's path rules were compiled when indexed.
   */
  match(push: PushToMatch, changedFiles: ChangedFiles): MatchResult;
  /** Every object of the fleet that failed to parse, whichever repository it names (in listing order). */
  readonly failures: readonly ParseFailure[];
}
