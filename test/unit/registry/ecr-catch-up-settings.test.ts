import { describe, expect, it } from 'vitest';
import { ecrCatchUpSettings } from '../../../lib/registry/ecr-catch-up-settings.js';
import { arnMatches, ecrRepositoryOf } from '../../../lib/registry/ecr-repository.js';

describe('the ECR catch-up settings', () => {
  it('is off without ECR_REPOSITORY_ARNS', () => {
    expect(ecrCatchUpSettings({})).toBeUndefined();
    expect(ecrCatchUpSettings({ ECR_REPOSITORY_ARNS: ' ' })).toBeUndefined();
  });

  it('takes repository ARN patterns, the endpoint and the cap', () => {
    expect(
      ecrCatchUpSettings({
        ECR_REPOSITORY_ARNS:
          'arn:aws:ecr:eu-west-1:123456789012:repository/charts/*, arn:aws:ecr:us-east-1:123456789012:repository/web',
        ECR_ENDPOINT: 'http://127.0.0.1:4566',
        ECR_CATCH_UP_MAX_REPOSITORIES: '10',
      }),
    ).toEqual({
      repositoryArns: [
        'arn:aws:ecr:eu-west-1:123456789012:repository/charts/*',
        'arn:aws:ecr:us-east-1:123456789012:repository/web',
      ],
      endpoint: 'http://127.0.0.1:4566',
      maxRepositories: 10,
    });
  });

  it.each([
    [{ ECR_REPOSITORY_ARNS: 'arn:aws:s3:::bucket' }, 'ECR_REPOSITORY_ARNS'],
    [{ ECR_REPOSITORY_ARNS: 'arn:aws:ecr:eu-west-1:123:repository/x' }, 'ECR_REPOSITORY_ARNS'],
    [{ ECR_ENDPOINT: 'ftp://x' }, 'ECR_ENDPOINT'],
    [
      {
        ECR_REPOSITORY_ARNS: 'arn:aws:ecr:eu-west-1:123456789012:repository/x',
        ECR_CATCH_UP_MAX_REPOSITORIES: '0',
      },
      'ECR_CATCH_UP_MAX_REPOSITORIES',
    ],
  ])('refuses %j', (env, setting) => {
    expect(() => ecrCatchUpSettings(env)).toThrow(setting);
  });

  it('reads an ECR image key as its repository and ARN, and matches ARN patterns as IAM does', () => {
    const repo = ecrRepositoryOf('123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/charts/web');
    expect(repo).toMatchObject({
      registryId: '123456789012',
      region: 'cn-north-1',
      repositoryName: 'charts/web',
      arn: 'arn:aws-cn:ecr:cn-north-1:123456789012:repository/charts/web',
    });
    expect(ecrRepositoryOf('ghcr.io/acme/web')).toBeUndefined();
    expect(
      arnMatches(
        'arn:aws:ecr:*:123456789012:repository/charts/*',
        'arn:aws:ecr:eu-west-1:123456789012:repository/charts/web',
      ),
    ).toBe(true);
    expect(
      arnMatches(
        'arn:aws:ecr:eu-west-1:123456789012:repository/charts/*',
        'arn:aws:ecr:eu-west-1:123456789012:repository/apps/web',
      ),
    ).toBe(false);
  });
});
