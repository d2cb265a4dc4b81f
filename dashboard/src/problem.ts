import { ApiError } from "./api";
import { h } from "./dom";

/** Renders any failure readably: a problem document's title, detail and field errors. */
export function problemView(error: unknown): HTMLElement {
  if (!(error instanceof ApiError)) {
    return h(
      "div",
      { class: "problem", role: "alert" },
      h("strong", {}, "Something went wrong"),
      h("p", {}, error instanceof Error ? error.message : String(error)),
    );
  }
  const p = error.problem;
  const hint =
    p.status === 401
      ? "Check the API key above: it must be a key of this Clarion that has not been revoked."
      : p.status === 0
        ? "Is the Worker running?"
        : null;
  return h(
    "div",
    { class: "problem", role: "alert", "data-code": p.code },
    h("strong", {}, p.status ? `${p.status} ${p.title}` : p.title),
    h("p", {}, p.detail),
    p.errors?.length
      ? h(
          "ul",
          {},
          p.errors.map((e) => h("li", {}, h("code", {}, e.path || "(body)"), " ", e.message)),
        )
      : null,
    hint ? h("p", { class: "hint" }, hint) : null,
    p.requestId ? h("p", { class: "muted" }, `Request id: ${p.requestId}`) : null,
  );
}
