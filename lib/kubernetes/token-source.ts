export interface TokenSource {
  token(): Promise<string>;
  /** Forget the cached token (the cluster answered 401): the next call fetches or generates a new one. */
  invalidate(): void;
}
