import { keyedContentRoutes } from "../content/keyed-routes";
import { checkLayout } from "./checks";
import { layoutSchemas } from "./schemas";

export const layoutsRoutes = keyedContentRoutes({
  schemas: layoutSchemas,
  store: (data) => data.layouts,
  check: checkLayout,
  saveErrors: ["layout_content_missing", "translation_key_missing"],
  describe: {
    create:
      "An email's frame: `html` (and optional `text`) with `{{ content }}` once, where an email step's rendered content goes. `isDefault: true` makes it the environment's default (for email steps that name no layout) and takes the flag from the layout that had it.",
    delete:
      "Refused (409 `layout_in_use`, the workflows in `errors`) while an email step names it. Triggers accepted before the delete still render with it.",
    versions: "Newest first. Every create, save (when something changed), revert, promotion, default move and delete writes one.",
    keyImmutable: (key, wanted) =>
      `A layout's key cannot change: email steps name "${key}". Create a layout under "${wanted}", point the steps at it, then delete "${key}".`,
  },
  async usedBy(data, key) {
    const users = await data.layouts.usedBy(key);
    if (users.length === 0) return null;
    return {
      detail: `Layout "${key}" is named by ${users.length} workflow(s): change their email steps' layout first.`,
      errors: users.map((w) => ({ path: `workflows.${w}`, message: `Workflow "${w}" names layout "${key}".` })),
    };
  },
});
