/**
 * THE contract between Canopy's main side and every client (renderer over IPC or HTTP/WS, CLI,
 * tests). Each request is `area:action` → input → output; each event `area:past-tense` → payload.
 * Handlers in main/api implement exactly this map; transports loop over CHANNELS.
 */
import type {
  ContextView,
  ExportResult,
  ImportReport,
  LibraryFolders,
  SearchHit,
  SessionDetail,
  SessionSummary,
} from "./dto.ts";

export interface Requests {
  /** All sessions in the library, newest first. */
  "library:list": { input: Record<string, never>; output: SessionSummary[] };
  /** Import one .jsonl file or a whole folder tree (re-import adds only new lines). */
  "library:import": { input: { path: string }; output: ImportReport };
  /** Import the configured agent session folders (default ~/.pi/agent/sessions, ~/.omp/agent/sessions). */
  "library:import-default-folders": { input: Record<string, never>; output: ImportReport };
  /** The agent session folders Canopy scans. */
  "library:get-folders": { input: Record<string, never>; output: LibraryFolders };
  /** Replace the agent session folders Canopy scans. */
  "library:set-folders": { input: LibraryFolders; output: LibraryFolders };
  /** Full-text search over message text of every session. */
  "library:search": { input: { query: string; limit?: number }; output: SearchHit[] };
  /** One session: header, entries, problems, labels. */
  "session:get": { input: { sessionId: string }; output: SessionDetail };
  /** Move Canopy's view leaf (D14); never writes to the agent's file. */
  "session:set-view-leaf": { input: { sessionId: string; leafId: string | null }; output: SessionSummary };
  /** Lossless JSONL export; with leafId, a resume marker makes the agent resume there (D14). */
  "session:export": {
    input: { sessionId: string; leafId?: string; outPath?: string };
    output: ExportResult;
  };
  /** What the model sees at a leaf (default: the view leaf). */
  "context:get": { input: { sessionId: string; leafId?: string | null }; output: ContextView };
}

export interface Events {
  /** The set of sessions or their summaries changed. */
  "library:changed": { sessionIds: string[] };
  /** A session's entries or view leaf changed. */
  "session:changed": { sessionId: string; viewLeafId: string | null };
  /** Progress of a long job (imports, summaries). */
  "job:progressed": { jobId: string; label: string; done: number; total: number | null };
}

export type Channel = keyof Requests;
export type EventName = keyof Events;
export type RequestInput<C extends Channel> = Requests[C]["input"];
export type RequestOutput<C extends Channel> = Requests[C]["output"];

/** Every request channel, for transports that bind them one by one. */
export const CHANNELS = [
  "library:list",
  "library:import",
  "library:import-default-folders",
  "library:get-folders",
  "library:set-folders",
  "library:search",
  "session:get",
  "session:set-view-leaf",
  "session:export",
  "context:get",
] as const satisfies readonly Channel[];

export const EVENT_NAMES = ["library:changed", "session:changed", "job:progressed"] as const satisfies readonly EventName[];

/** Compile-time check that CHANNELS lists every channel exactly. */
type Missing = Exclude<Channel, (typeof CHANNELS)[number]>;
const _allChannelsListed: Missing extends never ? true : never = true;
void _allChannelsListed;
