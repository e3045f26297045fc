/**
 * Remote compaction endpoint (SPEC §6.3 step 5): POSTs `{systemPrompt, prompt}` as JSON and
 * takes the string `summary` of the reply. Failures resolve as `stopReason: "error"` with the
 * spec's texts; an abort resolves `aborted`. Used for the main and the short summary only.
 * `probeRemoteEndpoint` only checks that it answers (Settings → Test connection).
 */
import type {
  AbortSignalLike,
  Summarizer,
  SummaryRequest,
  SummaryResponse,
} from "../../core/compaction/types.ts";

export interface RemoteSummarizerConfig {
  endpoint: string;
  /** Injected fetch (tests); defaults to the global one. */
  fetchImpl?: typeof fetch;
  /** Whole-request timeout; none by default (the caller's signal bounds it). */
  timeoutMs?: number;
}

const ABORTED: SummaryResponse = { text: "", stopReason: "aborted" };

function failure(errorMessage: string): SummaryResponse {
  return { text: "", stopReason: "error", errorMessage };
}

/** Links a core-style signal (and an optional timeout) to a real AbortController for fetch. */
function linkSignal(signal: AbortSignalLike | undefined, timeoutMs: number | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort);
  if (signal?.aborted) controller.abort();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      signal?.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

export function createRemoteSummarizer(config: RemoteSummarizerConfig): Summarizer {
  const fetchImpl = config.fetchImpl ?? fetch;
  return {
    kind: "remote",
    label: `remote endpoint ${config.endpoint}`,
    contextWindow: 0,
    async summarize(request: SummaryRequest): Promise<SummaryResponse> {
      if (request.signal?.aborted) return ABORTED;
      const link = linkSignal(request.signal, config.timeoutMs);
      try {
        const response = await fetchImpl(config.endpoint, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ systemPrompt: request.systemPrompt, prompt: request.prompt }),
          signal: link.signal,
        });
        if (!response.ok) {
          // Drain the body so the connection can be reused; its text is not part of the spec's message.
          await response.body?.cancel();
          return failure(`Remote compaction failed (${response.status} ${response.statusText})`);
        }
        const raw = await response.text();
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
        if (link.timedOut()) return failure(`Remote compaction timed out after ${config.timeoutMs} ms`);
        if (link.signal.aborted) return ABORTED;
        const cause =
          error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
        const message = error instanceof Error ? error.message : String(error);
        return failure(`Remote compaction failed: ${message}${cause}`);
      } finally {
        link.dispose();
      }
    },
  };
}

export type RemoteProbeResult = { ok: true; latencyMs: number } | { ok: false; message: string };

/**
 * Whether the remote endpoint answers at all (Settings → Test connection): a HEAD request, so no
 * summary is asked for; any HTTP status counts as reachable, a network failure or timeout does not.
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
