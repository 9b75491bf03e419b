import type { Plugin } from "esbuild";
import type { Plugin as VitePlugin } from "vite";

export const browserBuildDir: string;
export const browserScripts: { name: string; source: string; inline?: boolean; expression?: boolean; keeps?: string }[];
export function buildBrowserScripts(): Promise<{ name: string; path: string; bytes: number }[]>;
export function builtBrowserScript(name: string): string;
export const browserScriptsAsText: Plugin;
export const browserScriptsAsTextForVite: VitePlugin;
