// How a step type or a channel is named for a reader: the API's keys (`in_app`) stay in code and links.

export const STEP_TYPE_LABEL: Readonly<Record<string, string>> = {
  email: "Email",
  sms: "SMS",
  push: "Push",
  chat: "Chat",
  in_app: "In-app",
  delay: "Delay",
  digest: "Digest",
  throttle: "Throttle",
  branch: "Branch",
  http: "Fetch",
  wait: "Wait for event",
  trigger_workflow: "Trigger workflow",
  update_subscriber: "Update subscriber",
};

/** A step type's or a channel's name; an unknown one as it is. */
export const typeLabel = (type: string) => STEP_TYPE_LABEL[type] ?? type;
