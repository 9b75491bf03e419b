export function reachable(host: string, port: number, timeoutMs?: number): Promise<boolean>;
export function ensureLocalPostgres(
  connectionString: string,
  options?: { log?: (line: string) => void; ownPortIfRefused?: boolean },
): Promise<{ started: boolean; stop(): Promise<void>; connectionString: string }>;
