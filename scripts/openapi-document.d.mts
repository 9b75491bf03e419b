/** The document /openapi.json answers for `origin`, built without a server (scripts/openapi-document.mjs). */
export declare function openApiDocument(origin?: string): Promise<Record<string, unknown>>;
