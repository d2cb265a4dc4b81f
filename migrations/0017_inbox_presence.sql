CREATE TABLE `inbox_presence` (
	`environment_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`sockets` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `subscriber_id`)
);
