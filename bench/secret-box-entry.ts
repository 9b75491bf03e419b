// Bundled for Node by bench/secret-box.mjs: a ClickHouse connection stored and opened as the
// data plane does it (the URL checked, the password sealed and opened under DATA_SOURCE_KEY).
import { connectionToStore, openConnection } from "../src/data/sources/clickhouse-connection";
import { seal } from "../src/lib/secret-box";

export { connectionToStore, openConnection, seal };
