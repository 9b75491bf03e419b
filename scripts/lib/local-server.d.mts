export interface LocalServer {
  base: string;
  /** The server process; its children share its process group. */
  pid: number;
  /** wrangler's devtools port: drawn like the server's (INSPECTOR_PORT), not the shared 9229. */
  inspectorPort: number;
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
/** A TCP port on 127.0.0.1 that nothing listens on, drawn below the system's own picks. */
export declare function freePort(): Promise<number>;
