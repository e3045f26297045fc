/**
 * Repeated request notes said once: a note of the same kind on many messages (e.g. "thinking not
 * sent" on every reply of a long session) becomes one line with how many and which messages, so
 * the notes that differ stay in sight. The messages keep a short mark. Shared by the app's LLM
 * view and `canopy context`; the per-message changes themselves (RequestView) are unchanged.
 */
import type { RequestChange } from "./request-messages.ts";

/** A kind of note is grouped when this many messages (or more) carry it. */
export const GROUP_NOTES_AT = 3;

/** What makes two notes "the same kind": their kind and, where the words depend on it, the reason. */
export type RequestNoteKey =
  | `dropped:${Extract<RequestChange, { kind: "dropped" }>["reason"]}`
  | `thinking-removed:${Extract<RequestChange, { kind: "thinking-removed" }>["reason"]}`
  | "images-blocked"
  | "thinking-as-text"
  | "blocks-removed"
  | "result-as-user";

export interface RequestNoteGroup {
  key: RequestNoteKey;
  /** The view messages carrying the note, in order (0-based, like RequestView.changes). */
  indexes: number[];
  /** The note on each of them (parallel to `indexes`). */
  changes: RequestChange[];
}

export function requestNoteKey(change: RequestChange): RequestNoteKey {
  switch (change.kind) {
    case "dropped":
      return `dropped:${change.reason}`;
    case "thinking-removed":
      return `thinking-removed:${change.reason}`;
    default:
      return change.kind;
  }
}

/** The kinds of note on at least `atLeast` messages, in the order they first appear. */
export function groupRequestNotes(
  changes: readonly (readonly RequestChange[])[],
  atLeast: number = GROUP_NOTES_AT,
): RequestNoteGroup[] {
  const byKey = new Map<RequestNoteKey, RequestNoteGroup>();
  changes.forEach((list, index) => {
    for (const change of list) {
      const key = requestNoteKey(change);
      const group = byKey.get(key) ?? { key, indexes: [], changes: [] };
      group.indexes.push(index);
      group.changes.push(change);
      byKey.set(key, group);
    }
  });
  return [...byKey.values()].filter((group) => group.indexes.length >= atLeast);
}

/** One line for a whole group (the words of request-notes.ts, counted). */
export function requestGroupText(group: RequestNoteGroup): string {
  const n = group.indexes.length;
  switch (group.key) {
    case "thinking-removed:canopy":
      return `Thinking of ${n} replies is not sent: Canopy's OpenAI-compatible request carries none.`;
    case "thinking-removed:cerebras":
      return `Thinking of ${n} replies is removed: the provider is cerebras.`;
    case "thinking-removed:empty":
      return `Empty thinking of ${n} replies is not sent: they come from another provider/API.`;
    case "thinking-as-text":
      return `Thinking of ${n} replies is sent as plain text: they come from another provider/API.`;
    case "blocks-removed":
      return `Blocks of other kinds (redacted thinking, a model-fallback marker…) of ${n} messages are not sent: Canopy's OpenAI-compatible request carries only text, images and tool calls.`;
    case "result-as-user":
      return `${n} tool results are sent as user messages: no tool call of the request waits for them.`;
    case "images-blocked": {
      const images = group.changes.reduce(
        (sum, change) => sum + (change.kind === "images-blocked" ? change.count : 0),
        0,
      );
      return `${images} images of ${n} messages are sent as “Image reading is disabled.” (images.blockImages).`;
    }
    case "dropped:failed-foreign":
      return `Not sent: ${n} replies that ended in an error or abort from another provider/API are dropped, with their tool results.`;
    case "dropped:failed-empty":
      return `Not sent: ${n} failed replies with no content are dropped.`;
    case "dropped:result-of-dropped":
      return `Not sent: ${n} tool results whose calls belong to replies the request drops.`;
    case "dropped:nothing-to-send":
      return `Not sent: ${n} replies of nothing but thinking, which Canopy's OpenAI-compatible request does not carry.`;
  }
}

/** The short mark a message keeps for a note its group says (a dropped message is marked "not sent" anyway). */
export function requestNoteFlag(change: RequestChange): string {
  switch (change.kind) {
    case "dropped":
      return "not sent";
    case "images-blocked":
      return "images not sent";
    case "thinking-removed":
      return change.reason === "canopy" ? "thinking not sent" : "thinking removed";
    case "thinking-as-text":
      return "thinking as text";
    case "blocks-removed":
      return "blocks not sent";
    case "result-as-user":
      return "sent as user";
  }
}

/** Message numbers as people read them (1-based), consecutive runs as ranges: "2, 4, 6–9". */
export function messageNumbers(indexes: readonly number[]): string {
  const runs: string[] = [];
  let start = -1;
  let end = -1;
  const close = () => {
    if (start < 0) return;
    runs.push(start === end ? `${start + 1}` : `${start + 1}–${end + 1}`);
  };
  for (const index of indexes) {
    if (index === end + 1 && start >= 0) {
      end = index;
      continue;
    }
    close();
    start = index;
    end = index;
  }
  close();
  return runs.join(", ");
}
