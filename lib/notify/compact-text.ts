/**
 * A few plain lines for a Block Kit message, for consoles and logs: links become their labels and
 * mrkdwn entities are decoded. Reads untyped blocks, so it also serves messages received over HTTP.
 */
export function compactText(message: { readonly text?: unknown; readonly blocks?: unknown }): string[] {
  const lines: string[] = [];
  const blocks = Array.isArray(message.blocks) ? message.blocks : [];
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null) continue;
    const { type, text, elements } = block as { type?: unknown; text?: unknown; elements?: unknown };
    if (type === 'divider') lines.push('---');
    else if (type === 'header' || type === 'section') lines.push(...split(textOf(text)));
    else if (type === 'context' && Array.isArray(elements)) {
      lines.push(
        ...split(
          elements
            .map(textOf)
            .filter((t) => t !== '')
            .join(' '),
        ),
      );
    }
  }
  if (lines.length === 0 && typeof message.text === 'string') lines.push(...split(readable(message.text)));
  return lines;
}

function textOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  const text = (value as { text?: unknown }).text;
  return typeof text === 'string' ? readable(text) : '';
}

function readable(mrkdwn: string): string {
  return mrkdwn
    .replace(/<([^|>]+)\|([^>]*)>/g, '$2')
    .replace(/<([^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function split(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}
