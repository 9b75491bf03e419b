-- A data source is a D1 database (`d1`) or a PostgreSQL database behind Hyperdrive (`postgres`).
ALTER TABLE `data_sources` ADD `kind` text DEFAULT 'd1' NOT NULL;
