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
.s-superseded, .s-aborted, .w-superseded, .w-aborted, .w-waiting { color: var(--mute); }
.s-held, .s-paused, .w-soaking { color: var(--warn); }
.s-halted, .w-halted { color: var(--bad); }
.w-done { color: var(--ok); }
.v-warn { color: var(--warn); font-weight: 600; }
.w-open { color: var(--run); }
h2 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
h3 { font-size: .95rem; margin: .25rem 0; }
.notice { border-left: 4px solid var(--warn); padding: .4rem .75rem; margin: .5rem 0; background: #8881; }
.notice.bad { border-color: var(--bad); }
ul.notice { list-style: none; }
ul.counts { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; margin: .5rem 0; font-weight: 600; }
.cause { margin: .5rem 0; }
ul.names { margin: 0; padding-left: 1.5rem; columns: 3 18rem; }
.dests { display: grid; grid-template-columns: repeat(auto-fill, minmax(22rem, 1fr)); gap: .75rem; }
.dest { border: 1px solid #8884; padding: .4rem .5rem; }
section.wave { border-top: 2px solid #8886; margin-top: 1rem; }
form.filter { margin: .5rem 0; }
.kind, .meta { color: var(--mute); font-size: .9em; }
.msg { margin: .15rem 0 0 6.5em; white-space: pre-wrap; word-break: break-word; }
.reasons, .warn-reasons { margin: .15rem 0 0 6.5em; padding-left: 1rem; }
.stale { color: var(--bad); margin-left: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 1rem; }
dl.facts dt { color: var(--mute); }
dl.facts dd { margin: 0; }
`;
