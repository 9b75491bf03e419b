export function runsWrangler(version: string): boolean;
export function ensureNode(): Promise<void>;
