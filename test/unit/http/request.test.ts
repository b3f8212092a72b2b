import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromApiGatewayEvent } from '../../../lib/http/request.js';

const event = (extra: Partial<APIGatewayProxyEventV2>): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'GET /ui',
    rawPath: '/ui',
    rawQueryString: '',
    headers: { Host: 'sync.example' },
    isBase64Encoded: false,
    requestContext: { http: { method: 'GET' } },
    ...extra,
  }) as APIGatewayProxyEventV2;

describe('decoding an API Gateway request', () => {
  it('puts payload 2.0 cookies back into a cookie header', () => {
    const request = fromApiGatewayEvent(event({ cookies: ['a=1', 'gitops_sync_ui=x'] }), 1024);
    expect(request.headers.cookie).toBe('a=1; gitops_sync_ui=x');
    expect(request.headers.host).toBe('sync.example');
  });

  it('has no cookie header when the request sent none', () => {
    expect(fromApiGatewayEvent(event({}), 1024).headers.cookie).toBeUndefined();
  });

  it('carries the IAM principal of an IAM-authorized call, and none otherwise', () => {
    const arn = 'arn:aws:sts::123456789012:assumed-role/operator/alice';
    const authorized = event({
      requestContext: {
        http: { method: 'POST' },
        authorizer: { iam: { userArn: arn } },
      } as unknown as APIGatewayProxyEventV2['requestContext'],
    });
    expect(fromApiGatewayEvent(authorized, 1024).principal).toBe(arn);
    expect(fromApiGatewayEvent(event({}), 1024).principal).toBeUndefined();
  });
});
