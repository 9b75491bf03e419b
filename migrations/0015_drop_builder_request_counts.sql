-- The report builder's per-customer limit is counted by leases from a per-customer guard (the
-- API tokens' mechanism, src/http/customer-limit.ts): the window counts this table kept on the
-- D1 primary are no longer written or read.
DROP TABLE IF EXISTS `builder_request_counts`;
