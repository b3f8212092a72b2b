import type { AuditNote, Evidence, FindingDraft } from '../audit/types.js';

/** One shared copy per distinct value, for what a pass keeps of thousands of apps until it settles. */
export interface Interner {
  text(value: string): string;
  /**
   * The draft with its strings shared and its evidence shared with every equal evidence (by JSON): a rule
   * finds the same thing on thousands of apps (`default` project, prune without allowEmpty), and each app's
   * copy of the message and evidence was a few hundred bytes kept until the findings are settled.
   */
  finding(draft: FindingDraft): FindingDraft;
  /** The note with its strings shared (a skipped rule says the same of every app). */
  note(note: AuditNote): AuditNote;
}

/** Distinct evidences remembered at most: evidence naming the app itself never repeats, and its JSON key would double it. */
const MAX_SHARED_EVIDENCE = 1000;

export function createInterner(): Interner {
  const texts = new Map<string, string>();
  const evidences = new Map<string, Evidence>();
  const text = (value: string): string => {
    const known = texts.get(value);
    if (known !== undefined) return known;
    texts.set(value, value);
    return value;
  };
  return {
    text,
    finding(draft) {
      const json = JSON.stringify(draft.evidence);
      let evidence = evidences.get(json);
      if (evidence === undefined) {
        evidence = draft.evidence;
        if (evidences.size < MAX_SHARED_EVIDENCE) evidences.set(json, evidence);
      }
      return {
        ...draft,
        rule: text(draft.rule),
        cluster: text(draft.cluster),
        namespace: text(draft.namespace),
        message: text(draft.message),
        evidence,
      };
    },
    note: (note) => ({
      ...note,
      rule: text(note.rule),
      cluster: text(note.cluster),
      namespace: text(note.namespace),
      message: text(note.message),
    }),
  };
}
