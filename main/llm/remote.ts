/**
 * Remote compaction endpoint (SPEC §6.3 step 5): POSTs `{systemPrompt, prompt}` as JSON and
 * takes the string `summary` of the reply. Failures resolve as `stopReason: "error"` with the
 * spec's texts; an abort resolves `aborted`, and an endpoint that sends nothing for
 * `compaction.remoteTimeoutSeconds` (no answer yet, or its body stalls) fails as timed out.
 * Used for the main and the short summary only.
 * `probeRemoteEndpoint` only checks that it answers (Settings → Test connection).
 */
import type {
  AbortSignalLike,
  Summarizer,
  SummaryRequest,
  SummaryResponse,
} from "../../core/compaction/types.ts";
import { type IdleWatch, type IdleWords, watchIdle } from "./idle-timeout.ts";
import { linkSignal } from "./link-signal.ts";

/** compaction.remoteTimeoutSeconds unset: as long as a model's request may stay silent (10 minutes). */
export const DEFAULT_REMOTE_TIMEOUT_MS = 600_000;

const REMOTE_WORDS: IdleWords = {
  silent: "the endpoint sent nothing",
  stalled: "the endpoint's answer stalled, nothing more came",
  setting: "compaction.remoteTimeoutSeconds",
};

export interface RemoteSummarizerConfig {
  endpoint: string;
  /** Injected fetch (tests); defaults to the global one. */
  fetchImpl?: typeof fetch;
  /** How long the endpoint may send nothing (no answer yet, or no more of its body); default DEFAULT_REMOTE_TIMEOUT_MS. */
  timeoutMs?: number;
}

const ABORTED: SummaryResponse = { text: "", stopReason: "aborted" };

function failure(errorMessage: string): SummaryResponse {
  return { text: "", stopReason: "error", errorMessage };
}

/**
 * The answer's body as text, each chunk telling the watch that the endpoint is not silent; its
 * abort (a timeout, a cancel) stops the reading even where the body does not follow the signal.
 */
async function readBody(response: Response, idle: IdleWatch): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  if (idle.signal.aborted) stop();
  else idle.signal.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (idle.signal.aborted) throw new Error("The answer was not read to its end");
      if (done) return text + decoder.decode();
      idle.touch(true);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    idle.signal.removeEventListener("abort", stop);
  }
}

export function createRemoteSummarizer(config: RemoteSummarizerConfig): Summarizer {
  const fetchImpl = config.fetchImpl ?? fetch;
  const timeoutMs = config.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
  return {
    kind: "remote",
    label: `remote endpoint ${config.endpoint}`,
    contextWindow: 0,
    async summarize(request: SummaryRequest): Promise<SummaryResponse> {
      if (request.signal?.aborted) return ABORTED;
      const link = linkSignal(request.signal);
      const idle = watchIdle(link.signal, timeoutMs, REMOTE_WORDS);
      try {
        const response = await fetchImpl(config.endpoint, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ systemPrompt: request.systemPrompt, prompt: request.prompt }),
          signal: idle.signal,
        });
        // The answer has begun: from here the silence is its body's ("stalled").
        idle.touch(true);
        if (!response.ok) {
          // Drain the body so the connection can be reused; its text is not part of the spec's message.
          await response.body?.cancel();
          return failure(`Remote compaction failed (${response.status} ${response.statusText})`);
        }
        const raw = await readBody(response, idle);
        let payload: unknown;
        try {
          payload = JSON.parse(raw);
        } catch {
          return failure("Remote compaction response is not valid JSON");
        }
        const summary =
          payload !== null && typeof payload === "object"
            ? (payload as { summary?: unknown }).summary
            : undefined;
        if (typeof summary !== "string") return failure("Remote compaction response missing summary");
        // As for a model's empty reply: a blank summary would replace the history with nothing.
        if (summary.trim() === "") return failure("Remote compaction response has an empty summary");
        request.onText?.(summary);
        return { text: summary, stopReason: "stop" };
      } catch (error) {
        if (idle.timedOut()) return failure(`Remote compaction failed: ${idle.message()}`);
        if (link.signal.aborted) return ABORTED;
        const cause =
          error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
        const message = error instanceof Error ? error.message : String(error);
        return failure(`Remote compaction failed: ${message}${cause}`);
      } finally {
        idle.dispose();
        link.dispose();
      }
    },
  };
}

export type RemoteProbeResult = { ok: true; latencyMs: number } | { ok: false; message: string };

/**
 * Whether the remote endpoint answers at all (Settings → Test connection): a HEAD request, so no
 * summary is asked for; an HTTP status below 500 counts as reachable, a server error (5xx), a
 * network failure or a timeout does not.
 */
export async function probeRemoteEndpoint(
  endpoint: string,
  timeoutMs = 15_000,
  fetchImpl: typeof fetch = fetch,
  signal?: AbortSignalLike,
): Promise<RemoteProbeResult> {
  const link = linkSignal(signal, timeoutMs);
  const started = performance.now();
  try {
    const response = await fetchImpl(endpoint, { method: "HEAD", signal: link.signal });
    await response.body?.cancel();
    // 404/405 are what a POST-only route says to HEAD; a 5xx (a proxy's 502) is a failing server.
    if (response.status >= 500) {
      const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
      return { ok: false, message: `Remote summary endpoint answered ${status}: its server is failing` };
    }
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (link.timedOut()) return { ok: false, message: `Remote summary endpoint timed out after ${timeoutMs} ms` };
    if (signal?.aborted) return { ok: false, message: "Cancelled" };
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `Remote summary endpoint unreachable: ${message}${cause}` };
  } finally {
    link.dispose();
  }
}
