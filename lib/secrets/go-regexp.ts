import { RE2JS, RE2JSSyntaxException } from 're2js';

/**
 * Go regular expressions, as ESO compiles `find.name.regexp` and ClusterSecretStore `namespaceRegexes`,
 * evaluated with re2js, a port of Go's `regexp` (RE2 syntax, linear-time matching). The pattern comes
 * from Git, so a backtracking engine would let one commit block the event loop
 * (`^([a-z0-9-]+/?)+$` against a 31-character name took ~10 s as a JS RegExp). `test` is unanchored,
 * like Go's `MatchString`. Syntax Go rejects gives `error` with Go's own wording (ESO fails too);
 * anything else the engine refuses gives `unsupported`.
 */
export type GoRegexp =
  | { readonly ok: true; readonly regexp: RE2JS }
  | { readonly ok: false; readonly outcome: 'error' | 'unsupported'; readonly message: string };

/** Patterns longer than this are refused before compiling (RE2's program size grows with them). */
export const MAX_GO_REGEXP_LENGTH = 4096;

export function compileGoRegexp(pattern: string): GoRegexp {
  if (pattern.length > MAX_GO_REGEXP_LENGTH) {
    return {
      ok: false,
      outcome: 'unsupported',
      message: `regexp of ${pattern.length} characters is longer than ${MAX_GO_REGEXP_LENGTH}`,
    };
  }
  try {
    return { ok: true, regexp: RE2JS.compile(pattern) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof RE2JSSyntaxException) {
      return {
        ok: false,
        outcome: 'error',
        message: `could not compile find.name.regexp [${pattern}]: ${reason}`,
      };
    }
    return {
      ok: false,
      outcome: 'unsupported',
      message: `regexp [${pattern}] could not be compiled: ${reason}`,
    };
  }
}
