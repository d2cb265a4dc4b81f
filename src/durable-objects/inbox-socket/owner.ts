// Apart from the object's class, so the Worker's side (client.ts) imports no `cloudflare:workers`
// (scripts load app.ts in Node).

/** Set by the Worker only (client.ts; the object is not reachable from outside): whose socket an upgrade opens. */
export const SOCKET_ENVIRONMENT_HEADER = "x-clarion-environment";
export const SOCKET_SUBSCRIBER_HEADER = "x-clarion-subscriber";

/** Kept on each socket (it survives hibernation), so a close knows whose presence it ends. */
export interface SocketOwner {
  environmentId: string;
  subscriberId: string;
}
