CREATE TABLE `subscriber_tenant_preferences` (
	`environment_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`preferences` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `subscriber_id`, `tenant_id`)
);
--> statement-breakpoint
CREATE INDEX `subscriber_tenant_prefs_tenant_idx` ON `subscriber_tenant_preferences` (`environment_id`,`tenant_id`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`environment_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text,
	`data` text,
	`brand` text,
	`preferences` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `tenant_id`)
);
--> statement-breakpoint
CREATE INDEX `tenants_env_name_idx` ON `tenants` (`environment_id`,`name`);--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `tenants` text;