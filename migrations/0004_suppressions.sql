CREATE TABLE `suppressions` (
	`environment_id` text NOT NULL,
	`address` text NOT NULL,
	`channel` text NOT NULL,
	`reason` text NOT NULL,
	`provider` text,
	`message_id` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `address`)
);
--> statement-breakpoint
CREATE INDEX `suppressions_env_created_idx` ON `suppressions` (`environment_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_receipts` (
	`integration_id` text NOT NULL,
	`key` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`integration_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `webhook_receipts_received_idx` ON `webhook_receipts` (`received_at`);