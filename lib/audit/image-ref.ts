export type FloatingReason = 'latest' | 'untagged';

/**
 * Why an image reference is not pinned, or undefined when it is: a digest pins it whatever the tag;
 * the tag is what follows the last `:` of the last path segment (a registry port is not a tag).
 */
export function floatingTag(image: string): FloatingReason | undefined {
  const ref = image.trim();
  if (ref.includes('@')) return undefined;
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  const tag = colon === -1 ? '' : last.slice(colon + 1);
  if (tag === '') return 'untagged';
  return tag === 'latest' ? 'latest' : undefined;
}
