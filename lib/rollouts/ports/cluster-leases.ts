/** One work item at a time per commit and cluster (the lease runs out when its holder's invocation ends). */
export interface ClusterLeases {
  acquire(
    sha: string,
    cluster: string,
    holder: string,
    untilMs: number,
  ): Promise<
    { readonly held: true } | { readonly held: false; readonly untilMs: number; readonly holder?: string }
  >;
  release(sha: string, cluster: string, holder: string): Promise<void>;
}
