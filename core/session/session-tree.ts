/**
 * In-memory session manager (SPEC §2.2–2.6): appending entries at the leaf, moving the leaf,
 * branch summaries, labels, tree reads and branching into a new entry list. Pure: no files;
 * ids and clock are injectable. Walks are cycle-safe (D3).
 */
import type {
  AgentMessage,
  BranchSummaryEntry,
  CompactionEntry,
  CustomEntry,
  CustomMessageEntry,
  ImageContent,
  LabelEntry,
  MessageEntry,
  ModelChangeEntry,
  SessionEntry,
  SessionInfoEntry,
  TextContent,
  ThinkingLevelChangeEntry,
} from "./entries.ts";
import { type IdGenerator, randomEntryId } from "./ids.ts";
import { buildTreeIndex, entryIdOf } from "./tree.ts";

export interface SessionTreeOptions {
  generateId?: IdGenerator;
  now?: () => Date;
}

export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
}

export interface CompactionExtras {
  shortSummary?: string;
  preserveData?: Record<string, unknown>;
}

/** Distributes over the entry union so each variant keeps its own fields. */
type Draft<E> = E extends SessionEntry ? Omit<E, "id" | "parentId" | "timestamp"> : never;

/** Drops keys whose value is undefined: such keys are absent from the JSON line (SPEC §1.4). */
function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = v;
  return out as T;
}

function notFound(id: string | null): Error {
  return new Error(`Entry ${id} not found`);
}

export class SessionTree {
  #entries: SessionEntry[] = [];
  #byId = new Map<string, SessionEntry>();
  #labels = new Map<string, string>();
  #leafId: string | null = null;
  readonly #generateId: IdGenerator;
  readonly #now: () => Date;

  /** Loads existing entries (file order); the leaf is the last entry, as after a reload. */
  constructor(entries: readonly SessionEntry[] = [], options: SessionTreeOptions = {}) {
    this.#generateId = options.generateId ?? randomEntryId;
    this.#now = options.now ?? (() => new Date());
    this.#load(entries);
  }

  #load(entries: readonly SessionEntry[]): void {
    this.#entries = [...entries];
    const index = buildTreeIndex(this.#entries);
    this.#byId = new Map(index.byId);
    this.#labels = new Map(index.labels);
    const last = this.#entries.at(-1);
    this.#leafId = last ? entryIdOf(last) : null;
  }

  // ── reading ──────────────────────────────────────────────────────────────
  getEntries(): readonly SessionEntry[] {
    return this.#entries;
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }
  getLeafId(): string | null {
    return this.#leafId;
  }
  getLeafEntry(): SessionEntry | undefined {
    return this.#leafId === null ? undefined : this.#byId.get(this.#leafId);
  }
  getLabel(id: string): string | undefined {
    return this.#labels.get(id);
  }

  /** Path root → `fromId` (default: the leaf); empty when the id is null or unknown. */
  getBranch(fromId?: string | null): SessionEntry[] {
    const start = fromId === undefined ? this.#leafId : fromId;
    const path: SessionEntry[] = [];
    const seen = new Set<string>();
    let cursor = start === null ? undefined : this.#byId.get(start);
    while (cursor) {
      const id = entryIdOf(cursor);
      if (id === null || seen.has(id)) break;
      seen.add(id);
      path.push(cursor);
      const parentId: unknown = cursor.parentId;
      cursor = typeof parentId === "string" ? this.#byId.get(parentId) : undefined;
    }
    return path.reverse();
  }

  /** Entries whose parentId equals `parentId`, in file order. */
  getChildren(parentId: string): SessionEntry[] {
    return this.#entries.filter((entry) => entry.parentId === parentId && entryIdOf(entry) !== null);
  }

  /** Root nodes (file order) with children sorted by timestamp and resolved labels. */
  getTree(): SessionTreeNode[] {
    const index = buildTreeIndex(this.#entries);
    const makeNode = (entry: SessionEntry): SessionTreeNode => {
      const id = entryIdOf(entry);
      const label = id === null ? undefined : this.#labels.get(id);
      return label === undefined ? { entry, children: [] } : { entry, children: [], label };
    };
    const roots = index.roots.map(makeNode);
    // Iterative: session paths can be thousands of entries deep.
    const stack = [...roots];
    for (let node = stack.pop(); node; node = stack.pop()) {
      const id = entryIdOf(node.entry);
      if (id === null) continue;
      for (const child of index.childrenSorted(id)) {
        const childNode = makeNode(child);
        node.children.push(childNode);
        stack.push(childNode);
      }
    }
    return roots;
  }

  // ── appending ────────────────────────────────────────────────────────────
  #append<E extends SessionEntry>(draft: Draft<E>): string {
    const id = this.#generateId(this.#byId);
    const entry = withoutUndefined({
      ...draft,
      id,
      parentId: this.#leafId,
      timestamp: this.#now().toISOString(),
    }) as unknown as E;
    this.#entries.push(entry);
    this.#byId.set(id, entry);
    this.#leafId = id;
    return id;
  }

  appendMessage(message: AgentMessage): string {
    return this.#append<MessageEntry>({ type: "message", message });
  }
  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.#append<ThinkingLevelChangeEntry>({ type: "thinking_level_change", thinkingLevel });
  }
  /** omp dialect: `model` = "provider/modelId", optional role. */
  appendModelChange(model: string, role?: string): string {
    return this.#append<ModelChangeEntry>({ type: "model_change", model, role });
  }
  appendCompaction(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: unknown,
    fromExtension?: boolean,
    extras: CompactionExtras = {},
  ): string {
    return this.#append<CompactionEntry>({
      type: "compaction",
      summary,
      shortSummary: extras.shortSummary,
      firstKeptEntryId,
      tokensBefore,
      details,
      preserveData: extras.preserveData,
      fromExtension,
    });
  }
  appendCustomEntry(customType: string, data?: unknown): string {
    return this.#append<CustomEntry>({ type: "custom", customType, data });
  }
  appendCustomMessageEntry(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: unknown,
  ): string {
    return this.#append<CustomMessageEntry>({
      type: "custom_message",
      customType,
      content,
      details,
      display,
    });
  }
  /** pi dialect display name. */
  appendSessionInfo(name: string): string {
    return this.#append<SessionInfoEntry>({ type: "session_info", name: name.trim() });
  }
  /** Sets (non-empty) or clears a label; appends a `label` entry and moves the leaf (SPEC §2.4). */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.#byId.has(targetId)) throw notFound(targetId);
    const id = this.#append<LabelEntry>({ type: "label", targetId, label });
    if (label) this.#labels.set(targetId, label);
    else this.#labels.delete(targetId);
    return id;
  }

  // ── moving the leaf ──────────────────────────────────────────────────────
  branch(id: string): void {
    if (!this.#byId.has(id)) throw notFound(id);
    this.#leafId = id;
  }
  resetLeaf(): void {
    this.#leafId = null;
  }
  /** Attaches a branch summary at `fromId` (null: a new root) and makes it the leaf. */
  branchWithSummary(
    fromId: string | null,
    summary: string,
    details?: unknown,
    fromExtension?: boolean,
  ): string {
    if (fromId !== null && !this.#byId.has(fromId)) throw notFound(fromId);
    this.#leafId = fromId;
    return this.#append<BranchSummaryEntry>({
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      details,
      fromExtension,
    });
  }

  /**
   * Replaces the entries by the path root → `leafId` without label entries, followed by one
   * fresh label entry per labelled path entry (chained); the leaf becomes the last entry.
   */
  createBranchedSession(leafId: string): void {
    const path = this.getBranch(leafId);
    if (path.length === 0) throw notFound(leafId);
    const kept = path.filter((entry) => entry.type !== "label");
    const labelled = kept.flatMap((entry) => {
      const id = entryIdOf(entry);
      const label = id === null ? undefined : this.#labels.get(id);
      return id !== null && label !== undefined ? [{ targetId: id, label }] : [];
    });
    this.#load(kept);
    for (const { targetId, label } of labelled) this.appendLabelChange(targetId, label);
  }
}
