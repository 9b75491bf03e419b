/**
 * The R2 custom metadata of a captured file: where its panels' results came from. The job
 * writes it with the file; the download answers it as `X-Query-Cache`.
 */
export const QUERY_CACHE_METADATA = "query-cache";
