import type { Browser } from "puppeteer-core";
export function findChromium(): string | null;
export function ensureChromium(): Promise<string | null>;
export function chromiumArgs(): string[];
export function launchBrowser(): Promise<Browser>;
/** The fontconfig file the registry's Chromium is started with. */
export const registryFontsConf: string;
export function fontsConfXml(): string;
