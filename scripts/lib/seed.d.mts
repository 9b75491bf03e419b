export declare function workspaceSeedSql(options: { devApiToken: string; customerTokenSecret: string }): string;
export declare function demoDataSql(): string;
export declare function demoOrders(): { customer_id: string; day: string; month: string; product: string; amount: number }[];
