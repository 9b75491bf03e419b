export interface LocalServer {
  base: string;
  /** The server process; its children share its process group. */
  pid: number;
  stateDir: string;
  vars: Record<string, string>;
  output(): string;
  stop(options?: { keepState?: boolean }): Promise<void>;
}
export declare function startLocalServer(options: {
  port: number;
  stateDir?: string;
  args?: string[];
  onOutput?: (chunk: string) => void;
  env?: Record<string, string | undefined>;
  command?: string[];
}): Promise<LocalServer>;
