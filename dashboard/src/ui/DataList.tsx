import type { ReactNode } from "react";
import { Loading } from "./Loading";
import { MoreButton } from "./MoreButton";
import { ProblemView } from "./ProblemView";
import { Table } from "./Table";

/**
 * What a list needs of its query: a TanStack infinite query over the API's cursor pages
 * (`{ data: T[] }` each), or a plain query whose data is already the whole array.
 */
export interface ListQuery<T> {
  data?: { pages: { data: T[] }[] } | T[];
  error: unknown;
  isPending: boolean;
  isPlaceholderData?: boolean;
  hasNextPage?: boolean;
  isFetchingNextPage?: boolean;
  fetchNextPage?: () => unknown;
}

/** Rows already at hand (a part of a larger answer) as a list, for the same frame. */
export const fixedList = <T,>(rows: T[]): ListQuery<T> => ({ data: rows, isPending: false, error: null });

/** The rows a list query holds so far, every page read flattened. */
export function rowsOf<T>(list: Pick<ListQuery<T>, "data">): T[] {
  const data = list.data;
  if (!data) return [];
  return Array.isArray(data) ? data : data.pages.flatMap((p) => p.data);
}

interface Frame<T> {
  list: ListQuery<T>;
  /** What loads, in words: "Loading {what}…". */
  what: string;
  /** Shown when there is no row (and no error). */
  empty: ReactNode;
  /** The More button's text and class. */
  more?: string;
  moreClassName?: string;
  /** Inside a card: the empty text is a plain line rather than the page's large centred one. */
  compact?: boolean;
}

/** A column's head: its text, or `{ label }` for a column of controls whose head says nothing on screen. */
export type Column = ReactNode | { label: string };

const isLabel = (column: Column): column is { label: string } =>
  typeof column === "object" && column !== null && "label" in column && typeof column.label === "string";

type Body<T> =
  | {
      /** A table: its column heads, and a `<tr>` (or a keyed fragment of them) per row. */
      columns: Column[];
      row: (item: T) => ReactNode;
      className?: string;
      children?: never;
    }
  | {
      /** Anything else (a list, cards): drawn from every row at once. */
      children: (rows: T[]) => ReactNode;
      columns?: never;
      row?: never;
      className?: never;
    };

/**
 * The frame of every list in the dashboard: a problem, loading, the empty text, the rows, and
 * More for the next page. A page writes only its columns and its row.
 */
export function DataList<T>(props: Frame<T> & Body<T>) {
  const { list, what, empty, more, moreClassName, compact } = props;
  const rows = rowsOf(list);
  return (
    <>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what={what} />
      ) : rows.length === 0 ? (
        list.error ? null : (
          <p className={compact ? "muted" : "empty muted"}>{empty}</p>
        )
      ) : props.children ? (
        props.children(rows)
      ) : (
        <Table busy={list.isPlaceholderData} className={props.className}>
          <thead>
            <tr>
              {props.columns.map((head, i) =>
                isLabel(head) ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for the table's life
                  <th key={i} scope="col" aria-label={head.label} />
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed for the table's life
                  <th key={i} scope="col">
                    {head}
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody>{rows.map(props.row)}</tbody>
        </Table>
      )}
      {list.fetchNextPage ? (
        <MoreButton
          list={{
            hasNextPage: list.hasNextPage ?? false,
            isFetchingNextPage: list.isFetchingNextPage ?? false,
            fetchNextPage: list.fetchNextPage,
          }}
          label={more}
          className={moreClassName}
        />
      ) : null}
    </>
  );
}
