import { keyedContentRoutes } from "../content/keyed-routes";
import { ContentKey } from "../content/schemas";
import { notFound } from "../../lib/errors";
import { checkPartial, partialUsers } from "./checks";
import { partialSchemas } from "./schemas";

export const partialsRoutes = keyedContentRoutes({
  schemas: partialSchemas,
  store: (data) => data.partials,
  check: checkPartial,
  saveErrors: ["translation_key_missing"],
  describe: {
    create:
      'A block of Liquid any template renders with `{% render "key", name: value %}`: it sees only those arguments. Partials may render partials, 5 deep at most; an unknown partial or a cycle is refused when saved.',
    delete:
      "Refused (409 `partial_in_use`, listed in `errors`) while a workflow, layout or partial renders it. Triggers accepted before the delete still render with it.",
    versions: "Newest first. Every create, save (when something changed), revert, promotion and delete writes one.",
    keyImmutable: (key, wanted) =>
      `A partial's key cannot change: templates render "${key}". Create a partial under "${wanted}", render it instead, then delete "${key}".`,
  },
  async usedBy(data, key) {
    // A key no partial can have is not there (and would make the search for its users' LIKE pattern too long for D1).
    if (!ContentKey.safeParse(key).success) throw notFound("partial_not_found", `partial with key "${key}"`);
    const users = await partialUsers(data, key);
    if (users.length === 0) return null;
    return {
      detail: `Partial "${key}" is rendered by ${users.join(", ")}: stop rendering it there first.`,
      errors: users.map((path) => ({ path, message: `Renders partial "${key}".` })),
    };
  },
});
