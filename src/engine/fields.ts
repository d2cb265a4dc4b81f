import type { TemplateContext } from "./content";

const ROOTS = ["payload", "subscriber", "actor", "vars", "tenant", "workflow", "step", "steps", "signal"] as const;
type Root = (typeof ROOTS)[number];
const isRoot = (name: string | undefined): name is Root => (ROOTS as readonly (string | undefined)[]).includes(name);

/** Own properties only: a path like `payload.constructor` must not reach into prototypes. */
function child(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  if (value !== null && typeof value === "object" && Object.hasOwn(value, key)) {
    return (value as Record<string, unknown>)[key];
  }
  return undefined;
}

/** Reads a dotted path (`payload.items.0.sku`, `steps.email-1.status`) from a context; undefined when absent. */
export function readField(ctx: TemplateContext, path: string): unknown {
  const [root, ...rest] = path.split(".");
  if (!isRoot(root)) return undefined;
  let current: unknown = ctx[root];
  for (const key of rest) {
    if (current === undefined || current === null) return undefined;
    current = child(current, key);
  }
  return current;
}
