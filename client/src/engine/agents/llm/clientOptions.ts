/** Request policy shared by both model clients: the libraries do the retrying (docs/models.md). */
export interface ClientPolicy {
  /** Per-request timeout. */
  requestTimeoutMs: number;
  /** Retries on 408/409/429/5xx and dropped connections, with backoff that honours Retry-After. */
  maxRetries: number;
}

export const DEFAULT_CLIENT_POLICY: ClientPolicy = { requestTimeoutMs: 120_000, maxRetries: 4 };
