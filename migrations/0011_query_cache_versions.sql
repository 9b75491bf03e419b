-- Invalidation versions of cached query results (POST /api/invalidate_cache/). Every cache
-- key of a render holds the versions of the viewing customer (and its ancestors) and of the
-- dashboard; bumping one makes what follows miss. Kept on the rows the render reads anyway,
-- so reading them costs no statement and no round trip.
ALTER TABLE `customers` ADD `cache_version` integer DEFAULT 0 NOT NULL;
ALTER TABLE `dashboards` ADD `cache_version` integer DEFAULT 0 NOT NULL;
