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
/** A TCP port on 127.0.0.1 that nothing listens on, chosen by the system. */
export declare function freePort(): Promise<number>;
