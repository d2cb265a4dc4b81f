// Emission: an event is a row written in the same D1 batch as the row it describes
// (db/queries/events.ts), then named in one Queue message per batch of events
// (delivery/webhooks/dispatch.ts, which delivery's consumer sends through too). A feature that
// writes an event reaches both here; the cron that sends again what was lost is endpoints/sweep.ts.
export { eventRow, eventStatements } from "../../db/queries/events";
export { dispatchEvents, dispatchWritten } from "../../delivery/webhooks/dispatch";
