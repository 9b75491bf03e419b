-- A ClickHouse data source (kind `clickhouse`) is reached over its HTTP(S) interface rather than
-- a binding: `connection` holds `{ url, database, user, password }` as JSON, the password sealed
-- with AES-256-GCM under the secret DATA_SOURCE_KEY (src/lib/secret-box.ts; never answered).
-- NULL for the kinds reached through a binding; `binding` is '' for ClickHouse.
ALTER TABLE `data_sources` ADD COLUMN `connection` text;
