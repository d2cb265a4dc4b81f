import type { Db } from "../../db/client";
import { contentAt } from "../../db/queries/content-at";
import type { LayoutSource } from "../../engine/layouts";
import { PartialSet } from "../../engine/partials";
import type { ChannelStep } from "../../engine/steps";
import type { RenderAssets } from "../../engine/templates";

/** The layouts and partials a trigger renders with: those of the content stamp it was accepted at. */
export interface PinnedContent {
  layouts: ReadonlyMap<string, LayoutSource>;
  defaultLayout: LayoutSource | null;
  partials: PartialSet;
}

const NONE: PinnedContent = { layouts: new Map(), defaultLayout: null, partials: PartialSet.EMPTY };

const CACHED_STAMPS = 64;
/** What a stamp names never changes: kept per isolate, with its parsed partials (engine/partials.ts caches by ref). */
const pinned = new Map<string, Promise<PinnedContent>>();

async function read(db: Db, environmentId: string, stamp: number): Promise<PinnedContent> {
  const { layouts, partials } = await contentAt(db, environmentId, stamp);
  const sources = layouts.map((l) => ({
    source: { key: l.key, version: l.version, html: l.definition.html, text: l.definition.text } satisfies LayoutSource,
    isDefault: l.definition.isDefault,
  }));
  return {
    layouts: new Map(sources.map((s) => [s.source.key, s.source])),
    defaultLayout: sources.find((s) => s.isDefault)?.source ?? null,
    partials: new PartialSet(
      partials.map((p) => ({ key: p.key, content: p.definition.content, ref: `${environmentId}/${p.key}@${p.version}` })),
    ),
  };
}

/**
 * The content at `stamp`; 0 (no layout or partial ever written) reads nothing. A record from
 * before stamps (undefined) reads the newest content, uncached.
 */
export function pinnedContent(db: Db, environmentId: string, stamp: number | undefined): Promise<PinnedContent> {
  if (stamp === 0) return Promise.resolve(NONE);
  if (stamp === undefined) return read(db, environmentId, Number.MAX_SAFE_INTEGER);
  const key = `${environmentId}\u0000${stamp}`;
  const hit = pinned.get(key);
  if (hit) return hit;
  const loading = read(db, environmentId, stamp);
  if (pinned.size >= CACHED_STAMPS) pinned.delete(pinned.keys().next().value as string);
  pinned.set(key, loading);
  loading.catch(() => pinned.delete(key));
  return loading;
}

/** What one step renders with: an email's layout (its own, none, or the default) and the partials. */
export function assetsFor(step: ChannelStep, content: PinnedContent): RenderAssets | { error: string } {
  if (step.type !== "email" || step.layout === null) return { layout: null, partials: content.partials };
  if (step.layout === undefined) return { layout: content.defaultLayout, partials: content.partials };
  const layout = content.layouts.get(step.layout);
  if (!layout) return { error: `No layout "${step.layout}" in this environment when the trigger was accepted.` };
  return { layout, partials: content.partials };
}
