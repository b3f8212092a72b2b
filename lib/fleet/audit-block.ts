import { isScalar } from 'yaml';
import { SEVERITIES } from '../audit/types.js';
import type { FleetConfig } from './fleet-config.js';
import type { Fields, YamlReader } from './yaml-reader.js';

/** `audit: { digest: { minSeverity, mute: [rule-id] } }`: what the findings digest leaves out. */
export function auditSettings(reader: YamlReader, root: Fields): FleetConfig['audit'] {
  const audit = reader.fields(root.node('audit'), root.pathOf('audit'), ['digest']);
  if (!audit.has('digest')) return {};
  const digest = reader.fields(audit.node('digest'), audit.pathOf('digest'), ['minSeverity', 'mute']);
  const minSeverity = digest.oneOf('minSeverity', SEVERITIES);
  const mute = digest.has('mute')
    ? reader.sequence(digest.node('mute'), digest.pathOf('mute')).flatMap((node, i) => {
        const value = isScalar(node) ? node.value : undefined;
        if (typeof value === 'string' && /^[a-z0-9-]+$/.test(value)) return [value];
        reader.fail(
          node,
          `${digest.pathOf('mute')}[${i}]`,
          'must be an audit rule id (e.g. floating-image-tag)',
        );
        return [];
      })
    : undefined;
  return {
    digest: {
      ...(minSeverity === undefined ? {} : { minSeverity }),
      ...(mute === undefined ? {} : { mute }),
    },
  };
}
