-- Which access groups may use a data source: a JSON array of access group ids, NULL = every
-- access group (what every data source registered before this column allowed).
ALTER TABLE `data_sources` ADD `access_group_ids` text;
