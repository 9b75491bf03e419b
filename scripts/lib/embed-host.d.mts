export interface EmbedHost {
  origin: string;
  tokenCalls: { at: number; token: string; expires_at: string }[];
  stop(): Promise<void>;
}
export function startEmbedHost(options: { apiBase: string; apiToken: string; port?: number }): Promise<EmbedHost>;
