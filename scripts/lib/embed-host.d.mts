export interface EmbedHost {
  origin: string;
  tokenCalls: { at: number; token: string; expires_at: string }[];
  stop(): Promise<void>;
}
export function startEmbedHost(options: {
  apiBase: string;
  apiToken: string;
  port?: number;
  /** Pages and scripts of the test's own, by path, served as given. */
  assets?: Record<string, { type: string; body: string }>;
}): Promise<EmbedHost>;
