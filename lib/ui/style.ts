/** The pages' only stylesheet, inline (the pages work offline and load nothing else). */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --run: #0969da; --mute: #6e7781; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5rem 2rem; }
header { padding: .75rem 0; border-bottom: 1px solid #8884; margin-bottom: 1rem; }
header a { font-weight: 600; text-decoration: none; color: inherit; }
h1 { font-size: 1.25rem; margin: .5rem 0; }
code, .sha { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #8884; padding: .4rem .5rem; text-align: left; vertical-align: top; }
th { background: #8881; }
ul.apps { list-style: none; margin: 0; padding: 0; }
ul.apps li { padding: .2rem 0; border-bottom: 1px dotted #8884; }
ul.apps li:last-child { border-bottom: 0; }
.state { display: inline-block; min-width: 6.5em; font-weight: 600; }
.s-synced, .s-succeeded { color: var(--ok); }
.s-failed, .s-error, .s-degraded, .s-timeout { color: var(--bad); }
.s-blocked, .s-out-of-sync, .s-partial { color: var(--warn); }
.s-refreshed, .s-syncing, .s-matched, .s-pending, .s-in-progress { color: var(--run); }
.s-superseded { color: var(--mute); }
.kind, .meta { color: var(--mute); font-size: .9em; }
.msg { margin: .15rem 0 0 6.5em; white-space: pre-wrap; word-break: break-word; }
.reasons { margin: .15rem 0 0 6.5em; padding-left: 1rem; }
.stale { color: var(--bad); margin-left: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 1rem; }
dl.facts dt { color: var(--mute); }
dl.facts dd { margin: 0; }
`;
