import { isMap, isScalar, type Node } from 'yaml';
import type { YamlReader } from './yaml-reader.js';

const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
const LABEL_VALUE = /^[A-Za-z0-9._-]{1,63}$/;

/**
 * A string→string mapping (cluster `labels`, wave `selector`), each problem at its line. Undefined when the
 * block is not a mapping (reported); entries with a problem are left out.
 */
export function labelMap(
  reader: YamlReader,
  node: Node | null,
  path: string,
): Readonly<Record<string, string>> | undefined {
  if (!isMap(node)) {
    reader.fail(node, path, 'must be a mapping of label to value');
    return undefined;
  }
  const labels: Record<string, string> = {};
  for (const pair of node.items) {
    const keyNode = reader.resolve(pair.key);
    const key = isScalar(keyNode) ? keyNode.value : undefined;
    if (typeof key !== 'string' || !LABEL_KEY.test(key)) {
      reader.fail(keyNode, path, 'label keys must be letters, digits, ".", "_", "-" or "/" (at most 63)');
      continue;
    }
    const valueNode = reader.resolve(pair.value);
    const value = isScalar(valueNode) ? valueNode.value : undefined;
    if (typeof value !== 'string') {
      reader.fail(valueNode ?? keyNode, `${path}.${key}`, 'must be a string (quote it)');
    } else if (!LABEL_VALUE.test(value)) {
      reader.fail(
        valueNode,
        `${path}.${key}`,
        'must be a label value (letters, digits, ".", "_", "-"; at most 63)',
      );
    } else {
      labels[key] = value;
    }
  }
  return Object.freeze(labels);
}
