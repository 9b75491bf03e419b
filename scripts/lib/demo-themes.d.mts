export declare const DARK_THEME: string;
export declare const LIGHT_THEME: string;
export declare function demoThemes(): { name: string; theme: Record<string, unknown> }[];
