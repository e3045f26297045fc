/**
 * Content blocks that are none of text, thinking, tool call or image — oh-my-pi's redacted
 * thinking ({type:"redactedThinking", data}), its model fallback marker, a provider's own block —
 * as the LLM view and `canopy context` name them: in place, never as a tool call or an image.
 */
import { toJson } from "../text/json-deep.ts";

export interface OtherBlockText {
  /** What the block is: "redacted thinking", "fallback block". */
  label: string;
  /** What it holds: the size of an encrypted payload, else the block's JSON. */
  text: string;
}

export function describeOtherBlock(block: unknown): OtherBlockText {
  const b = (block !== null && typeof block === "object" ? block : {}) as { type?: unknown; data?: unknown };
  if (b.type === "redactedThinking") {
    const chars = typeof b.data === "string" ? b.data.length : 0;
    return {
      label: "redacted thinking",
      text: `${chars.toLocaleString("en-US")} characters of reasoning the provider encrypted (not readable)`,
    };
  }
  const label = typeof b.type === "string" && b.type !== "" ? `${b.type} block` : "block of no type";
  let text: string;
  try {
    text = toJson(block, 2) ?? String(block);
  } catch {
    text = String(block);
  }
  return { label, text };
}
