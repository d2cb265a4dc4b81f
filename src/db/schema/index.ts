export * from "./environments";
export * from "./subscribers";
export * from "./workflows";
export * from "./triggers";
export * from "./suppressions";
export * from "./idempotency";
export * from "./dashboard-sessions";
export * from "./event-webhooks";
