export type AdminRequest = (method: string, path: string, body?: unknown) => Promise<any>;
export function adminClient(base: string, token: string): AdminRequest;
export function pushDashboard(request: AdminRequest, file: unknown, options?: { tags?: string[]; draft?: boolean }): Promise<any>;
