CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_env_idx` ON `api_keys` (`environment_id`);--> statement-breakpoint
CREATE TABLE `environments` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `environments_slug_uq` ON `environments` (`slug`);--> statement-breakpoint
CREATE TABLE `subscriber_channels` (
	`environment_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`channel` text NOT NULL,
	`provider` text NOT NULL,
	`address` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `subscriber_id`, `channel`, `provider`, `address`)
);
--> statement-breakpoint
CREATE TABLE `subscribers` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`email` text,
	`phone` text,
	`first_name` text,
	`last_name` text,
	`avatar` text,
	`locale` text,
	`timezone` text,
	`data` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscribers_env_subscriber_uq` ON `subscribers` (`environment_id`,`subscriber_id`);--> statement-breakpoint
CREATE TABLE `topic_members` (
	`environment_id` text NOT NULL,
	`topic_key` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `topic_key`, `subscriber_id`)
);
--> statement-breakpoint
CREATE INDEX `topic_members_subscriber_idx` ON `topic_members` (`environment_id`,`subscriber_id`);--> statement-breakpoint
CREATE TABLE `topics` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `topics_env_key_uq` ON `topics` (`environment_id`,`key`);--> statement-breakpoint
CREATE TABLE `integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`provider` text NOT NULL,
	`channel` text NOT NULL,
	`name` text NOT NULL,
	`active` integer NOT NULL,
	`primary` integer NOT NULL,
	`priority` integer NOT NULL,
	`credentials` text NOT NULL,
	`settings` text NOT NULL,
	`base_url` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `integrations_env_channel_idx` ON `integrations` (`environment_id`,`channel`);--> statement-breakpoint
CREATE TABLE `variables` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`secret` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variables_env_key_uq` ON `variables` (`environment_id`,`key`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`active` integer NOT NULL,
	`critical` integer NOT NULL,
	`tags` text NOT NULL,
	`payload_schema` text,
	`steps` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflows_env_key_uq` ON `workflows` (`environment_id`,`key`);--> statement-breakpoint
CREATE TABLE `message_events` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`message_id` text NOT NULL,
	`status` text NOT NULL,
	`at` integer NOT NULL,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `message_events_message_idx` ON `message_events` (`message_id`,`at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`workflow_key` text NOT NULL,
	`step_id` text NOT NULL,
	`channel` text NOT NULL,
	`provider` text,
	`integration_id` text,
	`status` text NOT NULL,
	`provider_message_id` text,
	`to` text,
	`subject` text,
	`preview` text,
	`content` text,
	`error_code` text,
	`error_message` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_send_identity_uq` ON `messages` (`environment_id`,`transaction_id`,`subscriber_id`,`step_id`);--> statement-breakpoint
CREATE INDEX `messages_env_created_idx` ON `messages` (`environment_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_env_subscriber_idx` ON `messages` (`environment_id`,`subscriber_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_env_status_idx` ON `messages` (`environment_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_provider_message_idx` ON `messages` (`provider_message_id`);--> statement-breakpoint
CREATE TABLE `triggers` (
	`environment_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`workflow_key` text NOT NULL,
	`status` text NOT NULL,
	`recipients` text NOT NULL,
	`payload` text NOT NULL,
	`overrides` text,
	`actor` text,
	`accepted_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `triggers_env_txn_uq` ON `triggers` (`environment_id`,`transaction_id`);--> statement-breakpoint
CREATE INDEX `triggers_env_accepted_idx` ON `triggers` (`environment_id`,`accepted_at`);