// Types of client.mjs, for the TypeScript tests.
export const WRITE_RETRY_DELAYS_MS: number[];
export class ModexClient {
  constructor(options: {
    url: string;
    token: string | null;
    fetchImpl?: typeof fetch;
    idempotencyKey?: string;
    retryDelaysMs?: number[];
    notify?: (text: string) => void;
  });
  readonly idempotencyKey: string;
  get(pathname: string, query?: Record<string, unknown>): Promise<any>;
  page(pathname: string, query?: Record<string, unknown>): Promise<{ items: any[]; total: number | null; nextCursor: string | null }>;
  post(pathname: string, body?: unknown, options?: { idempotent?: boolean }): Promise<any>;
  put(pathname: string, body?: unknown): Promise<any>;
}
