-- A new workspace has two hierarchy levels: Customer (root) and User (DESIGN.md section 3).
INSERT INTO `hierarchy_levels` (`name`, `position`) VALUES ('Customer', 0), ('User', 1);
