export declare function warehouseConnectionString(root: string): string;
export declare function describeDatabase(connectionString: string): string;
export declare function loadDemoOrders(connectionString: string): Promise<number>;
