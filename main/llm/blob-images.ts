/**
 * oh-my-pi keeps large images as `blob:sha256:<hex>` refs with the bytes in `<agentDir>/blobs`
 * and resolves them when it loads a session (SPEC §1.7); a chat turn and `context:get` with
 * `blobImages` resolve them the same way (file-mention images too, SPEC §13.21). A missing blob
 * keeps its ref, as in the agent.
 */
import fs from "node:fs";
import path from "node:path";
import type { ImageContent, LlmMessage } from "../../core/session/entries.ts";
import { requireSession } from "../library/load.ts";
import type { Database } from "../store/open.ts";

const BLOB_REF = /^blob:sha256:([0-9a-f]{64})$/;

/**
 * Where the blobs of a session file can be: the agent folder the file sits in
 * (`<agentDir>/sessions/<cwd folder>/<file>.jsonl`); none for a session without a file.
 */
export function blobFoldersFor(sourcePath: string | null): string[] {
  return sourcePath ? [path.join(path.dirname(path.dirname(path.dirname(sourcePath))), "blobs")] : [];
}

/** Base64 of the blob a ref names, from the first folder that has it; undefined if none. */
function readBlob(ref: string, folders: readonly string[]): string | undefined {
  const hex = BLOB_REF.exec(ref)?.[1];
  if (hex === undefined) return undefined;
  for (const folder of folders) {
    try {
      return fs.readFileSync(path.join(folder, hex)).toString("base64");
    } catch {
      // Not in this folder: try the next one.
    }
  }
  return undefined;
}

function resolveImage(image: ImageContent, folders: readonly string[]): ImageContent {
  if (typeof image.data !== "string" || !image.data.startsWith("blob:")) return image;
  const data = readBlob(image.data, folders);
  return data === undefined ? image : { ...image, data };
}

function resolveContent<T>(content: T, folders: readonly string[]): T {
  if (!Array.isArray(content)) return content;
  let changed = false;
  const blocks = content.map((block: unknown) => {
    const b = block as { type?: unknown };
    if (b?.type !== "image") return block;
    const resolved = resolveImage(block as ImageContent, folders);
    if (resolved !== block) changed = true;
    return resolved;
  });
  return (changed ? blocks : content) as T;
}

/** The messages with every resolvable image blob ref replaced by its base64 data. */
export function resolveBlobImages(messages: readonly LlmMessage[], folders: readonly string[]): LlmMessage[] {
  if (folders.length === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== "user" && message.role !== "toolResult") return message;
    const content = resolveContent(message.content, folders);
    return content === message.content ? message : ({ ...message, content } as LlmMessage);
  });
}

/** The bytes the blob a ref names holds, from the first folder that has it; null if none. */
function blobSize(ref: string, folders: readonly string[]): number | null {
  const hex = BLOB_REF.exec(ref)?.[1];
  if (hex === undefined) return null;
  for (const folder of folders) {
    try {
      return fs.statSync(path.join(folder, hex)).size;
    } catch {
      // Not in this folder: try the next one.
    }
  }
  return null;
}

/**
 * Every image blob ref of `messages` → the size of its blob in the session's agent folder, null
 * when it has none (the page shows refs without their bytes; undefined: no refs).
 */
export function sessionBlobImageSizes(
  db: Database,
  sessionId: string,
  messages: readonly LlmMessage[],
): Record<string, number | null> | undefined {
  let folders: string[] | undefined;
  let sizes: Record<string, number | null> | undefined;
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "toolResult") continue;
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as unknown[]) {
      const b = block as { type?: unknown; data?: unknown };
      if (b?.type !== "image" || typeof b.data !== "string" || !b.data.startsWith("blob:")) continue;
      folders ??= blobFoldersFor(requireSession(db, sessionId).source_path);
      sizes ??= {};
      if (!(b.data in sizes)) sizes[b.data] = blobSize(b.data, folders);
    }
  }
  return sizes;
}

/** `messages` of a library session with its blob refs resolved from the session file's agent folder. */
export function resolveSessionBlobImages(
  db: Database,
  sessionId: string,
  messages: readonly LlmMessage[],
): LlmMessage[] {
  return resolveBlobImages(messages, blobFoldersFor(requireSession(db, sessionId).source_path));
}
