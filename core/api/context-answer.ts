/**
 * A context:get answer asked with `since` may leave out the messages it shares at the start with
 * the answer the caller holds (`messagesFrom`): this puts the whole view back together. Pure.
 */
import type { ContextView } from "./dto.ts";

/**
 * The whole view of `answer`: itself when it sent every message, else `base`'s first
 * `messagesFrom` messages (and their text holes) followed by its own. `base` must be the answer
 * named by the `since` it was asked with; null when there is none, which never gets a
 * `messagesFrom` (throws: the view cannot be made).
 */
export function mergeContextAnswer(base: ContextView | null, answer: ContextView): ContextView {
  const from = answer.messagesFrom;
  if (from === undefined) return answer;
  if (!base || base.messages.length < from) {
    throw new Error("context:get left out messages of an answer this view does not hold");
  }
  const { messagesFrom: _left, ...rest } = answer;
  const merged: ContextView = { ...rest, messages: [...base.messages.slice(0, from), ...answer.messages] };
  if (answer.textHoles !== undefined) {
    const shared = (base.textHoles ?? []).filter((hole) => hole.messageIndex < from);
    merged.textHoles = [...shared, ...answer.textHoles];
  }
  return merged;
}
