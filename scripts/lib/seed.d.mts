export declare function workspaceSeedSql(options: { devApiToken: string; customerTokenSecret: string }): string;
export declare function demoDataSql(): string;
