export declare function readDevVars(path: string): Record<string, string>;
export declare function ensureDevVars(path: string): Record<string, string>;
