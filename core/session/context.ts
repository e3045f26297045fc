/**
 * buildSessionContext (SPEC §3.1–3.3, D4): the agent messages a leaf's path produces (with the
 * compaction in effect applied), the settings read from that path (thinking level, omp model
 * roles, pi-style model, TTSR rules, mode), and for Canopy the source entry of every message.
 */
import type {
  AgentMessage,
  BranchSummaryMessage,
  CompactionEntry,
  CompactionSummaryMessage,
  CustomMessage,
  SessionEntry,
} from "./entries.ts";
import { buildTreeIndex, entryIdOf, type TreeIndex } from "./tree.ts";

/** pi's single model: the last model_change or assistant reply on the path. */
export interface PiModel {
  provider: string;
  modelId: string;
}

export interface SessionContext {
  messages: AgentMessage[];
  /** Id of the entry each message came from (parallel to `messages`; null for an id-less entry). */
  messageEntryIds: (string | null)[];
  thinkingLevel: string;
  /** True when the path contains a thinking_level_change (the agent restores it only then). */
  hasThinkingLevelChange: boolean;
  /** omp: role → "provider/modelId"; legacy provider/modelId model_change entries are ignored. */
  models: Record<string, string>;
  /** pi: the model in effect at the leaf, or null. */
  model: PiModel | null;
  injectedTtsrRules: string[];
  mode: string;
  modeData?: Record<string, unknown>;
  /** The leaf the context was built for (null: empty context). */
  leafId: string | null;
  /** Root → leaf. */
  path: SessionEntry[];
  /** The compaction in effect (the last one on the path). */
  compaction: CompactionEntry | null;
  firstKeptEntryId: string | null;
  /** Whether the compaction's firstKeptEntryId was found on the path before it. */
  firstKeptOnPath: boolean;
}

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function emptyContext(): SessionContext {
  return {
    messages: [],
    messageEntryIds: [],
    thinkingLevel: "off",
    hasThinkingLevelChange: false,
    models: {},
    model: null,
    injectedTtsrRules: [],
    mode: "none",
    leafId: null,
    path: [],
    compaction: null,
    firstKeptEntryId: null,
    firstKeptOnPath: false,
  };
}

function toMs(timestamp: unknown): number {
  return typeof timestamp === "string" ? new Date(timestamp).getTime() : Number.NaN;
}

/** Splits "provider/modelId" at the first slash (model ids may contain slashes). */
export function splitModel(model: string): PiModel {
  const slash = model.indexOf("/");
  return slash < 0
    ? { provider: "", modelId: model }
    : { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
}

/** The message an entry contributes to the context (SPEC §3.3), or undefined. */
export function entryToMessage(entry: SessionEntry): AgentMessage | undefined {
  const e = entry as Loose;
  switch (entry.type) {
    case "message":
      return isObject(e.message) && typeof e.message.role === "string"
        ? (e.message as AgentMessage)
        : undefined;
    case "custom_message": {
      const message: CustomMessage = {
        role: "custom",
        customType: e.customType as string,
        content: e.content as CustomMessage["content"],
        display: e.display as boolean,
        details: e.details,
        timestamp: toMs(e.timestamp),
      };
      return message;
    }
    case "branch_summary": {
      if (typeof e.summary !== "string" || e.summary === "") return undefined;
      const message: BranchSummaryMessage = {
        role: "branchSummary",
        summary: e.summary,
        fromId: e.fromId as string,
        timestamp: toMs(e.timestamp),
      };
      return message;
    }
    default:
      return undefined;
  }
}

export function compactionToMessage(entry: CompactionEntry): CompactionSummaryMessage {
  const message: CompactionSummaryMessage = {
    role: "compactionSummary",
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: toMs(entry.timestamp),
  };
  if (entry.shortSummary !== undefined) message.shortSummary = entry.shortSummary;
  return message;
}

/** The path root → leaf the anchor would walk, cycle-safe. */
function pathFor(leaf: SessionEntry, index: TreeIndex): SessionEntry[] {
  const id = entryIdOf(leaf);
  if (id !== null && index.byId.get(id) === leaf) return index.pathTo(id);
  // A shadowed duplicate or an entry without id used as leaf: itself plus its parent's path.
  const parentId: unknown = leaf.parentId;
  const above = typeof parentId === "string" && parentId !== id ? index.pathTo(parentId) : [];
  return [...above, leaf];
}

/**
 * @param leafId null → empty context; undefined or unknown → the last entry of `entries`.
 * @param index a tree index of the same entries (built when not given).
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  index?: TreeIndex,
): SessionContext {
  if (leafId === null) return emptyContext();
  const tree = index ?? buildTreeIndex(entries);
  const leaf = (leafId === undefined ? undefined : tree.byId.get(leafId)) ?? entries.at(-1);
  if (!leaf) return emptyContext();
  const path = pathFor(leaf, tree);
  const context = emptyContext();
  context.leafId = entryIdOf(leaf);
  context.path = path;

  const rules = new Set<string>();
  let compactionAt = -1;
  path.forEach((entry, i) => {
    const e = entry as Loose;
    switch (entry.type) {
      case "thinking_level_change":
        if (typeof e.thinkingLevel === "string") context.thinkingLevel = e.thinkingLevel;
        context.hasThinkingLevelChange = true;
        break;
      case "model_change": {
        const role = typeof e.role === "string" ? e.role : undefined;
        if (typeof e.model === "string" && e.model !== "") context.models[role ?? "default"] = e.model;
        if (role === undefined || role === "default") {
          if (typeof e.provider === "string" && typeof e.modelId === "string") {
            context.model = { provider: e.provider, modelId: e.modelId };
          } else if (typeof e.model === "string" && e.model !== "") context.model = splitModel(e.model);
        }
        break;
      }
      case "message": {
        const m = e.message;
        if (isObject(m) && m.role === "assistant" && typeof m.provider === "string") {
          const model = typeof m.model === "string" ? m.model : "";
          context.models.default = `${m.provider}/${model}`;
          context.model = { provider: m.provider, modelId: model };
        }
        break;
      }
      case "ttsr_injection":
        if (Array.isArray(e.injectedRules)) {
          for (const rule of e.injectedRules) if (typeof rule === "string") rules.add(rule);
        }
        break;
      case "mode_change":
        if (typeof e.mode === "string") context.mode = e.mode;
        context.modeData = isObject(e.data) ? (e.data as Record<string, unknown>) : undefined;
        break;
      case "compaction":
        compactionAt = i;
        break;
    }
  });
  context.injectedTtsrRules = [...rules];
  if (context.modeData === undefined) delete context.modeData;

  const emit = (entry: SessionEntry): void => {
    const message = entryToMessage(entry);
    if (message === undefined) return;
    context.messages.push(message);
    context.messageEntryIds.push(entryIdOf(entry));
  };

  const compaction = path[compactionAt] as CompactionEntry | undefined;
  if (compaction === undefined) {
    for (const entry of path) emit(entry);
    return context;
  }
  context.compaction = compaction;
  const firstKept = typeof compaction.firstKeptEntryId === "string" ? compaction.firstKeptEntryId : null;
  context.firstKeptEntryId = firstKept;
  context.messages.push(compactionToMessage(compaction));
  context.messageEntryIds.push(entryIdOf(compaction));
  let keeping = false;
  for (let i = 0; i < compactionAt; i++) {
    const entry = path[i];
    if (!entry) continue;
    if (!keeping && firstKept !== null && entryIdOf(entry) === firstKept) {
      keeping = true;
      context.firstKeptOnPath = true;
    }
    if (keeping) emit(entry);
  }
  for (let i = compactionAt + 1; i < path.length; i++) {
    const entry = path[i];
    if (entry) emit(entry);
  }
  return context;
}
