/**
 * The LLM view's list of messages (and the tool results only the request adds). A long list —
 * from WINDOW_FROM messages on — renders only the chunks of messages near the visible part of the
 * panel (common/use-visible-chunks.ts) and a placeholder of measured or estimated height for the
 * others; the chunk holding the selected entry's message, or a message asked for (message-reveal.ts),
 * is always rendered so that it can be scrolled to, and so is the last. A shorter list renders
 * every message.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ContextView } from "../../../../core/api/dto.ts";
import type { AddedResult, RequestChange } from "../../../../core/session/request-messages.ts";
import type { RequestNoteKey } from "../../../../core/session/request-note-groups.ts";
import type { MessageTextHole } from "../../../../core/text/text-hole.ts";
import { useCanopy } from "../../store/index.ts";
import { scrollParent, useVisibleChunks, type VisibleChunkOptions } from "../common/use-visible-chunks.ts";
import { treeLookup } from "../tree/tree-lookup.ts";
import { AddedResultItem } from "./AddedResultItem.tsx";
import { MessageItem } from "./MessageItem.tsx";
import { onRevealMessage } from "./message-reveal.ts";
import { revealInPane } from "./reveal-in-pane.ts";
import { type ScrollAnchor, scrollAnchor } from "./scroll-anchor.ts";

/** From this many messages on, only the chunks near the view are in the page. */
export const WINDOW_FROM = 300;
/** Messages per chunk: a chunk is rendered or left out as a whole. */
const CHUNK_MESSAGES = 20;
/** A collapsed message is about 130 px; chunks within 1,200 px of the view are rendered, and
 * before the observer answers, those in the first 2,000 px of the list. */
const CHUNKS: VisibleChunkOptions = { rowPx: 130, marginPx: 1200, firstScreenPx: 2000 };

const NO_CHANGES: readonly RequestChange[] = [];

/** Type and kind of an entry by id: the tree's cached lookup (not a new map of every entry per refresh). */
function useEntryKinds(): { get(id: string): { type: string; kind: string } | undefined } {
  const nodes = useCanopy((state) => state.tree?.nodes);
  return useMemo(() => (nodes ? treeLookup(nodes).byId : new Map()), [nodes]);
}

export function MessageList({
  context,
  grouped,
}: {
  context: ContextView;
  grouped: ReadonlySet<RequestNoteKey>;
}) {
  const kinds = useEntryKinds();
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const chunks = useVisibleChunks(CHUNKS);
  const listRef = useRef<HTMLOListElement | null>(null);
  const { rootRef } = chunks;
  const setList = useCallback(
    (element: HTMLOListElement | null) => {
      listRef.current = element;
      rootRef(element);
    },
    [rootRef],
  );
  const scrolledFor = useRef<string | null>(null);
  const count = context.messages.length;
  const windowed = count >= WINDOW_FROM;
  // A windowed list keeps what it shows in place as chunks are swapped (scroll-anchor.ts).
  const anchor = useRef<ScrollAnchor | null>(null);
  useLayoutEffect(() => {
    const list = listRef.current;
    const pane = list ? scrollParent(list) : null;
    if (!windowed || !list || !pane) return;
    const kept = scrollAnchor(list, pane);
    anchor.current = kept;
    kept.record();
    const onScroll = () => kept.scrolled();
    pane.addEventListener("scroll", onScroll, { passive: true });
    const resized = new ResizeObserver(() => kept.restore());
    resized.observe(list);
    return () => {
      pane.removeEventListener("scroll", onScroll);
      resized.disconnect();
      anchor.current = null;
    };
  }, [windowed]);
  useLayoutEffect(() => anchor.current?.restore());
  // A message asked for from outside (a "Show which" number): rendered, then scrolled to.
  const [reveal, setReveal] = useState<{ index: number; times: number } | null>(null);
  useEffect(
    () => onRevealMessage((index) => setReveal((previous) => ({ index, times: (previous?.times ?? 0) + 1 }))),
    [],
  );
  useLayoutEffect(() => {
    if (reveal === null) return;
    const list = listRef.current;
    const target = list?.querySelector(`.message[data-message-index="${reveal.index}"]`);
    const pane = list ? scrollParent(list) : null;
    if (target && pane) revealInPane(target, pane, "center");
    if (target) anchor.current?.record(target);
  }, [reveal]);
  // A newly selected entry (tree click, search hit) is the last message: bring it into view once.
  useEffect(() => {
    const key = selectedEntryId === null ? null : `${context.sessionId}\u0000${selectedEntryId}`;
    if (key === null || key === scrolledFor.current || context.leafId !== selectedEntryId) return;
    const list = listRef.current;
    const current = list?.querySelector('[aria-current="true"]');
    const pane = list ? scrollParent(list) : null;
    if (!current || !pane) return;
    scrolledFor.current = key;
    revealInPane(current, pane, "nearest");
    anchor.current?.record(current);
  }, [context, selectedEntryId]);
  // Per message, its texts that came without their middle (same arrays while the view stays).
  const holes = useMemo(() => {
    const byMessage = new Map<number, MessageTextHole[]>();
    for (const hole of context.textHoles ?? [])
      byMessage.set(hole.messageIndex, [...(byMessage.get(hole.messageIndex) ?? []), hole]);
    return byMessage;
  }, [context.textHoles]);
  if (count === 0) {
    return (
      <p className="empty">
        The model receives no messages at this leaf
        {context.leafId ? " (only metadata entries lead here)" : " (the session has no leaf)"}.
      </p>
    );
  }
  const { added, changes } = context.request;
  const addedAt = new Map<number, AddedResult[]>();
  for (const result of added) addedAt.set(result.before, [...(addedAt.get(result.before) ?? []), result]);
  const addedBefore = (index: number) =>
    (addedAt.get(index) ?? []).map((result, i) => (
      // biome-ignore lint/suspicious/noArrayIndexKey: rebuilt whole with the list; position is the identity
      <AddedResultItem key={`added-${index}-${i}`} added={result} />
    ));
  const item = (index: number) => {
    const message = context.messages[index];
    if (!message) return [];
    const entryId = context.messageEntryIds[index] ?? null;
    const info = entryId === null ? undefined : kinds.get(entryId);
    return [
      ...addedBefore(index),
      <MessageItem
        key={`message-${index}`}
        message={message}
        index={index}
        entryId={entryId}
        tokens={context.messageTokens[index] ?? 0}
        entryType={info?.type}
        entryKind={info?.kind}
        current={entryId !== null && entryId === selectedEntryId}
        changes={changes[index] ?? NO_CHANGES}
        grouped={grouped}
        holes={holes.get(index)}
        blobs={context.blobImages}
      />,
    ];
  };
  const items = (from: number, to: number) => {
    const out = [];
    for (let index = from; index < to; index++) out.push(...item(index));
    if (to === count) out.push(...addedBefore(count));
    return out;
  };
  if (!windowed) {
    return (
      <ol className="messages" ref={setList}>
        {items(0, count)}
      </ol>
    );
  }
  // The chunks that stay rendered wherever the view is: the selected entry's message, the one
  // asked for, and the last (the leaf's message, the newest reply an agent appends).
  const pinned = new Set<number>([Math.floor((count - 1) / CHUNK_MESSAGES)]);
  const currentIndex = selectedEntryId === null ? -1 : context.messageEntryIds.indexOf(selectedEntryId);
  if (currentIndex >= 0) pinned.add(Math.floor(currentIndex / CHUNK_MESSAGES));
  if (reveal !== null && reveal.index < count) pinned.add(Math.floor(reveal.index / CHUNK_MESSAGES));
  const parts = [];
  // Where each chunk would start if nothing were measured yet: decides the first screen's chunks.
  let top = 0;
  for (let first = 0, chunk = 0; first < count; first += CHUNK_MESSAGES, chunk++) {
    const key = `chunk-${chunk}`;
    const rows = Math.min(CHUNK_MESSAGES, count - first);
    const render = pinned.has(chunk) || chunks.shown(key, top);
    const height = chunks.height(key, rows);
    top += height;
    // An <ol> may hold only <li>: a chunk is an item without a role holding a list without one,
    // so the messages are the outer list's items to assistive technology.
    parts.push(
      render ? (
        <li key={key} ref={chunks.refFor(key)} role="none" className="message-chunk" data-rows={rows}>
          <ol role="none" className="message-chunk-list">
            {items(first, first + rows)}
          </ol>
        </li>
      ) : (
        <li
          key={key}
          ref={chunks.refFor(key)}
          role="none"
          className="message-chunk-placeholder"
          data-placeholder=""
          data-rows={rows}
          data-first-index={first}
          aria-hidden="true"
          style={{ height }}
        />
      ),
    );
  }
  return (
    <ol className="messages windowed" ref={setList} data-windowed="">
      {parts}
    </ol>
  );
}
