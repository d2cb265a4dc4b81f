import { CURSOR_PAGES } from "../../api/cursor-pages";
import { MoreButton } from "../../ui/MoreButton";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { api, unwrap } from "../../api/client";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { fullName, searchFilter, subscriberPath } from "./search";
import { useDebounced } from "../../ui/use-debounced";
import "./subscribers.css";

const PAGE = 50;

/** Everyone Clarion can notify in this environment, searchable by id, name, email or phone. */
export function SubscribersPage() {
  // The search lives in the address (?search=), so Back from a subscriber returns to the same list.
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get("search") ?? "");
  const settled = useDebounced(search, 300).trim();
  useEffect(() => {
    if (settled !== (params.get("search") ?? "")) setParams(settled ? { search: settled } : {}, { replace: true });
  }, [settled, params, setParams]);
  const filter = searchFilter(settled);
  const list = useInfiniteQuery({
    queryKey: ["subscribers", filter],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/subscribers", { params: { query: { ...filter, cursor: pageParam, limit: PAGE } } })),
    ...CURSOR_PAGES,
    // The last answer stays on screen while the next search runs, instead of a flash of "Loading".
    placeholderData: keepPreviousData,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      <PageHeader title="Subscribers">
        <Link to="/subscribers/new" className="button primary">
          New subscriber
        </Link>
      </PageHeader>
      <div className="filters sub-search">
        <Field label="Search" hint="Part of an id or name, a whole email address, or a phone number such as +41791234567.">
          <input type="search" value={search} placeholder="ada, ada@example.com, +4179…" onChange={(e) => setSearch(e.target.value)} />
        </Field>
      </div>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="subscribers" />
      ) : rows.length === 0 ? (
        <p className="empty muted">
          {search.trim() ? "No subscriber matches." : "No subscribers yet: a trigger or POST /sub creates them."}
        </p>
      ) : (
        <div className="table-wrap" aria-busy={list.isPlaceholderData}>
          <table>
            <thead>
              <tr>
                <th>Subscriber</th>
                <th>Name</th>
                <th>Email</th>
                <th>Phone</th>
                <th>Updated</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.subscriberId} data-subscriber={s.subscriberId}>
                  <td>
                    <Link to={subscriberPath(s.subscriberId)}>
                      <code>{s.subscriberId}</code>
                    </Link>
                  </td>
                  <td>{fullName(s) ?? <span className="muted">—</span>}</td>
                  <td>{s.email ?? <span className="muted">—</span>}</td>
                  <td>{s.phone ?? <span className="muted">—</span>}</td>
                  <td className="sub-nowrap">{new Date(s.updatedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} className="sub-more" />
    </>
  );
}
