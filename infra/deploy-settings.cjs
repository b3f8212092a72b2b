// Deploy-time decisions serverless.yml cannot express as plain variables: where the fleet comes from
// (packaged file or FLEET_SOURCE) and the CloudWatch alarms for every queue and function. Read only by
// `serverless package|deploy`; the functions never see this file.
'use strict';

const { existsSync, readFileSync } = require('node:fs');
const { parse } = require('yaml');

const FUNCTIONS = ['webhook', 'fanout', 'track', 'reconcile', 'api'];

/** FLEET_SOURCE (`ssm:/path` or `s3://bucket/key`), or the packaged FLEET_CONFIG file (default fleet.yaml). */
function fleet() {
  const source = (process.env.FLEET_SOURCE ?? '').trim();
  const ssm = /^ssm:\/?(.+)$/.exec(source);
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(source);
  if (source !== '' && ssm === null && s3 === null) {
    throw new Error('FLEET_SOURCE: must be ssm:/parameter/name or s3://bucket/key');
  }
  // The packaged file by its path in the repository (the zip's root is the Lambda's working directory).
  const file = (process.env.FLEET_CONFIG ?? '').trim().replace(/^\.\//, '') || 'fleet.yaml';
  return {
    config: source === '' ? file : '',
    source,
    // Only the fleet functions carry the file, and only when it is the fleet's source.
    patterns: source === '' ? [file] : [],
    // The parameter's name without its leading slash, as it appears in the parameter's ARN.
    ssmParameterName: ssm === null ? '' : ssm[1],
    s3Object: s3 === null ? '' : `${s3[1]}/${s3[2]}`,
    // DescribeCluster on exactly the clusters that need it with the functions' own identity; with
    // FLEET_SOURCE the fleet is read at run time, so EKS_CLUSTER_ARNS names them (comma-separated).
    eksClusterArns:
      source !== ''
        ? (process.env.EKS_CLUSTER_ARNS ?? '').trim()
        : existsSync(file)
          ? eksClusterArns(readFileSync(file, 'utf8')).join(',')
          : '',
    // The ESO controller's Pod Identity lookup (List/DescribePodIdentityAssociation) on exactly the
    // packaged fleet's auth.eks clusters without roleArn; with FLEET_SOURCE the clusters are known only at
    // run time, so this account's clusters and associations (read-only; docs/preflight-identity.md).
    eksPodIdentityArns:
      source !== ''
        ? [
            `arn:${pseudo('Partition')}:eks:*:${pseudo('AccountId')}:cluster/*`,
            `arn:${pseudo('Partition')}:eks:*:${pseudo('AccountId')}:podidentityassociation/*`,
          ].join(',')
        : existsSync(file)
          ? eksPodIdentityArns(readFileSync(file, 'utf8')).join(',')
          : '',
  };
}

// A CloudFormation pseudo parameter (for !Sub), not a JS template.
const pseudo = (name) => ['$', `{AWS::${name}}`].join('');

/**
 * The EKS clusters of a fleet file whose endpoint or CA comes from DescribeCluster called with the
 * functions' own role: `auth.eks` without `roleArn` (an assumed role calls it itself), and without `server`
 * or with an https one but no `caData` (lib/fleet/aws-scopes.ts `needsEksDescribe`, the same rule).
 */
function eksClusterArns(text) {
  const clusters = parse(text)?.clusters ?? [];
  return clusters
    .filter((c) => c?.auth?.eks !== undefined && c.auth.eks.roleArn === undefined)
    .filter(
      (c) => c.server === undefined || (String(c.server).startsWith('https:') && c.caData === undefined),
    )
    .map(
      (c) =>
        `arn:${pseudo('Partition')}:eks:${c.auth.eks.region}:${pseudo('AccountId')}:cluster/${c.auth.eks.clusterName}`,
    );
}

/**
 * The ARNs ListPodIdentityAssociations (the cluster) and DescribePodIdentityAssociation (its associations)
 * authorise on, for the fleet file's `auth.eks` clusters the functions ask with their own role (a cluster's
 * `roleArn` asks with that role instead).
 */
function eksPodIdentityArns(text) {
  const clusters = parse(text)?.clusters ?? [];
  return clusters
    .filter((c) => c?.auth?.eks !== undefined && c.auth.eks.roleArn === undefined)
    .flatMap((c) => {
      const at = `arn:${pseudo('Partition')}:eks:${c.auth.eks.region}:${pseudo('AccountId')}`;
      const name = c.auth.eks.clusterName;
      return [`${at}:cluster/${name}`, `${at}:podidentityassociation/${name}/*`];
    });
}

// A Serverless variable, resolved after this file returns (not a JS template).
const ALARM_TOPIC = ['$', '{self:custom.alarmTopicArn}'].join('');
const alarmActions = {
  'Fn::If': ['HasAlarmTopic', [ALARM_TOPIC], { Ref: 'AWS::NoValue' }],
};

function alarm(description, metric) {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: description,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      Period: 300,
      TreatMissingData: 'notBreaching',
      AlarmActions: alarmActions,
      OKActions: alarmActions,
      ...metric,
    },
  };
}

const pascal = (name) => name[0].toUpperCase() + name.slice(1);

/** Each dead-letter queue's depth, each queue's oldest message, every function's errors and throttles. */
function alarms() {
  const Resources = {};
  for (const queue of ['Fanout', 'Track']) {
    Resources[`${queue}DeadLetterQueueDepthAlarm`] = alarm(
      `${queue} dead-letter queue holds messages: a push or rollout failed every retry`,
      {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [`${queue}DeadLetterQueue`, 'QueueName'] } },
        ],
        Statistic: 'Maximum',
        Threshold: 0,
      },
    );
    Resources[`${queue}QueueAgeAlarm`] = alarm(`${queue} queue's oldest message is older than expected`, {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [`${queue}Queue`, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: `\${self:custom.alarms.${queue.toLowerCase()}AgeSeconds}`,
    });
  }
  for (const fn of FUNCTIONS) {
    for (const metric of ['Errors', 'Throttles']) {
      Resources[`${pascal(fn)}${metric}Alarm`] = alarm(`${fn}: ${metric.toLowerCase()}`, {
        Namespace: 'AWS/Lambda',
        MetricName: metric,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: `${pascal(fn)}LambdaFunction` } }],
        Statistic: 'Sum',
        Threshold: 0,
      });
    }
  }
  return { Resources };
}

module.exports = { fleet, alarms, eksClusterArns, eksPodIdentityArns };
