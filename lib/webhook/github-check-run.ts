import { htmlRepository } from './html-repository.js';
import {
  type JsonRecord,
  optionalRecord,
  optionalString,
  quoted,
  requireCommitSha,
  requireRecord,
} from './payload-fields.js';

/** A button pressed on a check run (`check_run` `requested_action`): what to do, on which commit, by whom. */
export interface RequestedAction {
  /** The `requested_action.identifier` the check run offered (only `retry` is handled). */
  readonly identifier: 'retry';
  readonly sha: string;
  /** `owner/name` and the web URL, to find the fleet repository (never trusted beyond the fleet's list). */
  readonly repo: { readonly fullName: string; readonly urls: readonly string[] };
  /** Who pressed it: `github:<login>`. */
  readonly by: string;
}

export const CHECK_RUN_EVENTS = ['check_run'] as const;

/**
 * A GitHub `check_run` delivery → the action requested on it, or why it is ignored (created, completed,
 * rerequested: GitHub sends every one of those to the App; only `requested_action` `retry` does anything).
 */
export function readCheckRunAction(body: JsonRecord): RequestedAction | { readonly ignored: string } {
  const action = optionalString(body, 'action') ?? 'unknown';
  if (action !== 'requested_action') return { ignored: `check_run ${quoted(action, 40)} is not handled` };
  const identifier = optionalString(optionalRecord(body, 'requested_action'), 'identifier') ?? '';
  if (identifier !== 'retry')
    return { ignored: `check_run requested_action ${quoted(identifier, 40)} is not handled` };
  const checkRun = requireRecord(body, 'check_run');
  const repository = htmlRepository(requireRecord(body, 'repository'), ['clone_url']);
  const sender = optionalString(optionalRecord(body, 'sender'), 'login');
  const login = sender !== undefined && /^[\w.-]{1,39}(\[bot\])?$/.test(sender) ? sender : undefined;
  return {
    identifier: 'retry',
    sha: requireCommitSha(checkRun, 'head_sha', 'check_run.head_sha'),
    repo: { fullName: repository.fullName, urls: repository.urls },
    by: `github:${login ?? 'unknown'}`,
  };
}
