/**
 * Who writes a compaction's or branch summary's summary, from the settings (D16, SPEC §6.3): the
 * remote summary endpoint (a compaction's main summary only; branch summaries never go there),
 * the configured model, or the built-in offline summarizer; and the line each shows while its
 * answer has not begun, the same in the app and the CLI.
 */
import type { Settings } from "../settings/schema.ts";

export type SummaryWriter = "remote" | "model" | "offline";

export function summaryWriter(
  kind: "compaction" | "branch-summary",
  settings: { model: boolean; remote: boolean },
): SummaryWriter {
  if (kind === "compaction" && settings.remote) return "remote";
  return settings.model ? "model" : "offline";
}

/** The writer as the settings give it. */
export function summaryWriterOf(kind: "compaction" | "branch-summary", settings: Settings): SummaryWriter {
  return summaryWriter(kind, { model: settings.model !== null, remote: Boolean(settings.compaction.remoteEndpoint) });
}

export const OFFLINE_WRITING = "The built-in offline summarizer is writing the summary…";

/** "Waiting for the remote summary endpoint's answer… 42 s" (it answers at once, not token by token). */
export function remoteWaitingText(seconds: number): string {
  return `Waiting for the remote summary endpoint's answer… ${seconds} s`;
}
