import { createHmac, randomUUID } from 'node:crypto';

export interface SampleCommit {
  readonly repoUrl: string;
  readonly fullName: string;
  readonly branch: string;
  readonly before: string;
  readonly after: string;
  readonly changed: readonly string[];
  readonly message: string;
  readonly author?: string;
  readonly defaultBranch?: string;
  /** A force push (a rollback, a rewritten history). */
  readonly forced?: boolean;
}

export interface SignedDelivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A GitHub `push` delivery for a commit, shaped like GitHub's and signed with `X-Hub-Signature-256`. */
export function githubPush(
  commit: SampleCommit,
  secret: string,
  deliveryId: string = randomUUID(),
): SignedDelivery {
  const author = commit.author ?? 'Demo Dev';
  const webUrl = commit.repoUrl.replace(/\.git$/, '');
  const head = {
    id: commit.after,
    tree_id: commit.after,
    distinct: true,
    message: commit.message,
    timestamp: new Date().toISOString(),
    url: `${webUrl}/commit/${commit.after}`,
    author: { name: author, email: 'dev@example.test', username: 'demo-dev' },
    committer: { name: author, email: 'dev@example.test', username: 'demo-dev' },
    added: [] as string[],
    removed: [] as string[],
    modified: [...commit.changed],
  };
  const payload = {
    ref: `refs/heads/${commit.branch}`,
    before: commit.before,
    after: commit.after,
    created: false,
    deleted: false,
    forced: commit.forced ?? false,
    base_ref: null,
    compare: `${webUrl}/compare/${commit.before.slice(0, 12)}...${commit.after.slice(0, 12)}`,
    commits: [head],
    head_commit: head,
    repository: {
      id: 1,
      name: commit.fullName.split('/').at(-1),
      full_name: commit.fullName,
      private: false,
      html_url: webUrl,
      url: webUrl,
      clone_url: commit.repoUrl,
      default_branch: commit.defaultBranch ?? 'main',
      owner: { login: commit.fullName.split('/')[0], name: commit.fullName.split('/')[0] },
    },
    pusher: { name: 'demo-dev', email: 'dev@example.test' },
    sender: { login: 'demo-dev', id: 1, type: 'User' },
  };
  const body = JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      'user-agent': 'GitHub-Hookshot/local',
    },
  };
}

/** A GitLab `Push Hook` delivery for a commit, with its `X-Gitlab-Token`. */
export function gitlabPush(
  commit: SampleCommit,
  token: string,
  deliveryId: string = randomUUID(),
): SignedDelivery {
  const webUrl = commit.repoUrl.replace(/\.git$/, '');
  const payload = {
    object_kind: 'push',
    event_name: 'push',
    before: commit.before,
    after: commit.after,
    ref: `refs/heads/${commit.branch}`,
    checkout_sha: commit.after,
    user_name: commit.author ?? 'Demo Dev',
    user_username: 'demo-dev',
    project_id: 7,
    project: {
      id: 7,
      name: commit.fullName.split('/').at(-1),
      web_url: webUrl,
      git_http_url: commit.repoUrl,
      git_ssh_url: `git@${new URL(webUrl).host}:${commit.fullName}.git`,
      path_with_namespace: commit.fullName,
      default_branch: commit.defaultBranch ?? 'main',
      http_url: commit.repoUrl,
    },
    commits: [
      {
        id: commit.after,
        message: commit.message,
        title: commit.message.split('\n')[0],
        timestamp: new Date().toISOString(),
        url: `${webUrl}/-/commit/${commit.after}`,
        author: { name: commit.author ?? 'Demo Dev', email: 'dev@example.test' },
        added: [],
        modified: [...commit.changed],
        removed: [],
      },
    ],
    total_commits_count: 1,
    repository: {
      name: commit.fullName.split('/').at(-1),
      url: commit.repoUrl,
      homepage: webUrl,
      git_http_url: commit.repoUrl,
    },
  };
  return {
    body: JSON.stringify(payload),
    headers: {
      'content-type': 'application/json',
      'x-gitlab-event': 'Push Hook',
      'x-gitlab-token': token,
      'x-gitlab-event-uuid': deliveryId,
      'user-agent': 'GitLab/17.0.0',
    },
  };
}
