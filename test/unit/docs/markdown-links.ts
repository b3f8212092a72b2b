import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';

/** One `[text](target)` or `![alt](target)` of a markdown file, outside code. */
export interface MarkdownLink {
  readonly line: number;
  readonly text: string;
  readonly target: string;
}

const FENCE = /^\s*(```|~~~)/;
const INLINE_CODE = /`+[^`]*`+/g;
// The target stops at whitespace (an optional "title" may follow) or the closing parenthesis.
const LINK = /!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (FENCE.test(text)) {
      fenced = !fenced;
      return;
    }
    if (!fenced) out.push({ line: index + 1, text });
  });
  return out;
}

export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const match of text.replace(INLINE_CODE, '').matchAll(LINK)) {
      links.push({ line, text: match[1] ?? '', target: match[2] ?? '' });
    }
  }
  return links;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown file's headings define (a repeated heading gets `-1`, `-2`, … as on GitHub). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const match = HEADING.exec(text);
    if (match === null) continue;
    const slug = headingSlug(match[2] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Every relative link of `file` (a path under `root`) whose target file does not exist, or whose `#anchor`
 * names no heading of the markdown file it points at; one line each, `file:line: [text](target): why`.
 */
export function brokenLinks(root: string, file: string): string[] {
  const path = join(root, file);
  const problems: string[] = [];
  for (const link of markdownLinks(readFileSync(path, 'utf8'))) {
    if (EXTERNAL.test(link.target)) continue;
    const [pathPart = '', anchor] = link.target.split('#', 2);
    const target = pathPart === '' ? path : resolve(dirname(path), decodeURIComponent(pathPart));
    const where = `${file}:${link.line}: [${link.text}](${link.target})`;
    if (!existsSync(target)) {
      problems.push(`${where}: no file ${relative(root, target)}`);
      continue;
    }
    if (anchor === undefined || anchor === '' || extname(target) !== '.md' || statSync(target).isDirectory())
      continue;
    if (!headingAnchors(readFileSync(target, 'utf8')).has(anchor))
      problems.push(`${where}: no heading #${anchor} in ${relative(root, target)}`);
  }
  return problems;
}

/** README.md and every markdown file under docs/, as paths relative to `root`. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const child = join(dir, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.md')) files.push(child);
    }
  };
  walk('docs');
  return files.sort();
}
