import { MESSAGE_STATUSES, type Client, type Message, type MessageStatus, type MessageWithEvents } from "../api";
import { formatTime, h, mount, pretty } from "../dom";
import { problemView } from "../problem";
import type { View } from "./view";

const PAGE_SIZE = 50;
const isStatus = (value: string): value is MessageStatus => (MESSAGE_STATUSES as readonly string[]).includes(value);

export function messagesView(client: Client): View {
  const status = h(
    "select",
    { id: "status-filter", "aria-label": "Status" },
    h("option", { value: "" }, "All statuses"),
    MESSAGE_STATUSES.map((s) => h("option", { value: s }, s)),
  );
  const refresh = h("button", { type: "button" }, "Refresh");
  const table = h("div", { class: "table-wrap" });
  const more = h("button", { type: "button", class: "secondary", hidden: true }, "Load more");
  const list = h(
    "section",
    { class: "list wide", "aria-label": "Messages" },
    h("div", { class: "toolbar" }, h("h2", {}, "Messages"), h("label", { for: "status-filter" }, "Status"), status, refresh),
    table,
    more,
  );
  const detail = h("section", { class: "detail" }, h("p", { class: "muted" }, "Choose a message to see its timeline."));
  const root = h("div", { class: "split messages" }, list, detail);
  let messages: Message[] = [];
  let cursor: string | null = null;
  let selected: string | undefined;
  let generation = 0;

  async function load(append: boolean): Promise<void> {
    const mine = ++generation;
    if (!append) mount(table, h("p", { class: "muted" }, "Loading messages…"));
    try {
      const filter = isStatus(status.value) ? status.value : undefined;
      const page = await client.listMessages({ status: filter, limit: PAGE_SIZE, cursor: append ? (cursor ?? undefined) : undefined });
      if (mine !== generation) return;
      messages = append ? [...messages, ...page.data] : page.data;
      cursor = page.nextCursor;
      renderTable();
    } catch (error) {
      if (mine === generation) mount(table, problemView(error));
    }
  }

  function renderTable(): void {
    more.hidden = cursor === null;
    if (!messages.length) {
      mount(
        table,
        h(
          "p",
          { class: "muted" },
          status.value ? `No ${status.value} messages.` : "No messages yet. Trigger a workflow to see its messages here.",
        ),
      );
      return;
    }
    mount(
      table,
      h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Created", "Status", "Workflow · step", "To", "Subject"].map((t) => h("th", {}, t)),
          ),
        ),
        h(
          "tbody",
          {},
          messages.map((m) =>
            h(
              "tr",
              {
                class: m.id === selected ? "active" : undefined,
                "data-message": m.id,
                onclick: () => (location.hash = `#/messages/${encodeURIComponent(m.id)}`),
              },
              h(
                "td",
                { class: "nowrap" },
                h("a", { href: `#/messages/${encodeURIComponent(m.id)}`, title: m.createdAt }, formatTime(m.createdAt, "short")),
              ),
              h("td", {}, statusBadge(m.status)),
              h("td", {}, m.workflow, h("div", { class: "muted small" }, `${m.stepId} · ${m.channel}`)),
              h("td", {}, m.to ?? "—"),
              h("td", { class: "ellipsis" }, m.subject ?? m.preview ?? ""),
            ),
          ),
        ),
      ),
    );
  }

  async function showMessage(id: string): Promise<void> {
    mount(detail, h("p", { class: "muted" }, "Loading…"));
    try {
      const message = await client.getMessage(id);
      if (selected === id) mount(detail, messageDetail(message));
    } catch (error) {
      if (selected === id) mount(detail, problemView(error));
    }
  }

  status.addEventListener("change", () => void load(false));
  refresh.addEventListener("click", () => {
    void load(false);
    if (selected) void showMessage(selected);
  });
  more.addEventListener("click", () => void load(true));
  void load(false);

  return {
    root,
    show(param) {
      if (param === selected) return;
      selected = param;
      renderTable();
      if (param) void showMessage(param);
      else mount(detail, h("p", { class: "muted" }, "Choose a message to see its timeline."));
    },
  };
}

function statusBadge(status: MessageStatus): HTMLElement {
  return h("span", { class: `badge status-${status}` }, status);
}

function messageDetail(m: MessageWithEvents): HTMLElement {
  const facts: [string, string | Node][] = [
    ["Status", statusBadge(m.status)],
    ["Workflow", `${m.workflow} · step ${m.stepId}`],
    ["Channel", `${m.channel}${m.provider ? ` via ${m.provider}` : ""}`],
    ["Subscriber", m.subscriberId],
    ["To", m.to ?? "—"],
    ["Transaction", m.transactionId],
    ["Attempts", String(m.attempts)],
  ];
  if (m.providerMessageId) facts.push(["Provider id", m.providerMessageId]);
  return h(
    "div",
    { class: "message" },
    h("h2", {}, m.subject ?? m.preview ?? m.id),
    h("p", { class: "muted" }, h("code", {}, m.id)),
    m.error ? h("div", { class: "problem" }, h("strong", {}, m.error.code), h("p", {}, m.error.message)) : null,
    h(
      "dl",
      { class: "facts" },
      facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
    ),
    h("h3", {}, "Timeline"),
    m.events.length
      ? h(
          "ol",
          { class: "timeline", "data-testid": "timeline" },
          m.events.map((e) =>
            h(
              "li",
              { "data-status": e.status },
              statusBadge(e.status),
              h("time", { datetime: e.at }, formatTime(e.at)),
              e.detail && Object.keys(e.detail).length ? h("pre", { class: "json small" }, pretty(e.detail)) : null,
            ),
          ),
        )
      : h("p", { class: "muted" }, "No events recorded yet."),
    m.content ? h("details", {}, h("summary", {}, "Content"), h("pre", { class: "json" }, pretty(m.content))) : null,
  );
}
