export const projectCacheHome: string;
export function withProjectCacheHome(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
