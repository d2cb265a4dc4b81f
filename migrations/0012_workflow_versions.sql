CREATE TABLE `workflow_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`workflow_id` text NOT NULL,
	`workflow_key` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`action` text NOT NULL,
	`author_type` text NOT NULL,
	`author_id` text,
	`author_name` text NOT NULL,
	`summary` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_versions_wf_version_uq` ON `workflow_versions` (`workflow_id`,`version`);--> statement-breakpoint
CREATE INDEX `workflow_versions_env_key_idx` ON `workflow_versions` (`environment_id`,`workflow_key`);--> statement-breakpoint
ALTER TABLE `workflows` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Workflows from before versions start their history at version 1, as they are now.
INSERT INTO `workflow_versions` (`id`, `environment_id`, `workflow_id`, `workflow_key`, `version`, `definition`, `action`, `author_type`, `author_id`, `author_name`, `summary`, `created_at`)
SELECT 'wfv_' || lower(hex(randomblob(16))), `environment_id`, `id`, `key`, 1,
  json_object('key', `key`, 'name', `name`, 'description', `description`,
    'active', CASE WHEN `active` THEN json('true') ELSE json('false') END,
    'critical', CASE WHEN `critical` THEN json('true') ELSE json('false') END,
    'unsubscribe', `unsubscribe`,
    'tags', json(`tags`), 'payloadSchema', CASE WHEN `payload_schema` IS NULL THEN NULL ELSE json(`payload_schema`) END, 'steps', json(`steps`)),
  'created', 'admin', NULL, 'before versions', 'Saved before versions were kept', `updated_at`
FROM `workflows` WHERE `deleted_at` IS NULL;--> statement-breakpoint
UPDATE `workflows` SET `version` = 1 WHERE `deleted_at` IS NULL;
