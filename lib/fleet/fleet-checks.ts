/** Checks of single fleet-file values: each returns the problem, or undefined when the value is fine. */
export type Check = (value: string) => string | undefined;

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const dnsLabel: Check = (value) =>
  DNS_LABEL.test(value) ? undefined : 'must be a DNS label (lowercase letters, digits and "-", at most 63)';

export function httpUrl(what = 'URL'): Check {
  return (value) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `must be an absolute http(s) ${what}`;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an absolute http(s) ${what}`;
    // Credentials belong in a secret, never in a URL that ends up in logs and records.
    if (url.username !== '' || url.password !== '')
      return 'must not carry user info; use token or tokenSecret';
    if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
    return undefined;
  };
}

export const repositoryUrl: Check = (value) => {
  if (/^[\w.-]+@[\w.-]+:/.test(value) || /^(ssh|git|git\+ssh):\/\//i.test(value)) {
    return 'must be an http(s) URL: the orchestrator reads repositories over smart HTTP (apps may still use ssh URLs; they match the same repository)';
  }
  return httpUrl('repository URL')(value);
};

export const base64Pem: Check = (value) => {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) return 'must be base64';
  const decoded = Buffer.from(compact, 'base64').toString('latin1');
  return decoded.includes('-----BEGIN CERTIFICATE-----')
    ? undefined
    : 'must be a base64-encoded PEM certificate';
};

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z]{2}(-[a-z]+)+-\d+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

/** A Secrets Manager secret ARN, or a plain secret name (resolved in the orchestrator's account and region). */
export const secretId: Check = (value) => {
  if (value.startsWith('arn:')) {
    return SECRET_ARN.test(value)
      ? undefined
      : 'must be a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)';
  }
  return SECRET_NAME.test(value) ? undefined : 'must be a Secrets Manager secret ARN or name';
};

export const roleArn: Check = (value) =>
  /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/.test(value)
    ? undefined
    : 'must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)';

export const awsRegion: Check = (value) =>
  /^[a-z]{2}(-[a-z]+)+-\d+$/.test(value) ? undefined : 'must be an AWS region such as eu-west-1';

export const eksClusterName: Check = (value) =>
  /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/.test(value) ? undefined : 'must be an EKS cluster name';

export const noWhitespace: Check = (value) => (/\s/.test(value) ? 'must not contain whitespace' : undefined);

/** `#deploys`, `deploys` or a channel id (`C0123ABCD`): what `chat.postMessage` takes as `channel`. */
export const slackChannelName: Check = (value) =>
  /^#?[a-z0-9][a-z0-9._-]{0,79}$/i.test(value) ? undefined : 'must be a Slack channel (#name or channel id)';
