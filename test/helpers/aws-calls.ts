import { build } from 'esbuild';

export interface FunctionBundle {
  /** Our own source files in the bundle (packages are left out, as imports). */
  readonly files: readonly string[];
  /** The bundle's code after tree shaking: what the function can actually run. */
  readonly code: string;
}

/** A function entry bundled as Lambda bundles it, with every package kept as an import statement. */
export async function bundleOf(entry: string): Promise<FunctionBundle> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0];
  return {
    files: Object.keys(output?.inputs ?? {}).filter((p) => !p.includes('node_modules')),
    code: result.outputFiles[0]?.text ?? '',
  };
}

// Batch APIs authorised by their single-message action.
const AUTHORISED_BY: Record<string, string> = {
  'sqs:SendMessageBatch': 'sqs:SendMessage',
  'sqs:DeleteMessageBatch': 'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibilityBatch': 'sqs:ChangeMessageVisibility',
};

// SDK calls made inside a library rather than through a `new <X>Command(` of ours.
const IMPLICIT_CALLS: readonly [RegExp, string][] = [
  [/\bfromTemporaryCredentials\d*\(/, 'sts:AssumeRole'],
  // An AssumeRole that carries a store's `sessionTags` (lib/aws/credentials.ts) needs sts:TagSession too.
  [/\bsessionTags\b/, 'sts:TagSession'],
  [/\bnew SecretsProvider\d*\(|\bgetSecret\d*\(/, 'secretsmanager:GetSecretValue'],
  [/\bnew SSMProvider\d*\(|\bgetParameter\d*\(/, 'ssm:GetParameter'],
];

const SERVICE_PREFIX: Record<string, string> = { 'secrets-manager': 'secretsmanager' };

/**
 * The IAM actions a bundle calls: every `new <X>Command(` of an AWS SDK client that survived tree
 * shaking (imports may be renamed, `QueryCommand as QueryCommand2`), plus the library-made calls above.
 */
export function awsActions(code: string): Set<string> {
  const actions = new Set<string>();
  // Static imports, and clients loaded on first use: `const { XCommand: Y } = await import('@aws-sdk/…')`.
  const imports = [
    ...code.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']@aws-sdk\/([a-z0-9-]+)["']/g),
    ...code.matchAll(/\{([^}]*)\}\s*=\s*await\s+import\(\s*["']@aws-sdk\/([a-z0-9-]+)["']\s*\)/g),
  ];
  for (const match of imports) {
    const pkg = match[2] ?? '';
    const service = pkg.replace(/^client-/, '');
    for (const raw of (match[1] ?? '').split(',')) {
      const [imported = '', local = imported] = raw.trim().split(/\s+as\s+|\s*:\s*/);
      if (!imported.endsWith('Command') || !new RegExp(`\\bnew ${local}\\(`).test(code)) continue;
      const operation = imported.slice(0, -'Command'.length);
      const action = `${SERVICE_PREFIX[service] ?? service}:${operation}`;
      actions.add(AUTHORISED_BY[action] ?? action);
    }
  }
  for (const [pattern, action] of IMPLICIT_CALLS) if (pattern.test(code)) actions.add(action);
  return actions;
}

/** Which queues the bundle can send to: `queueOf(..., 'QUEUE_URL' | 'TRACK_QUEUE_URL')` calls in it. */
export function queuesSentTo(code: string): Set<string> {
  const byEnv: Record<string, string> = { QUEUE_URL: 'FanoutQueue', TRACK_QUEUE_URL: 'TrackQueue' };
  const queues = new Set<string>();
  for (const match of code.matchAll(/queueOf\([^;]*?["']([A-Z_]+_URL)["']\)/gs)) {
    const queue = byEnv[match[1] ?? ''];
    if (queue !== undefined) queues.add(queue);
  }
  return queues;
}
