import { readFile } from 'node:fs/promises';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/** Each command's usage line and what it does; `gitops-sync <command> --help` prints its entry. */
export const COMMANDS = {
  validate: [
    'validate [FILE | ssm:/NAME | s3://BUCKET/KEY] [--local | --stage S [--region R]]',
    'check a fleet (default: FLEET_CONFIG, else fleet.yaml); --stage: also that stage S may read every secret and assume every role it names (OWN_SECRETS_ARN, ASSUMABLE_ROLE_ARNS; region default eu-west-1)',
  ],
  rollout: ['rollout <sha>', 'one rollout (a full or unique short SHA): apps, waves, actions'],
  rollouts: [
    'rollouts [--repo R] [--ref REF] [--limit N] [--cursor C]',
    'rollouts, newest first (R: owner/name or any repository URL)',
  ],
  findings: [
    'findings [--cluster C] [--severity S] [--rule R] [--resolved] [--cursor C]',
    'audit findings, high severity first',
  ],
  pause: ['pause <sha>', 'stop opening waves and refreshing'],
  resume: ['resume <sha> [--skip-failed]', 'continue a paused or halted rollout'],
  abort: ['abort <sha>', 'end a rollout (apps not yet refreshed end aborted)'],
  retry: [
    'retry <sha> [--cluster C] [--app NAMESPACE/NAME | NAME]',
    'preflight and refresh again the apps that ended blocked, error, timeout or failed',
  ],
  freeze: [
    'freeze [--repo R] [--cluster C] --reason TEXT [--until TIME]',
    'hold every matching app of every push (neither --repo nor --cluster: the whole fleet)',
  ],
  freezes: ['freezes', 'the freezes in force'],
  unfreeze: ['unfreeze <id>', 'lift a freeze'],
  unpin: ['unpin [--repo R]', 'restore every followed revision (control: pin)'],
} as const satisfies Record<string, readonly [string, string]>;

export type Command = keyof typeof COMMANDS;

export const isCommand = (name: string | undefined): name is Command =>
  name !== undefined && Object.hasOwn(COMMANDS, name);

const API_OPTIONS = `API options: --url URL (default GITOPS_SYNC_URL, else ${DEFAULT_API_URL}, the local stack), --region R, --sigv4
  auth: API_TOKEN as a bearer token when set; else SigV4 with your AWS credentials for a non-loopback URL;
  credentials go over https only (plain http to loopback only)`;

export function usage(command?: Command): string {
  if (command !== undefined) {
    const [line, what] = COMMANDS[command];
    return `usage: gitops-sync ${line}\n  ${what}${command === 'validate' ? '' : `\n${API_OPTIONS}`}`;
  }
  const lines = Object.values(COMMANDS).flatMap(([line, what]) => [`  ${line}`, `      ${what}`]);
  return ['usage: gitops-sync <command> [options] (--help, -h; --version)', ...lines, API_OPTIONS].join('\n');
}

/** The package's version, from its package.json. */
export async function packageVersion(): Promise<string> {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return String((JSON.parse(text) as { version?: unknown }).version ?? 'unknown');
}
