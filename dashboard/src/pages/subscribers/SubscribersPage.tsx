import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { DataList } from "../../ui/DataList";
import { Field } from "../../ui/Field";
import { PageHeader } from "../../ui/PageHeader";
import { useDebounced } from "../../ui/use-debounced";
import { subscribersQuery } from "./queries";
import { fullName, searchFilter, subscriberPath } from "./search";
import "./subscribers.css";
import { Input } from "../../ui/Input";
import { Button } from "../../ui/Button";

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
  const api = useApi();
  const list = useInfiniteQuery({
    ...subscribersQuery(api, filter),
    // The last answer stays on screen while the next search runs, instead of a flash of "Loading".
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader title="Subscribers">
        <Button asChild>
          <Link to="/tenants">Tenants</Link>
        </Button>
        <Button asChild variant="primary">
          <Link to="/subscribers/new">New subscriber</Link>
        </Button>
      </PageHeader>
      <div className="filters sub-search">
        <Field label="Search" hint="Part of an id or name, a whole email address, or a phone number such as +41791234567.">
          <Input
            type="search"
            value={search}
            placeholder="Search by id, name, email or phone"
            onChange={(e) => setSearch(e.target.value)}
          />
        </Field>
      </div>
      <DataList
        list={list}
        what="subscribers"
        empty={search.trim() ? "No subscriber matches." : "No subscribers yet: a trigger or POST /sub creates them."}
        moreClassName="sub-more"
        columns={["Subscriber", "Name", "Email", "Phone", "Updated"]}
        row={(s) => (
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
        )}
      />
    </>
  );
}
