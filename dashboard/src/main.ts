import { createClient } from "./api";
import { apiKeyStore } from "./api-key";
import { h, mount } from "./dom";
import { messagesView } from "./views/messages";
import type { View } from "./views/view";
import { workflowsView } from "./views/workflows";
import "./style.css";

const ROUTES = { workflows: workflowsView, messages: messagesView } as const;
type RouteName = keyof typeof ROUTES;
const isRoute = (name: string): name is RouteName => Object.hasOwn(ROUTES, name);

const client = createClient({ apiKey: apiKeyStore.get });
let current: { route: RouteName; view: View } | undefined;

const keyInput = h("input", {
  id: "api-key",
  type: "password",
  autocomplete: "off",
  spellcheck: "false",
  placeholder: "ck_dev_…",
  "aria-label": "API key",
});
keyInput.value = apiKeyStore.get();
const keyForm = h(
  "form",
  {
    class: "key",
    onsubmit: (event: Event) => {
      event.preventDefault();
      apiKeyStore.set(keyInput.value.trim());
      current = undefined;
      render();
    },
  },
  h("label", { for: "api-key" }, "API key"),
  keyInput,
  h("button", { type: "submit" }, "Save"),
);
const nav = h("nav", { class: "tabs" });
const main = h("main");

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parseHash(): { route: RouteName; param: string | undefined } {
  const [name = "", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const param = rest.length ? safeDecode(rest.join("/")) : undefined;
  return isRoute(name) ? { route: name, param } : { route: "workflows", param: undefined };
}

function render(): void {
  const { route, param } = parseHash();
  mount(
    nav,
    (Object.keys(ROUTES) as RouteName[]).map((name) =>
      h(
        "a",
        { href: `#/${name}`, class: name === route ? "active" : undefined, "aria-current": name === route ? "page" : undefined },
        name[0]?.toUpperCase() + name.slice(1),
      ),
    ),
  );
  if (!apiKeyStore.get()) {
    mount(
      main,
      h(
        "div",
        { class: "empty" },
        h("h2", {}, "Enter an API key"),
        h(
          "p",
          {},
          "The dashboard reads an environment through the API with its key. ",
          h("code", {}, "npm start"),
          " prints the development key and saves it in ",
          h("code", {}, ".clarion/keys.json"),
          ".",
        ),
      ),
    );
    return;
  }
  // A page is built afresh when you come to it, so its lists are current; moving within it keeps them.
  if (current?.route !== route) {
    current = { route, view: ROUTES[route](client) };
    mount(main, current.view.root);
  }
  current.view.show(param);
}

const app = document.querySelector<HTMLDivElement>("#app");
if (app) {
  mount(app, h("header", { class: "top" }, h("h1", {}, h("a", { href: "#/workflows" }, "Clarion")), nav, keyForm), main);
  window.addEventListener("hashchange", render);
  render();
}
