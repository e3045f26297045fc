/**
 * Pure helpers of the library sidebar: sessions grouped by project (cwd), sizes and ages as a
 * person reads them, and search snippets split at the match markers the search channel inserts.
 */
import { showBidiControls } from "../common/bidi-controls.ts";
import type { SessionSummary } from "../../../../core/api/dto.ts";

export interface ProjectGroup {
  cwd: string;
  /** Last path segment, the way projects are usually named. */
  name: string;
  sessions: SessionSummary[];
  /** Newest `modified` of its sessions (ISO). */
  modified: string;
}

export function projectName(cwd: string): string {
  const trimmed = cwd.replace(/[\\/]+$/, "");
  const last = trimmed.split(/[\\/]/).pop();
  return last && last.length > 0 ? last : cwd || "(no project)";
}

/** How the list orders sessions inside a project, and the projects by their first session. */
export type SessionSort = "modified" | "created" | "name" | "size";

export const SESSION_SORTS: readonly { value: SessionSort; label: string }[] = [
  { value: "modified", label: "Modified" },
  { value: "created", label: "Created" },
  { value: "name", label: "Name" },
  { value: "size", label: "Size" },
];

/** The name a session goes by (its title, else its first message), as the list shows it. */
function sessionName(session: SessionSummary): string {
  return session.title ?? session.firstMessage;
}

const newestFirst = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);

function compareSessions(sort: SessionSort): (a: SessionSummary, b: SessionSummary) => number {
  switch (sort) {
    case "created":
      return (a, b) => newestFirst(a.created, b.created);
    case "name":
      return (a, b) => sessionName(a).localeCompare(sessionName(b), undefined, { sensitivity: "base" });
    case "size":
      return (a, b) => b.fileSize - a.fileSize;
    default:
      return (a, b) => newestFirst(a.modified, b.modified);
  }
}

/**
 * Groups by cwd; the sessions inside a group in `sort` order (newest modified first by default),
 * the groups by their first session in that order (by project name when sorted by name).
 */
export function groupByProject(sessions: readonly SessionSummary[], sort: SessionSort = "modified"): ProjectGroup[] {
  const groups = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    const list = groups.get(session.cwd);
    if (list) list.push(session);
    else groups.set(session.cwd, [session]);
  }
  const compare = compareSessions(sort);
  return [...groups.entries()]
    .map(([cwd, list]) => {
      const sorted = [...list].sort((a, b) => compare(a, b) || newestFirst(a.modified, b.modified));
      const modified = [...list].sort((a, b) => newestFirst(a.modified, b.modified))[0]?.modified ?? "";
      return { cwd, name: projectName(cwd), sessions: sorted, modified };
    })
    .sort((a, b) => {
      const order =
        sort === "name"
          ? a.name.localeCompare(b.name, undefined, { sensitivity: "base" })
          : compare(a.sessions[0] as SessionSummary, b.sessions[0] as SessionSummary);
      return order || a.cwd.localeCompare(b.cwd);
    });
}

/**
 * The sessions whose title, first message, project folder (cwd) or file name contain every word
 * of `filter`, or whose id is it or starts with it (case-insensitive); all of them for an empty filter.
 */
export function filterSessions(sessions: readonly SessionSummary[], filter: string): readonly SessionSummary[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return sessions;
  return sessions.filter((session) => {
    const text = `${session.title ?? ""}\n${session.firstMessage}\n${session.cwd}\n${fileName(session.sourcePath)}`.toLowerCase();
    const id = session.id.toLowerCase();
    // A whole id always matches, however short (a hand-made file's `x1`).
    const idMatches = (word: string) => id === word || (word.length >= ID_PREFIX_MIN && id.startsWith(word));
    return words.every((word) => text.includes(word) || idMatches(word));
  });
}

/**
 * A session id matches the filter by a prefix of at least this many characters, as the CLI takes
 * it (`canopy list` prints ids): shorter words would match ids by chance ("add", "bee").
 */
const ID_PREFIX_MIN = 4;

function fileName(path: string | null): string {
  return path === null ? "" : (path.split(/[\\/]/).at(-1) ?? "");
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", else the date (YYYY-MM-DD). */
export function formatAge(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "unknown";
  const seconds = Math.round((now - time) / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 14) return `${days} d ago`;
  return new Date(time).toISOString().slice(0, 10);
}

/** Private-use characters: cannot collide with brackets or anything else in message text. */
export const MATCH_START = "\uE000";
export const MATCH_END = "\uE001";

export interface SnippetPiece {
  text: string;
  match: boolean;
}

export function snippetPieces(snippet: string): SnippetPiece[] {
  const pieces: SnippetPiece[] = [];
  let rest = snippet;
  while (rest.length > 0) {
    const start = rest.indexOf(MATCH_START);
    if (start < 0) {
      pieces.push({ text: rest, match: false });
      break;
    }
    if (start > 0) pieces.push({ text: rest.slice(0, start), match: false });
    const end = rest.indexOf(MATCH_END, start + 1);
    if (end < 0) {
      pieces.push({ text: rest.slice(start + 1), match: true });
      break;
    }
    pieces.push({ text: rest.slice(start + 1, end), match: true });
    rest = rest.slice(end + 1);
  }
  // Bidi overrides in the matched text would reorder the snippet: spelled out, as everywhere.
  return pieces
    .filter((piece) => piece.text.length > 0)
    .map((piece) => ({ ...piece, text: showBidiControls(piece.text) }));
}

/** Longest path shown in an import report's list of problem files (the full one is its tooltip). */
const SHOWN_PATH_CHARS = 48;

/**
 * A file of an import report as the list shows it: relative to the imported folder it is in
 * (the file's name when the file itself was imported), cut in the middle when still long.
 */
export function reportPath(file: string, roots: readonly string[] | undefined): string {
  const root = (roots ?? [])
    .filter((folder) => file === folder || file.startsWith(`${folder}/`) || file.startsWith(`${folder}\\`))
    .sort((a, b) => b.length - a.length)[0];
  const relative =
    root === undefined ? file : file === root ? (file.split(/[\\/]/).pop() ?? file) : file.slice(root.length + 1);
  if (relative.length <= SHOWN_PATH_CHARS) return relative;
  const tail = Math.ceil(SHOWN_PATH_CHARS * 0.65);
  return `${relative.slice(0, SHOWN_PATH_CHARS - tail - 1)}…${relative.slice(-tail)}`;
}
