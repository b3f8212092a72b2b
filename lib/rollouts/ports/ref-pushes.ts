export interface RefPush {
  readonly repoKey: string;
  readonly ref: string;
  readonly before: string;
  readonly after: string;
  readonly receivedAt: string;
  readonly forced: boolean;
}

/** The pushes each ref received lately, newest first: how a ref moved, for repositories the orchestrator may not read. */
export interface RefPushes {
  record(push: RefPush): Promise<void>;
  recent(repoKey: string, ref: string): Promise<readonly RefPush[]>;
}
