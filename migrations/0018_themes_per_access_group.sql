-- At most 50 themes per access group (docs/theming.md): the insert itself is refused past
-- the limit, so two creations racing for the 50th place cannot both win. The service reads
-- the message and answers 409 theme_limit_reached.
CREATE TRIGGER `themes_per_access_group` BEFORE INSERT ON `themes`
WHEN (SELECT count(*) FROM `themes` WHERE `access_group_id` = NEW.`access_group_id`) >= 50
BEGIN
  SELECT RAISE(ABORT, 'theme_limit_reached');
END;
