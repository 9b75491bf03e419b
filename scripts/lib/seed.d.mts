export declare const demoCustomers: { providedId: string; name: string; level: string; parent: string | null }[];
export declare function workspaceSeedSql(options: { devApiToken: string; customerTokenSecret: string }): string;
export declare function demoDataSql(): string;
