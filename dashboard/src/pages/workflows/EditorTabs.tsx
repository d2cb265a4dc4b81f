import { Link } from "react-router";

/** A saved workflow's two tabs: its editor and its history. */
export function EditorTabs({ tab }: { tab: "editor" | "history" }) {
  return (
    <nav className="tabs" aria-label="Workflow">
      <Link to={{ search: "" }} aria-current={tab === "editor" ? "page" : undefined}>
        Editor
      </Link>
      <Link to={{ search: "?tab=history" }} aria-current={tab === "history" ? "page" : undefined}>
        History
      </Link>
    </nav>
  );
}
