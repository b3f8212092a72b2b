import { CREATED_EPOCH_SECONDS } from './secrets-manager-state.js';

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

/** An STS AssumeRole answer (query protocol, XML); the credentials expire ten years after 2026-01-01. */
export function assumeRoleXml(input: {
  accessKeyId: string;
  roleArn: string;
  session: string;
  requestId: string;
}): string {
  const expiration = new Date((CREATED_EPOCH_SECONDS + 10 * 365 * 86400) * 1000).toISOString();
  return [
    `<AssumeRoleResponse xmlns="${NS}"><AssumeRoleResult><Credentials>`,
    `<AccessKeyId>${input.accessKeyId}</AccessKeyId>`,
    `<SecretAccessKey>local-secret-${input.accessKeyId}</SecretAccessKey>`,
    `<SessionToken>local-token-${input.accessKeyId}</SessionToken>`,
    `<Expiration>${expiration}</Expiration></Credentials>`,
    `<AssumedRoleUser><AssumedRoleId>AROALOCAL:${escapeXml(input.session)}</AssumedRoleId>`,
    `<Arn>${escapeXml(input.roleArn)}/${escapeXml(input.session)}</Arn></AssumedRoleUser></AssumeRoleResult>`,
    `<ResponseMetadata><RequestId>${input.requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
  ].join('');
}

export function stsErrorXml(code: string, message: string, requestId: string): string {
  return `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
