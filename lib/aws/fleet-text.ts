import type { S3Client } from '@aws-sdk/client-s3';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { FleetLocation } from '../config.js';
import type { FleetTextReader } from '../fleet/fleet-source.js';

export interface FleetTextOptions {
  readonly region: string;
  /** `SSM_ENDPOINT` / `S3_ENDPOINT`: loopback doubles in tests. */
  readonly ssmEndpoint?: string;
  readonly s3Endpoint?: string;
}

/** A fleet file is a few KiB; anything near this is not one. */
export const MAX_FLEET_BYTES = 1024 * 1024;

const TIMEOUTS = { connectionTimeout: 3000, requestTimeout: 10_000 };

/**
 * Reads `FLEET_SOURCE`: SSM `GetParameter` (with decryption, so a SecureString works) or S3 `GetObject`.
 * The SDK clients are imported on first use: functions reading a file never load them.
 */
export function createFleetTextReader(options: FleetTextOptions): FleetTextReader {
  let ssm: SSMClient | undefined;
  let s3: S3Client | undefined;
  return async (location: FleetLocation) => {
    if (location.kind === 'ssm') {
      const { SSMClient: Client, GetParameterCommand } = await import('@aws-sdk/client-ssm');
      ssm ??= new Client({
        region: options.region,
        requestHandler: TIMEOUTS,
        ...(options.ssmEndpoint === undefined ? {} : { endpoint: options.ssmEndpoint }),
      });
      const answer = await ssm.send(new GetParameterCommand({ Name: location.name, WithDecryption: true }));
      const value = answer.Parameter?.Value;
      if (value === undefined) throw Object.assign(new Error('parameter has no value'), { code: 'NoValue' });
      return value;
    }
    const { S3Client: Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
    s3 ??= new Client({
      region: options.region,
      requestHandler: TIMEOUTS,
      // A loopback double has no virtual-hosted bucket names.
      ...(options.s3Endpoint === undefined ? {} : { endpoint: options.s3Endpoint, forcePathStyle: true }),
    });
    const answer = await s3.send(new GetObjectCommand({ Bucket: location.bucket, Key: location.key }));
    if ((answer.ContentLength ?? 0) > MAX_FLEET_BYTES || answer.Body === undefined) {
      await answer.Body?.transformToByteArray().catch(() => undefined);
      throw Object.assign(new Error('object too large or empty'), { code: 'TooLarge' });
    }
    return answer.Body.transformToString('utf8');
  };
}
